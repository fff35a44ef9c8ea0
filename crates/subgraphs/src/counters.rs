//! GraphQL requests served per subgraph since start, for `GET /counters`: the runner reads
//! them around each trial to report upstream calls per client request. The names are any
//! process's subgraphs: a built-in graph's or those of a folder of mock SDL files.

use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug)]
pub struct Counters {
    names: Vec<String>,
    counts: Vec<AtomicU64>,
}

impl Counters {
    /// One counter per name, by index.
    pub fn new<S: AsRef<str>>(names: &[S]) -> Counters {
        Counters {
            names: names.iter().map(|n| n.as_ref().to_string()).collect(),
            counts: names.iter().map(|_| AtomicU64::new(0)).collect(),
        }
    }

    pub fn hit(&self, index: usize) {
        self.counts[index].fetch_add(1, Ordering::Relaxed);
    }

    pub fn get(&self, index: usize) -> u64 {
        self.counts[index].load(Ordering::Relaxed)
    }

    /// `{"accounts": n, "products": n, ...}`, in index order.
    pub fn to_json(&self) -> String {
        let fields: Vec<String> = self
            .names
            .iter()
            .enumerate()
            // A file stem may hold any character: quoted as JSON.
            .map(|(i, n)| format!("{}: {}", serde_json::Value::from(n.as_str()), self.get(i)))
            .collect();
        format!("{{{}}}", fields.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;

    #[test]
    fn counts_per_subgraph_as_json() {
        let c = Counters::new(Graph::Demo.names());
        c.hit(2);
        c.hit(2);
        c.hit(0);
        let v: serde_json::Value = serde_json::from_str(&c.to_json()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"accounts": 1, "products": 0, "reviews": 2, "inventory": 0})
        );
        let wide = Counters::new(Graph::Wide.names());
        wide.hit(11);
        let v: serde_json::Value = serde_json::from_str(&wide.to_json()).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 12);
        assert_eq!(v["users"], 1);
        let odd = Counters::new(&["a\"b".to_string()]);
        odd.hit(0);
        let v: serde_json::Value = serde_json::from_str(&odd.to_json()).unwrap();
        assert_eq!(v, serde_json::json!({"a\"b": 1}));
    }
}
