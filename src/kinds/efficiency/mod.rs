//! Cost per request at a fixed rate: `[efficiency] rate = 20` sends every target the same
//! arrival rate (the open model) and ranks them by the CPU each validated answer cost,
//! read from the target's own counters (its cgroup's, or its process tree's) over the
//! measured window: a gateway too fast for the generator and the subgraphs to saturate is
//! ranked without saturating it (Grafbase's and HttpArena's method). `share = 0.5` instead
//! measures the rate at the start (`probe.rs`): that share of the least any target served
//! in a short saturating probe, so the rate follows what this machine's generator,
//! subgraphs and gateways can carry. The race ranks answers per CPU-second (the inverse of
//! µs per request; higher is cheaper) with the throughput races' paired, sequential rule,
//! round by round. A trial that served less than [`HELD`] of the offered rate gives no cost
//! (a target that quietly serves less must not look cheap): its row is shown, not ranked.
//! Beside the cost: latency (queueing can lower the CPU per request while raising latency),
//! memory, the subgraphs' CPU per request and the softirq time of the target's CPUs, kernel
//! work no process counter may show.
mod probe;

use std::sync::{Arc, OnceLock};

use anyhow::Result;
use serde::Deserialize;

use super::overhead::median_of;
use crate::kind::{Kind, KindDef, ResolveCx, ScenarioCx, TrialCx};
use crate::measure::session::Session;
use crate::plan::Load;
use crate::results::{ScenarioResult, TargetResult, TargetStatus, TrialResult};
use crate::summary::efficiency::cpu_us_per_request;
pub use crate::summary::efficiency::{cost, Cost, Probe, Rate, HELD, PROBE, RATE, SOFTIRQ};
use crate::view::cells::{dash, est, not_installed};
use crate::view::Table;

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().chain(probe::table(s)).collect(),
    list: |v, _, _| match toml::Value::try_into::<Spec>(v.clone()) {
        Ok(Spec {
            rate: Some(r),
            share: None,
        }) => format!("open, {r} req/s, ranked by CPU per request"),
        Ok(Spec {
            rate: None,
            share: Some(x),
        }) => format!(
            "open, {:.0}% of the least a target serves (probed at the start), ranked by CPU per request",
            100.0 * x
        ),
        _ => "open, CPU per request at a fixed rate".into(),
    },
    not_in_k6: Some(
        "its figure is the target's CPU per request, which k6 does not read: export a scenario whose [load] is model = \"open\" at that rate for the load alone",
    ),
    ..KindDef::base("efficiency", resolve)
};

/// `[efficiency]` as the scenario file gives it: a rate, or a share of what the targets
/// serve.
#[derive(Deserialize, Debug, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct Spec {
    rate: Option<f64>,
    share: Option<f64>,
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let Some(spec): Option<Spec> = cx.spec("efficiency")? else {
        return Ok(None);
    };
    let tier = match (spec.rate, spec.share) {
        (Some(r), None) if r.is_finite() && r > 0.0 => Tier::Fixed(r),
        (Some(r), None) => {
            return Err(cx
                .bad(format!(
                    "[efficiency]: rate must be above zero, e.g. rate = 20 (got {r})"
                ))
                .into())
        }
        (None, Some(x)) if x > 0.0 && x < 1.0 => Tier::Share(x),
        (None, Some(x)) => {
            return Err(cx
                .bad(format!(
                    "[efficiency]: share must be above 0 and below 1, e.g. share = 0.5 (got {x}): the rate is that share of the least a target serves in the probe at the start"
                ))
                .into())
        }
        (Some(_), Some(_)) => {
            return Err(cx
                .bad("[efficiency]: give `rate` or `share`, not both".into())
                .into())
        }
        (None, None) => {
            return Err(cx
                .bad("[efficiency]: give `rate` (requests per second, e.g. rate = 20) or `share` (of the least a target serves, probed at the start, e.g. share = 0.5)".into())
                .into())
        }
    };
    Ok(Some(Arc::new(Efficiency {
        tier,
        measured: OnceLock::new(),
    })))
}

/// Where the rate comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tier {
    /// The file's rate, req/s.
    Fixed(f64),
    /// This share of the least a target served in the probe at the start.
    Share(f64),
}

/// Trials at a fixed arrival rate, ranked by CPU per answer.
#[derive(Debug)]
pub struct Efficiency {
    tier: Tier,
    /// The rate the probe measured (`Tier::Share`), once it has.
    measured: OnceLock<f64>,
}

impl Efficiency {
    /// The rate trials are sent: the file's, or the measured one once the probe has run.
    fn rate(&self) -> Option<f64> {
        match self.tier {
            Tier::Fixed(r) => Some(r),
            Tier::Share(_) => self.measured.get().copied(),
        }
    }

    /// What results record of the rate (0 while a measured one is not known).
    fn record(&self) -> Rate {
        Rate {
            rate: self.rate().unwrap_or(0.0),
            share: match self.tier {
                Tier::Fixed(_) => None,
                Tier::Share(x) => Some(x),
            },
        }
    }
}

impl Kind for Efficiency {
    fn loads(&self, load: &Load) -> Vec<Load> {
        match self.rate() {
            Some(r) => vec![load.at_rate(r)],
            // Before its probe, a measured tier runs the probe's closed load; its open load
            // at 1 req/s stands for the one to come: the plan checks its shape (pool,
            // timeout, headers), which the rate does not change.
            None => vec![probe::load(load), load.at_rate(1.0)],
        }
    }

    fn describe(&self, s: &mut ScenarioResult) {
        if let Some(r) = self.rate() {
            s.load = super::latency_at_rate::at_rate_info(s, r);
        }
        s.by_kind.set(&RATE, &self.record());
    }

    fn before_rounds(
        &self,
        cx: &mut ScenarioCx<'_>,
        sessions: &mut [Option<Session>],
        ops: &[gqlbench_engine::Operation],
    ) -> Result<()> {
        let Tier::Share(share) = self.tier else {
            return Ok(());
        };
        if let Some(least) = probe::run(cx, sessions, ops) {
            // Set once per scenario plan: a plan runs once.
            let _ = self.measured.set((share * least).round().max(1.0));
        }
        let s = &mut cx.results.scenarios[cx.si];
        self.describe(s);
        if self.rate().is_none() {
            probe::no_rate(cx, sessions);
        }
        Ok(())
    }

    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        // No trial runs without a rate: a measured tier whose probe found none stopped
        // every target (`probe::no_rate`).
        let load = cx.sp.load.at_rate(self.rate().unwrap_or(0.0));
        let target_cpus = cx
            .plan
            .isolation
            .target
            .as_ref()
            .map(|c| c.0.clone())
            .unwrap_or_default();
        let mut x = crate::kind::load::trial_of(cx, &load);
        if let Some(s) = x.noise.as_ref().and_then(|n| softirq_of(n, &target_cpus)) {
            x.by_kind.set(&SOFTIRQ, &s);
        }
        x
    }

    fn trial_line(&self, label: &str, t: &TrialResult) -> String {
        let base = crate::kind::load::trial_line(label, t);
        let rate = self.rate().unwrap_or(0.0);
        match cost(rate, t) {
            Some(c) => format!("{base}, {:.0} µs CPU per request", c.us_per_request),
            None => format!(
                "{base}, no cost figure: served {:.0}% of the offered rate",
                100.0 * t.load.throughput_rps / rate
            ),
        }
    }
}

/// Softirq time of `target` CPUs (summed, % of one CPU) from the window's per-CPU reading;
/// None when a CPU was not watched or unreadable, or none is named.
fn softirq_of(n: &crate::results::NoiseInfo, target: &[usize]) -> Option<f64> {
    let per = n.softirq_pct.as_ref()?;
    if target.is_empty() {
        return None;
    }
    target
        .iter()
        .map(|c| n.cpus.iter().position(|x| x == c).and_then(|i| per.get(i)))
        .sum::<Option<f64>>()
}

/// The report's table: per target, what it achieved of the rate and what each answer cost.
fn table(s: &ScenarioResult) -> Option<Table> {
    let r = s.by_kind.get(&RATE)?;
    // A measured rate its probe could not find: the probe's table says why.
    if r.rate <= 0.0 {
        return None;
    }
    let at = match r.share {
        Some(x) => format!(
            "{:.0} req/s, {:.0}% of the least a target served in the probe at the start",
            r.rate,
            100.0 * x
        ),
        None => format!("{} req/s", r.rate),
    };
    let rows = s
        .targets
        .iter()
        // Targets that never ran here (not installed, or skipped: a gateway that cannot
        // front the graph) are named under the main table, not given an empty row.
        .filter(|t| !not_installed(t) && t.status != TargetStatus::Skipped)
        .map(|t| row(r.rate, t))
        .collect();
    Some(Table {
        title: format!(
            "CPU per request at {at} (each target's own CPU counter over the window, per validated answer; geometric mean and interval over the trials that held the rate; ranked by the race on answers per CPU-second)"
        ),
        headers: [
            "target",
            "achieved / offered",
            "CPU µs per request",
            "requests per core-second",
            "mean / p50 / p99 ms",
            "RSS peak",
            "subgraphs' CPU µs per request",
            "softirq % of its CPUs",
            "trials with a cost",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

fn row(rate: f64, t: &TargetResult) -> Vec<String> {
    let trials: Vec<&TrialResult> = crate::summary::counted_trials(t)
        .into_iter()
        .filter(|x| x.valid)
        .collect();
    let costs: Vec<Cost> = trials.iter().filter_map(|x| cost(rate, x)).collect();
    let achieved = median_of(t, |x| Some(x.load.throughput_rps / rate));
    let us = crate::stats::estimate(&costs.iter().map(|c| c.us_per_request).collect::<Vec<_>>());
    let per_core =
        crate::stats::estimate(&costs.iter().map(|c| c.per_core_second).collect::<Vec<_>>());
    let whole = |x: f64| format!("{x:.0}");
    let sub = median_of(t, |x| {
        cpu_us_per_request(
            x.upstream.as_ref()?.subgraph_cpu_pct?,
            x.load.throughput_rps,
        )
    });
    let softirq = median_of(t, |x| x.by_kind.get(&SOFTIRQ));
    let sum = t.summary.as_ref();
    let ms = |us: f64| format!("{:.1}", us / 1000.0);
    vec![
        t.name.clone(),
        achieved.map_or_else(dash, |a| {
            let held = if a < HELD {
                " (below 0.98: not ranked)"
            } else {
                ""
            };
            format!("{a:.3}{held}")
        }),
        est(&us, whole),
        est(&per_core, whole),
        sum.map_or_else(dash, |x| {
            format!(
                "{} / {} / {}",
                ms(x.latency.mean_us),
                ms(x.latency.p50_us as f64),
                ms(x.latency.p99_us as f64)
            )
        }),
        sum.and_then(|x| x.rss_peak_bytes)
            .map_or_else(dash, crate::units::fmt_bytes),
        sub.map_or_else(dash, |x| format!("{x:.0}")),
        softirq.map_or_else(dash, |x| format!("{x:.1}")),
        format!("{} of {}", costs.len(), trials.len()),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_targets_softirq_is_read_from_its_own_cpus() {
        let n = crate::results::NoiseInfo {
            cpus: vec![0, 1],
            softirq_pct: Some(vec![12.0, 3.5]),
            ..Default::default()
        };
        assert_eq!(softirq_of(&n, &[1]), Some(3.5));
        assert_eq!(softirq_of(&n, &[0, 1]), Some(15.5));
        assert_eq!(softirq_of(&n, &[2]), None, "a CPU not watched");
        assert_eq!(softirq_of(&n, &[]), None);
    }
}
