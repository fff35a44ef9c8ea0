//! A target's fairness-relevant settings (`[settings]` of its manifest).
use serde::{Deserialize, Serialize};

/// Fairness-relevant settings, shown side by side in reports.
#[derive(Deserialize, Serialize, Debug, Clone, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    #[serde(default)]
    pub jit: bool,
    #[serde(default)]
    pub parse_cache: bool,
    #[serde(default)]
    pub response_cache: bool,
    #[serde(default)]
    pub dedup: bool,
    #[serde(default)]
    pub batching: bool,
    /// Gateways: query plans cached between requests.
    #[serde(default)]
    pub query_plan_cache: bool,
    /// Maximum query depth the server enforces (None: no limit configured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_limit: Option<u32>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
}

impl Settings {
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        for (on, name) in [
            (self.jit, "jit"),
            (self.parse_cache, "parse-cache"),
            (self.response_cache, "response-cache"),
            (self.dedup, "dedup"),
            (self.batching, "batching"),
            (self.query_plan_cache, "plan-cache"),
        ] {
            if on {
                parts.push(name);
            }
        }
        if parts.is_empty() {
            "none".into()
        } else {
            parts.join(", ")
        }
    }
}
