//! An imported k6 run's one row and its scenario: the trial from what k6 measured, the
//! target named by the flag or the URL, and the load as the export's metadata recorded it
//! (k6 measures no CPU, memory or GC: those are "-", not 0).
use gqlbench_engine::LoadResult;

use super::Options;
use crate::catalog::scenario::Model;
use crate::catalog::TargetKind;
use crate::export::plan::{Executor, ExportMetadata};
use crate::results::*;

/// The target's row: one trial, summarized.
pub fn target(
    o: &Options,
    m: Option<&ExportMetadata>,
    load: LoadResult,
    started: Option<String>,
    problems: Vec<String>,
    saturation: Vec<SaturationFlag>,
) -> TargetResult {
    let valid = load.failed == 0 && load.requests > 0;
    let trial = TrialResult {
        valid,
        problems,
        saturation,
        ..TrialResult::of_load(1, started.unwrap_or_default(), load)
    };
    let target_name = o
        .target
        .clone()
        .or_else(|| m.map(|m| crate::urls::authority(&m.url).to_string()))
        .unwrap_or_else(|| "k6-target".into());
    // k6 does not know what served its requests: no package, version or runtime.
    let mut target = TargetResult {
        trials: vec![trial],
        ..TargetResult::new(target_name, TargetKind::Server)
    };
    let mut summ = crate::summary::summarize(&target);
    if let Some(s) = &mut summ {
        // k6 measures none of these: "-" in the tables, not 0.
        s.cpu_avg_pct = None;
        s.rss_avg_bytes = None;
        s.rss_peak_bytes = None;
        s.gc = None;
        if target.trials[0].load.latency_hist.is_empty() {
            s.latency = target.trials[0].load.latency.clone();
        }
    }
    target.summary = summ;
    target
}

/// The one scenario of the import, named by the flags or the export's metadata.
pub fn scenario(o: &Options, m: Option<&ExportMetadata>, target: TargetResult) -> ScenarioResult {
    let load_info = LoadInfo {
        // 0 connections: not recorded (see `report::provenance::load_line`).
        model: m.map_or(Model::Closed, |m| m.model),
        connections: m.map_or(0, |m| executor_vus(&m.executor)),
        pipelining: 1,
        think_time_s: 0.0,
        rate: m.and_then(|m| match m.executor {
            Executor::ConstantArrivalRate { rate, .. } => Some(rate),
            Executor::RampingArrivalRate { start_rate, .. } => Some(start_rate),
            _ => None,
        }),
        stages: Vec::new(),
        timeout_s: 0.0,
        unique_request_header: false,
    };
    let suite = o
        .suite
        .clone()
        .or_else(|| m.map(|m| m.suite.clone()))
        .unwrap_or_else(|| "k6".into());
    let name = o
        .scenario
        .clone()
        .or_else(|| m.map(|m| m.scenario.clone()))
        .unwrap_or_else(|| "import".into());
    let duration_s = target.trials[0].load.elapsed_s;
    let scenario = ScenarioResult {
        description: match m {
            Some(m) => format!(
                "k6 run of `gqlbench export k6 {}/{}` against {}",
                m.suite, m.scenario, m.url
            ),
            None => "a k6 run".into(),
        },
        trials_planned: 1,
        warmup_s: m.map_or(0.0, |m| m.warmup_s),
        duration_s,
        targets: vec![target],
        suite,
        name,
        load: load_info,
        ..Default::default()
    };
    scenario
}

fn executor_vus(e: &Executor) -> u32 {
    match e {
        Executor::ConstantVus { vus } => *vus,
        Executor::RampingVus { start_vus, .. } => *start_vus,
        Executor::ConstantArrivalRate { max_vus, .. }
        | Executor::RampingArrivalRate { max_vus, .. } => *max_vus,
    }
}
