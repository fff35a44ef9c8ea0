//! The entity a `_entities` representation names: by whichever of its type's keys it
//! carries, the same entity (`identity`), or, for an entity interface, the implementation
//! its identity names.

use serde_json::{Map, Value as Json};

use super::identity;
use super::model::{Key, Kind, TypeDef};
use super::resolve::{Mock, Node};

impl Mock {
    /// The entity a `_entities` representation names: by whichever of its resolvable keys
    /// the representation carries, the same entity (`identity`).
    pub fn entity(&self, rep: &Json) -> Result<Node, String> {
        let obj = rep.as_object().ok_or("a representation is not an object")?;
        let type_name = obj
            .get("__typename")
            .and_then(Json::as_str)
            .ok_or("a representation has no __typename")?;
        let t = self
            .model
            .types
            .get(type_name)
            .filter(|t| t.keys.iter().any(|k| k.resolvable))
            .ok_or_else(|| format!("{type_name} is not an entity this subgraph resolves"))?;
        if matches!(t.kind, Kind::Interface) {
            return self.interface_entity(t, obj);
        }
        let carries = |k: &&Key| k.fields.iter().all(|f| obj.contains_key(f));
        // A resolvable key first; else any key of the type the representation carries (a
        // gateway should send a resolvable one, but every key gives the same entity, and
        // refusing here would be the mock's verdict, not the subgraph's).
        let key = t
            .keys
            .iter()
            .filter(|k| k.resolvable)
            .find(carries)
            .or_else(|| t.keys.iter().find(carries))
            .ok_or_else(|| format!("the representation of {type_name} carries none of its keys"))?;
        let mut given = obj.clone();
        given.remove("__typename");
        Ok(self.identified(&t.name, given, key))
    }

    /// An entity interface's representation (a gateway holding an `@interfaceObject` asks
    /// for `__typename` and the interface's fields): the implementation its identity names.
    fn interface_entity(&self, t: &TypeDef, rep: &Map<String, Json>) -> Result<Node, String> {
        let n = identity::find(rep, t.keys.iter().flat_map(|k| k.paths.iter()))
            .ok_or_else(|| format!("the representation of {} carries no identity", t.name))?;
        let concrete = self
            .keys
            .concrete(&t.name, n)
            .and_then(|c| self.model.types.get(c))
            .ok_or_else(|| format!("{} has no implementation here", t.name))?;
        let key = t
            .keys
            .iter()
            .find(|k| k.resolvable)
            .ok_or_else(|| format!("{} has no resolvable key", t.name))?;
        let mut given = rep.clone();
        given.remove("__typename");
        // Its identity space is the interface's: the same n and seed as `t`'s entity.
        Ok(self.identified(&concrete.name, given, key))
    }
}
