//! What a reload scenario records: its spec (on the scenario), every reload of a trial (on
//! the trial) and a target's summary over its reloads (on the target), each under its own
//! key in the result model.
use serde::{Deserialize, Serialize};

use crate::results::{Estimate, Key};

/// `reload` of a scenario: what was asked of every target.
pub const SPEC: Key<ReloadInfo> = Key::new("reload");
/// `reloads` of a trial: each reload, in order.
pub const SAMPLES: Key<Vec<ReloadSample>> = Key::new("reloads");
/// `reload` of a target: its summary over the reloads of its counted trials.
pub const SUMMARY: Key<ReloadSummary> = Key::new("reload");

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ReloadInfo {
    /// Reloads per target.
    pub reloads: u32,
    /// How long a reload may take to become visible before it counts as failed.
    pub timeout_s: f64,
    /// Time between two introspection polls while waiting for the new schema.
    pub poll_ms: f64,
}

/// One rewrite of the supergraph file and what followed it.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ReloadSample {
    /// 1-based, within its trial.
    pub reload: u32,
    /// The Query type's description this reload wrote.
    pub description: String,
    /// From the file's replacement to the first introspection answer with the new
    /// description; None when it never came within the timeout.
    pub reload_s: Option<f64>,
    /// The scenario's operation right after the new schema showed (answer checked).
    pub first_request_s: Option<f64>,
    /// The same operation once more: the warm figure to set the first against.
    pub second_request_s: Option<f64>,
    /// Introspection polls sent while waiting.
    pub polls: u32,
    /// Requests that failed from the rewrite to the second request (a poll answered with
    /// neither the old nor the new schema, refused, or not answered; a wrong operation).
    pub failed_requests: u32,
    /// Why this reload did not complete; None when it did.
    pub problem: Option<String>,
}

impl ReloadSample {
    pub fn is_ok(&self) -> bool {
        self.problem.is_none()
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ReloadSummary {
    /// Reloads attempted and reloads that completed (visible, both requests right).
    pub reloads: u32,
    pub ok: u32,
    pub reload_s: Estimate,
    pub first_request_s: Estimate,
    pub second_request_s: Estimate,
    pub failed_requests: u64,
}
