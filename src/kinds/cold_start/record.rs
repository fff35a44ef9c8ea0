//! What a cold-start scenario records beyond the samples of every start: a target's
//! summary over its starts.
use serde::{Deserialize, Serialize};

use crate::results::{Estimate, Key};

/// `cold_start` of a target.
pub const SUMMARY: Key<ColdStartSummary> = Key::new("cold_start");

#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct ColdStartSummary {
    pub starts: u32,
    pub ok: u32,
    pub ready_s: Estimate,
    pub first_request_s: Estimate,
    pub second_request_s: Estimate,
    pub rss_at_ready_bytes: Estimate,
}
