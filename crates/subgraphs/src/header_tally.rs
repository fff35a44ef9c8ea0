//! Request headers the subgraphs saw, for `GET /headers`: a gateway customization that adds
//! a header to every subgraph request (or client names read from a token) proves that it
//! ran by what arrives here. Only the watched names are kept, with a count per value.
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use hyper::HeaderMap;

/// The headers the extensibility suite's customizations add to subgraph requests.
pub const WATCHED: [&str; 3] = [
    "source",
    "apollographql-client-name",
    "apollographql-client-version",
];

/// Distinct values kept per header; more are counted under [`OTHER`], so a client sending
/// a fresh value per request cannot grow the map without bound.
const MAX_VALUES: usize = 32;
pub const OTHER: &str = "(other values)";

#[derive(Debug, Default)]
pub struct HeaderTally {
    requests: AtomicU64,
    seen: Mutex<BTreeMap<&'static str, BTreeMap<String, u64>>>,
}

impl HeaderTally {
    /// Counts one GraphQL request and the watched headers it carries.
    pub fn record(&self, headers: &HeaderMap) {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let present: Vec<(&'static str, String)> = WATCHED
            .iter()
            .filter_map(|name| {
                let v = headers.get(*name)?;
                Some((*name, String::from_utf8_lossy(v.as_bytes()).into_owned()))
            })
            .collect();
        if present.is_empty() {
            return;
        }
        // A poisoned lock only means another request panicked mid-count: keep counting.
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        for (name, value) in present {
            let values = seen.entry(name).or_default();
            let key = if values.len() < MAX_VALUES || values.contains_key(&value) {
                value
            } else {
                OTHER.to_string()
            };
            *values.entry(key).or_default() += 1;
        }
    }

    /// `{"requests": n, "headers": {"source": {"config": n}, ...}}`
    pub fn to_json(&self) -> String {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        serde_json::json!({
            "requests": self.requests.load(Ordering::Relaxed),
            "headers": &*seen,
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn counts_requests_and_watched_values_only() {
        let t = HeaderTally::default();
        t.record(&headers(&[("source", "rhai"), ("x-other", "1")]));
        t.record(&headers(&[("source", "rhai")]));
        t.record(&headers(&[("apollographql-client-name", "web")]));
        t.record(&headers(&[]));
        let v: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"requests": 4, "headers": {
                "source": {"rhai": 2},
                "apollographql-client-name": {"web": 1},
            }})
        );
    }

    #[test]
    fn values_beyond_the_cap_are_lumped_together() {
        let t = HeaderTally::default();
        for i in 0..MAX_VALUES + 5 {
            t.record(&headers(&[("source", &format!("v{i}"))]));
        }
        t.record(&headers(&[("source", "v0")]));
        let v: serde_json::Value = serde_json::from_str(&t.to_json()).unwrap();
        let source = &v["headers"]["source"];
        assert_eq!(source.as_object().unwrap().len(), MAX_VALUES + 1);
        assert_eq!(source[OTHER], 5);
        assert_eq!(source["v0"], 2);
    }
}
