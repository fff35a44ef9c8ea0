//! What a response-cache scenario records, in its own types: the caches' time to live and
//! the staleness check's operations (scenario), each target's staleness check (target),
//! and how often a target executed a request (trial).
use serde::{Deserialize, Serialize};

use crate::results::{Key, StalenessVerdict};

/// `response_cache` of a scenario.
pub const INFO: Key<ResponseCacheInfo> = Key::new("response_cache");
/// `staleness` of a target.
pub const STALENESS: Key<StalenessCheck> = Key::new("staleness");
/// `executions` of a trial.
pub const EXECUTIONS: Key<ExecutionUsage> = Key::new("executions");

/// A response-cache scenario's settings, kept with the result.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
pub struct ResponseCacheInfo {
    /// How long every cache keeps an answer (given to the targets as
    /// GQLBENCH_CACHE_TTL_MS): the longest a cache may serve an answer a write made stale.
    pub ttl_s: f64,
    /// The staleness check's read and write operations, when the scenario has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub staleness: Option<StalenessOps>,
}

/// The operations of a staleness check: `read` (two cases: its answer before the write and
/// after it) and `write` (two cases: the change and the one that undoes it).
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct StalenessOps {
    pub read: String,
    pub write: String,
}

/// A response cache's staleness check: an answer read (and cached), a write through the
/// target that changes it, reads until the new answer shows, then the same to undo it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct StalenessCheck {
    /// Longest time after a write that the target still served the answer from before it
    /// (0 when the first read after the write was fresh), over both writes.
    pub stale_s: f64,
    /// Reads after the writes that returned the answer from before them.
    pub stale_reads: u32,
    /// The cache's time to live the scenario gave the target: its bound on `stale_s`.
    pub ttl_s: f64,
    pub verdict: StalenessVerdict,
    /// What went wrong, for "stale" and "wrong".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// How often a target executed a request during a trial, as it counted itself (read from
/// its counters port before and after the trial): a response cache's hits are the
/// requests that did not get here.
#[derive(Serialize, Deserialize, Debug, Clone, Default, PartialEq)]
pub struct ExecutionUsage {
    /// Root fields a Node server resolved, or operations a gateway executed, during the
    /// trial (warm-up, priming and window).
    pub executions: u64,
    /// Requests the trial sent (warm-up, priming and window).
    pub requests: u64,
    /// `executions` / `requests`.
    pub per_request: f64,
}
