//! GraphQL requests served per subgraph since start, for `GET /counters`: the runner reads
//! them around each trial to report upstream calls per client request.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::subgraph::Subgraph;

#[derive(Debug, Default)]
pub struct Counters([AtomicU64; 4]);

impl Counters {
    pub fn hit(&self, subgraph: Subgraph) {
        self.0[subgraph.index()].fetch_add(1, Ordering::Relaxed);
    }

    pub fn get(&self, subgraph: Subgraph) -> u64 {
        self.0[subgraph.index()].load(Ordering::Relaxed)
    }

    /// `{"accounts": n, "products": n, "reviews": n, "inventory": n}`
    pub fn to_json(&self) -> String {
        let fields: Vec<String> = Subgraph::ALL
            .iter()
            .map(|g| format!("\"{}\": {}", g.name(), self.get(*g)))
            .collect();
        format!("{{{}}}", fields.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_subgraph_as_json() {
        let c = Counters::default();
        c.hit(Subgraph::Reviews);
        c.hit(Subgraph::Reviews);
        c.hit(Subgraph::Accounts);
        let v: serde_json::Value = serde_json::from_str(&c.to_json()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"accounts": 1, "products": 0, "reviews": 2, "inventory": 0})
        );
    }
}
