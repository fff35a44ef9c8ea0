//! The open-model rate sweep: find the highest arrival rate a target holds (p99 within the
//! limit, every request answered right). It runs in three phases:
//! - *probe* (optional): a short closed-loop run measures what the target can serve, so the
//!   sweep starts near it (half of it) instead of far below: fast targets reach their limit
//!   within the budget;
//! - *coarse*: the rate grows by a factor (or a step) until a step does not hold;
//! - *refine* (optional): the rates that held and failed are bisected (geometrically) until
//!   they are within the resolution, so the answer does not depend on where the coarse
//!   steps happened to fall.
//!
//! Each step's verdict says whose limit it was. A step the *target* lost (a failed
//! response, p99 over the limit with requests that left on time) ends the coarse phase. A
//! step the *generator* lost (requests that could not be sent, or a p99 over the limit
//! that only the send lag explains) is repeated once, and if it is lost again the sweep
//! stops and says so: never a target's limit. Send lag alone never loses a step whose
//! p99, lag included, is within the limit: the target held that rate.
mod report;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use serde::Deserialize;

mod judge;

pub use judge::{judge_step, StepVerdict};

use crate::catalog::humantime_serde_compat as hd;
use crate::kind::load::conclude;
use crate::kind::{Kind, KindDef, ResolveCx, TrialCx};
use crate::measure::trial::Measured;
use crate::results::{now_rfc3339, SaturationFlag, ScenarioResult, SweepStep, TrialResult};
use crate::view::Table;
use report::*;

pub const DEF: KindDef = KindDef {
    tables,
    html,
    list: |v, _, _| {
        format!(
            "open, rate sweep from {} req/s",
            v.get("start_rate")
                .and_then(|r| r.as_float().or(r.as_integer().map(|i| i as f64)))
                .unwrap_or(0.0)
        )
    },
    not_in_k6: Some(
        "a rate sweep picks its next rate from how the last one went (adaptive); k6 runs a fixed schedule: export the load scenario at one rate instead",
    ),
    ..KindDef::base("sweep", resolve)
};

/// `[sweep]`: the rates to try and when a step holds.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepSpec {
    pub start_rate: f64,
    /// Added to the rate after each step that held ...
    #[serde(default)]
    pub step: f64,
    /// ... or, when set, the rate is multiplied by this (e.g. 1.5): a few steps then cover
    /// gateways that differ by orders of magnitude.
    pub factor: Option<f64>,
    pub max_rate: f64,
    #[serde(deserialize_with = "hd::deserialize")]
    pub step_duration: Duration,
    #[serde(deserialize_with = "hd::deserialize")]
    pub p99_limit: Duration,
    /// Start from a short closed-loop probe of the target (half of what it serves), when
    /// that is above `start_rate`.
    #[serde(default)]
    pub probe: bool,
    /// After the first step the target loses, bisect between it and the highest rate held
    /// until they are within this fraction (e.g. 0.05).
    #[serde(default)]
    pub resolution: Option<f64>,
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let Some(s): Option<SweepSpec> = cx.spec("sweep")? else {
        return Ok(None);
    };
    let grows = s.factor.map(|f| f > 1.0).unwrap_or(s.step > 0.0);
    if !(s.start_rate > 0.0 && grows && s.max_rate >= s.start_rate) {
        return Err(cx
            .bad(format!(
                "[sweep]: need start_rate > 0, step > 0 (or factor > 1) and max_rate >= start_rate (got start_rate {}, step {}, factor {}, max_rate {})",
                s.start_rate,
                s.step,
                s.factor.map_or("none".into(), |f| f.to_string()),
                s.max_rate
            ))
            .into());
    }
    if s.resolution.is_some_and(|r| !(r > 0.0 && r < 1.0)) {
        return Err(cx
            .bad(format!(
                "[sweep] resolution: a fraction between 0 and 1, e.g. 0.05 (got {})",
                s.resolution.unwrap_or_default()
            ))
            .into());
    }
    Ok(Some(Arc::new(RateSweep(s))))
}

/// The open-model rate sweep of a scenario.
#[derive(Debug)]
pub struct RateSweep(pub SweepSpec);

/// Measured steps every sweep makes whatever the run's time budget: with the probe, the
/// least that says where a target stands.
const MIN_STEPS: usize = 2;

impl RateSweep {
    /// What one step costs beyond its window: connecting, and the drain of requests still
    /// in flight at its end (bounded by the p99 limit in a step that holds).
    fn step_secs(&self) -> f64 {
        (self.0.step_duration + self.0.p99_limit).as_secs_f64() + 0.5
    }
}

impl Kind for RateSweep {
    fn adaptive_rounds(&self) -> bool {
        false
    }

    /// The probe, the warm-up and the steps it always makes: the least a sweep takes; the
    /// steps beyond are added to the progress as they start.
    fn trial_secs(&self, sp: &crate::kind::ScenarioPlan) -> f64 {
        let probe = if self.0.probe {
            self.0.step_duration.min(PROBE_MAX).as_secs_f64()
        } else {
            0.0
        };
        sp.warmup.as_secs_f64() + probe + MIN_STEPS as f64 * self.step_secs()
    }

    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        let started_at = now_rfc3339();
        let out = run(cx, self);
        let mut m = out.measured;
        // The generator ended the sweep: the row is flagged, never called the target's.
        let generator_stop = out.generator_stop;
        m.saturation.extend(generator_stop.clone());
        m.saturation.extend(out.cut);
        let rates: Vec<&SweepStep> = out.steps.iter().filter(|x| x.rate.is_some()).collect();
        if generator_stop.is_none() && !rates.iter().any(|x| x.held) {
            if let Some(first) = rates.first() {
                m.problems.push(format!(
                    "no step of the sweep held: at {} req/s, {} (lower [sweep] start_rate)",
                    first.rate.unwrap_or(0.0),
                    first.reason.as_deref().unwrap_or("it was lost")
                ));
            }
        }
        conclude(cx, started_at, m, Some(out.steps))
    }
}

/// What a sweep found, for the trial.
struct SweepOutcome {
    /// Figures of the highest step that held (or of the first step, when none did).
    measured: Measured,
    pub steps: Vec<SweepStep>,
    /// Set when the generator, not the target, ended the sweep.
    pub generator_stop: Option<SaturationFlag>,
    /// Set when the run's time budget ended the sweep before it had found the limit to
    /// its resolution.
    pub cut: Option<SaturationFlag>,
}

/// The longest the probe runs.
const PROBE_MAX: Duration = Duration::from_secs(3);

/// Closed-loop connections of the probe: enough to keep a server busy, few enough that the
/// probe measures the target and not its queue.
const PROBE_CONNECTIONS: u32 = 32;

struct Sweeper<'a> {
    sw: &'a SweepSpec,
    steps: Vec<SweepStep>,
    best: Option<(f64, Measured)>,
    first: Option<Measured>,
    /// The warm-up runs once, before the first measured step.
    warmed: bool,
}

impl Sweeper<'_> {
    fn warmup(&mut self, cx: &TrialCx<'_>) -> Duration {
        if std::mem::replace(&mut self.warmed, true) {
            Duration::ZERO
        } else {
            cx.sp.warmup
        }
    }

    /// Measures one rate (repeated once when the generator lost it).
    fn step(&mut self, cx: &mut TrialCx<'_>, rate: f64, phase: &str) -> StepVerdict {
        let load = cx.sp.load.at_rate(rate);
        let mut tries = 0;
        loop {
            tries += 1;
            let warmup = self.warmup(cx);
            let label = format!("{} @ {rate:.0} req/s", cx.label);
            let m = cx.measure(&load, warmup, self.sw.step_duration, &label);
            let v = if m.load.interrupted {
                StepVerdict::Target("interrupted".into())
            } else {
                judge_step(&m.load, &m.saturation, &m.problems, self.sw.p99_limit)
            };
            self.steps.push(SweepStep {
                rate: Some(rate),
                connections: None,
                achieved_rps: m.load.throughput_rps,
                p50_us: m.load.latency.p50_us,
                p99_us: m.load.latency.p99_us,
                failed: m.load.failed,
                flags: m.saturation.iter().map(|f| f.kind.clone()).collect(),
                held: v == StepVerdict::Held,
                phase: Some(if tries > 1 { "repeat" } else { phase }.into()),
                verdict: Some(v.name().into()),
                reason: v.reason(),
            });
            match &v {
                StepVerdict::Held if self.best.as_ref().is_none_or(|(r, _)| rate > *r) => {
                    self.best = Some((rate, m));
                }
                StepVerdict::Held => {}
                _ if self.first.is_none() => self.first = Some(m),
                _ => {}
            }
            let again = matches!(v, StepVerdict::Generator(_))
                && tries < 2
                && !cx.ctx.cancelled()
                && cx.sess.process.exited().is_none();
            if !again {
                return v;
            }
        }
    }

    /// A short closed-loop run: what the target serves with the probe's connections.
    fn probe(&mut self, cx: &mut TrialCx<'_>) -> Option<f64> {
        let load = cx.sp.load.with_connections(PROBE_CONNECTIONS);
        let warmup = self.warmup(cx);
        let label = format!("{} probe", cx.label);
        let m = cx.measure(&load, warmup, self.sw.step_duration.min(PROBE_MAX), &label);
        let ok = m.load.failed == 0 && m.problems.is_empty() && m.load.ok > 0;
        self.steps.push(SweepStep {
            rate: None,
            connections: Some(PROBE_CONNECTIONS),
            achieved_rps: m.load.throughput_rps,
            p50_us: m.load.latency.p50_us,
            p99_us: m.load.latency.p99_us,
            failed: m.load.failed,
            flags: m.saturation.iter().map(|f| f.kind.clone()).collect(),
            held: ok,
            phase: Some("probe".into()),
            verdict: None,
            reason: (!ok).then(|| "the probe had failures; the sweep starts at start_rate".into()),
        });
        ok.then_some(m.load.ok_rps)
    }
}

fn alive(cx: &mut TrialCx<'_>) -> bool {
    cx.sess.process.exited().is_none()
}

/// Whether the run's time budget leaves room for one more step after the first
/// [`MIN_STEPS`]; if not, what it cut, as the trial's caveat.
fn room(
    cx: &mut TrialCx<'_>,
    kind: &RateSweep,
    s: &Sweeper<'_>,
    what: &str,
) -> Result<(), SaturationFlag> {
    let measured = s.steps.iter().filter(|x| x.rate.is_some()).count();
    if measured < MIN_STEPS {
        return Ok(());
    }
    if crate::measure::budget::fits(cx.deadline, kind.step_secs()) {
        // The progress counted the first steps only.
        cx.progress.extend(kind.step_secs());
        return Ok(());
    }
    Err(SaturationFlag {
        kind: crate::results::FlagKind::Budget,
        detail: format!(
            "the run's time budget ended the sweep after {measured} steps, before {what}: {}",
            match s.best.as_ref() {
                Some((r, _)) => format!(
                    "the highest rate held ({r:.0} req/s) is a lower bound of the target's limit"
                ),
                None => "no step held".into(),
            }
        ),
    })
}

/// Runs the sweep against a started target.
fn run(cx: &mut TrialCx<'_>, kind: &RateSweep) -> SweepOutcome {
    let sw = &kind.0;
    let mut s = Sweeper {
        sw,
        steps: Vec::new(),
        best: None,
        first: None,
        warmed: false,
    };
    let mut rate = sw.start_rate;
    if sw.probe {
        if let Some(capacity) = s.probe(cx) {
            rate = rate.max((capacity * 0.5).round()).min(sw.max_rate);
        }
    }
    let mut failed_at: Option<f64> = None;
    let mut generator_stop = None;
    let mut cut = None;
    // Coarse: grow until a step is lost.
    while rate <= sw.max_rate + 1e-9 && !cx.ctx.cancelled() && alive(cx) {
        if let Err(flag) = room(cx, kind, &s, "a step was lost") {
            cut = Some(flag);
            break;
        }
        match s.step(cx, rate, "coarse") {
            StepVerdict::Held => {}
            StepVerdict::Target(_) => {
                failed_at = Some(rate);
                break;
            }
            StepVerdict::Generator(why) => {
                generator_stop = Some((rate, why));
                break;
            }
        }
        rate = match sw.factor {
            Some(f) => (rate * f).round().max(rate + 1.0),
            None => rate + sw.step,
        };
    }
    // Refine: bisect between the highest rate held and the lowest the target lost.
    if let (Some(res), Some(mut hi)) = (sw.resolution, failed_at) {
        while let Some(lo) = s.best.as_ref().map(|(r, _)| *r) {
            if hi / lo <= 1.0 + res + 1e-9 || cx.ctx.cancelled() || !alive(cx) {
                break;
            }
            let mid = (lo * hi).sqrt().round();
            if mid <= lo || mid >= hi {
                break;
            }
            if let Err(flag) = room(
                cx,
                kind,
                &s,
                &format!("the limit was bisected to within {:.0}%", res * 100.0),
            ) {
                cut = Some(flag);
                break;
            }
            match s.step(cx, mid, "refine") {
                StepVerdict::Held => {}
                StepVerdict::Target(_) => hi = mid,
                StepVerdict::Generator(why) => {
                    generator_stop = Some((mid, why));
                    break;
                }
            }
        }
    }
    let generator_stop = generator_stop.map(|(rate, why)| SaturationFlag {
        kind: crate::results::FlagKind::SweepGenerator,
        detail: format!(
            "the sweep stopped at {rate:.0} req/s because the load generator could not deliver it (twice): {why}; the highest rate held ({}) is a lower bound of the target's, not its limit",
            s.best
                .as_ref()
                .map_or("none".into(), |(r, _)| format!("{r:.0} req/s"))
        ),
    });
    let measured = s
        .best
        .map(|(_, m)| m)
        .or(s.first)
        .unwrap_or_else(Measured::no_step);
    SweepOutcome {
        measured,
        steps: s.steps,
        generator_stop,
        cut,
    }
}
