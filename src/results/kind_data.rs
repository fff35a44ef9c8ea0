//! What a kind records, in its own type, under its own key: the results model does not
//! know the kinds' types (`kinds::overhead::SPEC` is a `Key<OverheadSpec>` defined beside
//! the kind). In results.json each entry is a field of the scenario, target or trial object
//! it belongs to, exactly where the typed fields of schema 3 put them, so files read the
//! same in both directions.
use std::collections::BTreeMap;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The field name and type of what one kind records.
pub struct Key<T> {
    pub name: &'static str,
    ty: PhantomData<fn() -> T>,
}

impl<T> Key<T> {
    pub const fn new(name: &'static str) -> Key<T> {
        Key {
            name,
            ty: PhantomData,
        }
    }
}

/// The kinds' records of one scenario, target or trial (flattened into its object).
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
#[serde(transparent)]
pub struct KindData(BTreeMap<String, serde_json::Value>);

impl KindData {
    /// The record under `key`; None when absent (or null, or not of the kind's type: a
    /// file damaged by hand reads as the kind not having run).
    pub fn get<T: DeserializeOwned>(&self, key: &Key<T>) -> Option<T> {
        match self.0.get(key.name)? {
            serde_json::Value::Null => None,
            v => T::deserialize(v).ok(),
        }
    }

    /// Whether a record is under `key`.
    pub fn has<T>(&self, key: &Key<T>) -> bool {
        self.0
            .get(key.name)
            .is_some_and(|v| !matches!(v, serde_json::Value::Null))
    }

    /// Records `value` under `key`, replacing what was there.
    pub fn set<T: Serialize>(&mut self, key: &Key<T>, value: &T) {
        // A kind's own types always serialize (plain data); a failure would be a bug in
        // the kind, and the record is then left out rather than the run stopped.
        if let Ok(v) = serde_json::to_value(value) {
            self.0.insert(key.name.to_string(), v);
        }
    }

    /// Removes the record under `key`.
    pub fn remove<T>(&mut self, key: &Key<T>) {
        self.0.remove(key.name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Deserialize, Debug, Default, PartialEq)]
    struct Spec {
        ttl_s: f64,
    }
    const SPEC: Key<Spec> = Key::new("spec");

    #[derive(Serialize, Deserialize, Debug, Default, PartialEq)]
    struct Holder {
        name: String,
        #[serde(flatten)]
        by_kind: KindData,
    }

    #[test]
    fn a_record_is_a_field_of_its_object_and_reads_back_typed() {
        let mut h = Holder {
            name: "s".into(),
            ..Default::default()
        };
        assert!(!h.by_kind.has(&SPEC));
        h.by_kind.set(&SPEC, &Spec { ttl_s: 2.5 });
        let json = serde_json::to_value(&h).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"name": "s", "spec": {"ttl_s": 2.5}})
        );
        let back: Holder = serde_json::from_value(json).unwrap();
        assert_eq!(back.by_kind.get(&SPEC), Some(Spec { ttl_s: 2.5 }));
        let mut back = back;
        let mut spec = back.by_kind.get(&SPEC).unwrap();
        spec.ttl_s += 1.0;
        back.by_kind.set(&SPEC, &spec);
        assert_eq!(back.by_kind.get(&SPEC).map(|s| s.ttl_s), Some(3.5));
    }

    #[test]
    fn absent_null_and_foreign_records_read_as_none() {
        let h: Holder = serde_json::from_value(serde_json::json!({"name": "s"})).unwrap();
        assert_eq!(h.by_kind.get(&SPEC), None);
        let h: Holder =
            serde_json::from_value(serde_json::json!({"name": "s", "spec": null})).unwrap();
        assert_eq!(h.by_kind.get(&SPEC), None);
        assert!(!h.by_kind.has(&SPEC));
        let h: Holder =
            serde_json::from_value(serde_json::json!({"name": "s", "spec": "x"})).unwrap();
        assert_eq!(h.by_kind.get(&SPEC), None);
    }
}
