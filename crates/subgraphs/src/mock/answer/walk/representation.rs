//! The representation a gateway sends with `_entities`: a key of the target subgraph (the
//! first the current subgraph gives without a further fetch, else its first; any key gives
//! the same entity, `identity`) and the values of the field's `@requires`.
use serde_json::{Map, Value as Json};

use super::{At, Walk, MAX_DEPTH};

impl Walk<'_> {
    /// The entity subgraph `t` returns for `at` by the representation a gateway sends it
    /// to fetch field `name` (`for_what`, e.g. " for Product.price", goes in the error).
    pub(super) fn fetch(
        &self,
        at: &At,
        t: usize,
        name: &str,
        path: &str,
        for_what: &str,
    ) -> Result<At, String> {
        let rep = self.representation(at, t, name, path)?;
        let target = &self.graph.subgraphs[t];
        let node = target
            .mock
            .entity(&rep)
            .map_err(|e| format!("{path}: _entities of `{}`{for_what}: {e}", target.name))?;
        Ok(At {
            sub: t,
            node,
            provided: Vec::new(),
            lineage: None,
        })
    }

    /// The representation a gateway sends subgraph `t` to fetch field `name` of `at`.
    pub(super) fn representation(
        &self,
        at: &At,
        t: usize,
        name: &str,
        path: &str,
    ) -> Result<Json, String> {
        let depth = self.depth.get();
        let ty = at.node.type_name.as_str();
        if depth >= MAX_DEPTH {
            return Err(format!(
                "{path}: the representation of {ty} for {ty}.{name} needs fields \
                 that lead back to themselves"
            ));
        }
        self.depth.set(depth + 1);
        let rep = self.build_representation(at, t, name, path);
        self.depth.set(depth);
        rep
    }

    fn build_representation(
        &self,
        at: &At,
        t: usize,
        name: &str,
        path: &str,
    ) -> Result<Json, String> {
        let ty = at.node.type_name.as_str();
        let target = &self.graph.subgraphs[t];
        let keys: Vec<_> = target
            .mock
            .model
            .types
            .get(ty)
            .map(|d| d.keys.iter().filter(|k| k.resolvable).collect())
            .unwrap_or_default();
        // The first resolvable key of the target that the current subgraph gives without
        // a further fetch, as a planner prefers; else its first, fetched field by field.
        // Any key gives the same entity (`identity`), so the choice changes no value.
        let ready = keys
            .iter()
            .find(|k| k.fields.iter().all(|f| self.serves_here(at, f)));
        let key = ready
            .or(keys.first())
            .ok_or_else(|| format!("{path}: {ty} has no resolvable @key in `{}`", target.name))?;
        if let Some(why) = self.graph.limits.of_key(ty, &key.raw) {
            return Err(self.cannot(path, why));
        }
        let mut rep = Map::new();
        rep.insert("__typename".into(), Json::String(ty.to_string()));
        if let Some(set) = target.keys.get(&format!("{ty} {}", key.raw)) {
            let p = format!("{path} (key {ty} {})", key.raw);
            if let Json::Object(values) = self.selections(at, &[set], &p)? {
                rep.extend(values);
            }
        } else {
            for f in &key.fields {
                let v = self.resolve(at, f, None, &[], &format!("{path} (key {ty}.{f})"))?;
                rep.insert(f.clone(), v);
            }
        }
        if let Some(set) = target.requires.get(&format!("{ty}.{name}")) {
            let p = format!("{path} (@requires of {ty}.{name})");
            if let Json::Object(values) = self.selections(at, &[set], &p)? {
                rep.extend(values);
            }
        }
        Ok(Json::Object(rep))
    }
}
