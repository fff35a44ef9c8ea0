//! Cold starts: each target is started fresh again and again (targets interleaved, so drift
//! hits all alike), and for every start we record spawn → ready, the latency of the first
//! real request and of the one after it, and memory at readiness. A start that fails (a
//! crash, never ready, killed by the memory cap) is recorded as such; the others go on.
mod report;
mod run;

mod record;

pub use record::*;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use serde::Deserialize;

use crate::kind::{Kind, KindDef, ResolveCx, ScenarioCx};
use crate::measure::session::{Session, StartOptions};
use crate::measure::{ready, vitals};
use crate::results::{ColdStartSample, ScenarioKind, ScenarioResult};
use crate::results::{StartOutcome, TargetResult, TargetStatus, Unavailable};
use crate::stats;
use crate::view::Table;
use report::*;
use run::*;

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    html,
    list: |v, f, _| {
        format!(
            "{} fresh starts{}",
            v.get("starts").and_then(|s| s.as_integer()).unwrap_or(5),
            f.limits
                .memory
                .as_ref()
                .map(|m| format!(", cap {m}"))
                .unwrap_or_default()
        )
    },
    not_in_k6: Some("cold starts time a process's start, which k6 cannot do"),
    load_line,
    ..KindDef::base("cold_start", resolve)
};

/// `[cold_start]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct ColdStartSpec {
    /// Fresh starts per target (at least 5 for statistics).
    #[serde(default = "five")]
    pub starts: u32,
}

fn five() -> u32 {
    5
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let Some(spec): Option<ColdStartSpec> = cx.spec("cold_start")? else {
        return Ok(None);
    };
    if spec.starts == 0 {
        return Err(cx
            .bad("[cold_start] `starts` must be at least 1 (5 or more for statistics)".into())
            .into());
    }
    // --trials sets the number of starts.
    let starts = cx.args.trials.unwrap_or(spec.starts);
    Ok(Some(Arc::new(ColdStart { starts })))
}

/// Fresh starts per target.
#[derive(Debug)]
pub struct ColdStart {
    pub starts: u32,
}

impl Kind for ColdStart {
    fn adaptive_rounds(&self) -> bool {
        false
    }

    fn describe(&self, s: &mut ScenarioResult) {
        s.kind = ScenarioKind::ColdStart;
        s.trials_planned = self.starts;
    }

    fn trial_secs(&self, _: &crate::kind::ScenarioPlan) -> f64 {
        NOMINAL_START_S
    }

    fn run_alone(&self, cx: &mut ScenarioCx<'_>) -> Option<Result<()>> {
        Some(run(cx, self.starts))
    }
}

const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Nominal seconds one start takes, for progress (matches `ScenarioPlan::planned_load_secs`).
const NOMINAL_START_S: f64 = 2.0;

pub fn summarize(samples: &[ColdStartSample]) -> Option<ColdStartSummary> {
    let ok: Vec<&ColdStartSample> = samples.iter().filter(|c| c.outcome.is_ok()).collect();
    if ok.is_empty() {
        return None;
    }
    let col = |f: &dyn Fn(&ColdStartSample) -> Option<f64>| -> Vec<f64> {
        ok.iter().filter_map(|c| f(c)).collect()
    };
    Some(ColdStartSummary {
        starts: samples.len() as u32,
        ok: ok.len() as u32,
        ready_s: stats::estimate(&col(&|c| c.ready_s)),
        first_request_s: stats::estimate(&col(&|c| c.first_request_s)),
        second_request_s: stats::estimate(&col(&|c| c.second_request_s)),
        rss_at_ready_bytes: stats::estimate(&col(&|c| c.rss_at_ready_bytes.map(|b| b as f64))),
    })
}

#[cfg(test)]
mod tests;
