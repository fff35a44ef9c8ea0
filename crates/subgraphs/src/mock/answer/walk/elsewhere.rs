//! The object the walk stands on as another subgraph gives it: an `@interfaceObject` value
//! completed by the subgraph that keys its entity interface, and a value-type object
//! reached in another subgraph from its nearest entity or root ancestor.
use super::{At, Lineage, Walk};
use crate::mock::resolve::Plain;

impl Walk<'_> {
    /// An `@interfaceObject` value as a gateway completes it: the subgraph that keys the
    /// entity interface names its concrete type (`_entities` with the interface's
    /// `__typename`), and the walk goes on from there.
    pub(super) fn concretize(&self, at: &At, path: &str) -> Result<At, String> {
        let g = self.graph;
        let ty = at.node.type_name.as_str();
        let Some(e) = (0..g.subgraphs.len()).find(|&s| g.keys_interface(s, ty)) else {
            return Err(self.cannot(
                path,
                &format!(
                    "{ty} is an @interfaceObject that no subgraph resolves as an entity interface"
                ),
            ));
        };
        let mut found = self.fetch(at, e, "__typename", path, "")?;
        found.lineage = at.lineage.clone();
        Ok(found)
    }

    /// The value-type object `at` as subgraph `s` gives it: its lineage's base fetched
    /// there (a root, or an entity by `_entities`), then the same fields, arguments and
    /// list items down.
    pub(super) fn relocate(
        &self,
        at: &At,
        l: &Lineage,
        s: usize,
        path: &str,
    ) -> Result<At, String> {
        let g = self.graph;
        let first = &l.steps[0].field;
        let mut cur = match l.base.node.type_name.as_str() {
            "Query" | "Mutation" => At {
                sub: s,
                node: l.base.node.clone(),
                provided: Vec::new(),
                lineage: None,
            },
            ty => self.fetch(&l.base, s, first, path, &format!(" for {ty}.{first}"))?,
        };
        let mock = &g.subgraphs[s].mock;
        for step in &l.steps {
            let ty = cur.node.type_name.clone();
            let def = g.def(s, &ty, &step.field).ok_or_else(|| {
                format!(
                    "{path}: subgraph `{}` serves a field of {} but not {ty}.{}, the way to it",
                    g.subgraphs[s].name, at.node.type_name, step.field
                )
            })?;
            let mut plain = mock
                .plain(&ty, def, &cur.node, &step.args)
                .map_err(|e| format!("{path}: {}", e.message))?;
            for &i in &step.indices {
                plain = match plain {
                    Plain::List(mut items) if i < items.len() => items.swap_remove(i),
                    _ => {
                        return Err(format!(
                            "{path}: {ty}.{} has no item {i} in `{}`",
                            step.field, g.subgraphs[s].name
                        ))
                    }
                };
            }
            let Plain::Object { node, .. } = plain else {
                return Err(format!(
                    "{path}: {ty}.{} is no object in `{}`",
                    step.field, g.subgraphs[s].name
                ));
            };
            cur = At {
                sub: s,
                node,
                provided: Vec::new(),
                lineage: None,
            };
        }
        cur.lineage = at.lineage.clone();
        Ok(cur)
    }
}
