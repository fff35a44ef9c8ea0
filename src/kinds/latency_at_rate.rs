//! Latency at a fixed rate, against an objective: `[latency_at_rate] rate = 200` with
//! `p99_ms = 50` (and optionally `p50_ms`) runs every trial at that arrival rate (the open
//! model: requests are sent on schedule whether or not earlier ones were answered, so a
//! slow server shows its queueing) and reports each target's p50 and p99 against the
//! objective. What an SLO asks of a server, rather than what it serves at most. The
//! objective is a finding in the report, not a failure: the run measured it.
use std::sync::Arc;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::kind::{Kind, KindDef, ResolveCx, TrialCx};
use crate::plan::Load;
use crate::results::{Key, ScenarioResult, TargetResult, TrialResult};
use crate::view::cells::{dash, not_installed};
use crate::view::Table;

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    list: |v, _, _| match toml::Value::try_into::<Objective>(v.clone()) {
        Ok(o) => format!("open, {} req/s, objective p99 ≤ {} ms", o.rate, o.p99_ms),
        Err(_) => "open, latency at a fixed rate".into(),
    },
    not_in_k6: Some(
        "its trials run at [latency_at_rate] rate, not at the scenario's [load]: export a scenario whose [load] is model = \"open\" at that rate instead",
    ),
    ..KindDef::base("latency_at_rate", resolve)
};

/// `latency_at_rate` of a scenario: the rate and the objective its trials were judged by.
pub const OBJECTIVE: Key<Objective> = Key::new("latency_at_rate");

/// `[latency_at_rate]`: the arrival rate and the latency objective at it.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    /// Requests per second, sent on schedule.
    pub rate: f64,
    /// The p99 latency a target must stay at or under, in ms.
    pub p99_ms: f64,
    /// The p50 latency a target must stay at or under, in ms, if the scenario asks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p50_ms: Option<f64>,
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let Some(o): Option<Objective> = cx.spec("latency_at_rate")? else {
        return Ok(None);
    };
    let positive = |x: f64| x.is_finite() && x > 0.0;
    if !(positive(o.rate) && positive(o.p99_ms) && o.p50_ms.is_none_or(positive)) {
        return Err(cx
            .bad(format!(
                "[latency_at_rate]: rate, p99_ms (and p50_ms if given) must be above zero, e.g. rate = 200 and p99_ms = 50 (got rate {}, p99_ms {})",
                o.rate, o.p99_ms
            ))
            .into());
    }
    Ok(Some(Arc::new(LatencyAtRate(o))))
}

/// Trials at a fixed arrival rate, judged against a latency objective.
#[derive(Debug)]
pub struct LatencyAtRate(pub Objective);

impl LatencyAtRate {
    fn load(&self, load: &Load) -> Load {
        load.at_rate(self.0.rate)
    }
}

impl Kind for LatencyAtRate {
    /// Every target is sent the same rate: its req/s says nothing to rank by.
    fn adaptive_rounds(&self) -> bool {
        false
    }

    fn loads(&self, load: &Load) -> Vec<Load> {
        vec![self.load(load)]
    }

    fn describe(&self, s: &mut ScenarioResult) {
        s.load = at_rate_info(s, self.0.rate);
        s.by_kind.set(&OBJECTIVE, &self.0);
    }

    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        let load = self.load(&cx.sp.load);
        crate::kind::load::trial_of(cx, &load)
    }
}

/// A scenario's load as results record it when its kind sends a fixed `rate` (open model),
/// not the file's [load].
pub fn at_rate_info(s: &ScenarioResult, rate: f64) -> crate::results::LoadInfo {
    crate::results::LoadInfo {
        model: crate::catalog::scenario::Model::Open,
        rate: Some(rate),
        pipelining: 1,
        think_time_s: 0.0,
        stages: Vec::new(),
        ..s.load.clone()
    }
}

/// Whether a target met the objective: in how many of its valid trials both latencies
/// stayed at or under it.
fn verdict(o: &Objective, t: &TargetResult) -> String {
    let trials: Vec<&TrialResult> = crate::summary::counted_trials(t)
        .into_iter()
        .filter(|x| x.valid)
        .collect();
    if trials.is_empty() {
        return dash();
    }
    let met = |x: &&&TrialResult| {
        x.load.latency.p99_us as f64 / 1000.0 <= o.p99_ms
            && o.p50_ms
                .is_none_or(|p| x.load.latency.p50_us as f64 / 1000.0 <= p)
    };
    let n = trials.iter().filter(met).count();
    match n {
        0 => format!("missed in every trial (0/{})", trials.len()),
        n if n == trials.len() => format!("met ({n}/{n} trials)"),
        n => format!("met in {n}/{} trials", trials.len()),
    }
}

fn table(s: &ScenarioResult) -> Option<Table> {
    let o = s.by_kind.get(&OBJECTIVE)?;
    let ms = |us: u64| format!("{:.2}", us as f64 / 1000.0);
    let rows = s
        .targets
        .iter()
        .filter(|t| !not_installed(t))
        .map(|t| {
            // The row's summary: req/s over its counted valid trials, latency from their
            // histograms merged.
            let sum = t.summary.as_ref();
            vec![
                t.name.clone(),
                sum.map_or_else(dash, |x| format!("{:.0}", x.rps.center_or_median())),
                sum.map_or_else(dash, |x| ms(x.latency.p50_us)),
                sum.map_or_else(dash, |x| ms(x.latency.p99_us)),
                verdict(&o, t),
            ]
        })
        .collect();
    let p50 = o
        .p50_ms
        .map_or(String::new(), |p| format!(", p50 ≤ {p} ms"));
    Some(Table {
        title: format!(
            "Latency at {} req/s (objective: p99 ≤ {} ms{p50}, judged in each trial; p50 and p99 of the trials' histograms merged)",
            o.rate, o.p99_ms
        ),
        headers: ["target", "achieved req/s", "p50 ms", "p99 ms", "objective"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}
