//! Measuring a started target: one engine run (its warm-up, then its measured window)
//! with the target's vitals, its subgraphs' and its variant's helpers' usage, the
//! machine's noise and the generator's CPU sampled alongside, then judged for saturation
//! and problems (`measure`, given a `MeasureCx`): a `Measured`. Its steps here are the
//! warm-up and the measured run with its samplers; what its figures make is in
//! `trial_figures`, and which req/s it gives (the count, or the requests' timing when the
//! count is coarse) in `throughput`. The kinds (`src/kinds/`, through `kind::TrialCx`) decide how many runs
//! a trial is and at which load.
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use gqlbench_engine::{Control, LiveStats, LoadResult, Phase, Stop};

use super::noise;
use super::session::Session;
use super::trial_figures::{
    session_problems, subgraph_flags, target_vitals, unsteady_flag, upstream,
};
use super::variant_watch::VariantWatch;
use super::vitals::{self, Condition, Sampler};
use crate::measure::RunContext;
use crate::plan::load::Load;
use crate::plan::RunPlan;
use crate::progress::Progress;
use crate::results::*;
use crate::saturation;

pub(super) const VITALS_INTERVAL: Duration = Duration::from_millis(200);

/// The longest a measured window may be extended to for a slow target: four times the
/// planned window, at least 10 s more, at most 2 minutes more.
pub fn longest_window(duration: Duration) -> Duration {
    (duration * 4)
        .max(duration + Duration::from_secs(10))
        .min(duration + Duration::from_secs(120))
}

/// Subgraph CPU above this share of its cores means it may limit the gateway.
pub const SUBGRAPH_CPU_LIMIT: f64 = 0.80;

/// How a measured run is warmed up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Warmup {
    /// This long, inside the measured run (the open model's is always fixed: its
    /// throughput is the rate, so there is no steadiness to wait for).
    Fixed(Duration),
    /// A separate run until the throughput is steady (`warmup::until_steady`), at least
    /// `min`, at most `max`; the measured run then starts at once. `own`: the target's own
    /// warm-up (its target.toml's), not the scenario's, as the results say.
    UntilSteady {
        min: Duration,
        max: Duration,
        own: bool,
    },
}

pub struct Measured {
    pub load: LoadResult,
    pub vitals: Vitals,
    pub upstream: Option<UpstreamUsage>,
    pub generator: GeneratorUsage,
    pub saturation: Vec<SaturationFlag>,
    pub problems: Vec<String>,
    pub warmup: Option<WarmupInfo>,
    pub noise: Option<NoiseInfo>,
    pub tracing: Option<TracingUsage>,
}

impl Measured {
    /// A sweep that ran no step (cancelled before the first).
    pub fn no_step() -> Measured {
        Measured {
            load: LoadResult::default(),
            vitals: vitals::Sampler::empty(),
            upstream: None,
            generator: GeneratorUsage::default(),
            saturation: Vec::new(),
            problems: vec!["the sweep ran no step".into()],
            warmup: None,
            noise: None,
            tracing: None,
        }
    }
}

/// The CPUs a run uses (and its sentinels watch): the generator's and the targets', or
/// every CPU it may use when nothing is pinned, as its CPU lock counts them.
pub fn watched_cpus<K: ?Sized>(plan: &RunPlan<K>) -> Vec<usize> {
    crate::sys::lock::cpus_used(&plan.isolation)
}

/// What one engine run against a started target is given besides its load: the run's plan
/// and context, the session, the scenario's operations in the engine's form, and where
/// progress is shown.
pub struct MeasureCx<'a, K: ?Sized> {
    pub plan: &'a RunPlan<K>,
    pub ctx: &'a RunContext,
    pub sess: &'a mut Session,
    pub ops: &'a [gqlbench_engine::Operation],
    pub progress: &'a mut Progress,
}

fn in_window(live: &gqlbench_engine::LiveStats) -> bool {
    matches!(live.phase(), Phase::Measure | Phase::Done)
}

/// The gate and end of a sampler over the measured window only: not the warm-up before it,
/// nor the drain of in-flight requests after it (up to the request timeout). The window's
/// length is read as it goes: the engine may extend it.
pub(super) fn window(live: Arc<LiveStats>) -> (Condition, Condition) {
    let l2 = live.clone();
    (
        Box::new(move || in_window(&live)),
        Box::new(move || {
            l2.phase() == Phase::Done || (l2.window_ms() > 0 && l2.elapsed_ms() >= l2.window_ms())
        }),
    )
}

/// One engine run (warm-up + window) with everything sampled alongside.
pub fn measure<K: ?Sized>(
    mut cx: MeasureCx<'_, K>,
    load: &Load,
    warmup: Warmup,
    duration: Duration,
    label: &str,
) -> Measured {
    // The warm-up first: one until steady is a run of its own, and the measured run then
    // has none.
    let (warmup, warmup_info) = warm_up(&cx, load, warmup, label);
    // The measured run, its samplers started before it and finished after it.
    let (outcome, watches) = measured_run(&mut cx, load, warmup, duration, label);
    let vitals = target_vitals(watches.vitals, cx.sess);
    let noise = watches.noise.finish(&watched_cpus(cx.plan));
    let mut problems = Vec::new();
    let mut result = match outcome {
        Ok(r) => r,
        Err(e) => {
            problems.push(format!("engine: {e}"));
            LoadResult::default()
        }
    };
    // A coarse count gives way to the requests' own timing (a slow target's few requests
    // per connection), and the figure's step is kept for the row's interval.
    super::throughput::choose(&mut result, false);
    // Judged once the run's figures are in: the generator's CPU and the load's own limits.
    let cores =
        crate::sys::cpus::generator_cores(cx.plan.isolation.generator.as_ref(), result.threads);
    let generator = GeneratorUsage::measure(result.generator_cpu_s, result.elapsed_s, cores);
    let mut saturation = saturation::check(load, &result, &generator);
    // The counters were read before the engine run and after it, so they count what every
    // request it sent caused: priming, warm-up, the window and requests never answered.
    let client = result.sent();
    let mut variant = watches
        .variant
        .finish(cx.sess, client, &load.headers, &|| cx.ctx.cancelled());
    problems.append(&mut variant.problems);
    // The subgraphs' figures after the variant's, whose trace flush they wait for.
    let upstream = upstream(
        &cx,
        watches.subgraphs,
        watches.counters_before,
        client,
        &mut variant,
        &mut problems,
    );
    if let Some(u) = &upstream {
        saturation.extend(subgraph_flags(u, &generator, &result));
    }
    problems.extend(session_problems(cx.sess, watches.cap_hits_before));
    saturation.extend(unsteady_flag(warmup_info.as_ref()));
    Measured {
        tracing: variant.tracing,
        warmup: warmup_info,
        noise,
        load: result,
        vitals,
        upstream,
        generator,
        saturation,
        problems,
    }
}

/// The warm-up the measured run includes, and the separate one until steady when there was
/// one (a closed model's: an open model's throughput is its rate, nothing to wait for).
fn warm_up<K: ?Sized>(
    cx: &MeasureCx<'_, K>,
    load: &Load,
    warmup: Warmup,
    label: &str,
) -> (Duration, Option<WarmupInfo>) {
    match warmup {
        Warmup::UntilSteady { min, max, own } if !load.is_open() => {
            let info = super::warmup::until_steady(cx, load, min, max, own, label);
            (Duration::ZERO, Some(info))
        }
        Warmup::UntilSteady { min, .. } => (min, None),
        Warmup::Fixed(d) => (d, None),
    }
}

/// What is sampled alongside the measured run, started just before it.
struct Watches {
    /// The target's vitals.
    vitals: Sampler,
    /// The subgraphs' vitals.
    subgraphs: Option<Sampler>,
    variant: VariantWatch,
    noise: noise::Watch,
    /// The target's cgroup's memory cap hits and the subgraphs' calls, before the run.
    cap_hits_before: Option<u64>,
    counters_before: Option<BTreeMap<String, u64>>,
}

impl Watches {
    fn start(sess: &Session, live: &Arc<LiveStats>) -> Watches {
        let (gate, end) = window(live.clone());
        let vitals = Sampler::start(
            sess.process.pid,
            sess.cgroup.clone(),
            sess.gc_file.clone(),
            VITALS_INTERVAL,
            gate,
            end,
        );
        let subgraphs = sess.subgraphs.as_ref().map(|s| {
            let (gate, end) = window(live.clone());
            Sampler::start(s.process.pid, None, None, VITALS_INTERVAL, gate, end)
        });
        let variant = VariantWatch::start(sess, |pid| {
            let (gate, end) = window(live.clone());
            Sampler::start(pid, None, None, VITALS_INTERVAL, gate, end)
        });
        let noise = {
            let (gate, end) = window(live.clone());
            noise::Watch::start(gate, end)
        };
        Watches {
            vitals,
            subgraphs,
            variant,
            noise,
            cap_hits_before: sess.cgroup.as_ref().and_then(|c| c.memory_cap_hits()),
            counters_before: sess.subgraphs.as_ref().and_then(|s| s.counters()),
        }
    }
}

/// The measured run: `warmup` (inside it) then the window, with progress followed and
/// everything watched alongside.
fn measured_run<K: ?Sized>(
    cx: &mut MeasureCx<'_, K>,
    load: &Load,
    warmup: Duration,
    duration: Duration,
    label: &str,
) -> (Result<LoadResult, gqlbench_engine::EngineError>, Watches) {
    let control = Control {
        cancel: cx.ctx.cancel.clone(),
        live: Default::default(),
    };
    let eplan = cx.sess.engine_plan(
        load,
        cx.ops,
        cx.plan.isolation.generator.as_ref(),
        warmup,
        Stop {
            duration: Some(duration),
            max_requests: None,
            // A target slower than the window gets a longer one, bounded and reported
            // (`window_extended_s`), rather than a row with nothing answered in it.
            extend: (!load.is_open()).then(|| gqlbench_engine::Extend {
                min_per_connection: 1,
                max_duration: longest_window(duration),
            }),
        },
    );
    let watches = Watches::start(cx.sess, &control.live);
    let secs = (warmup + duration).as_secs_f64();
    let outcome = cx.progress.follow(label, secs, &control.live, || {
        gqlbench_engine::run(&eplan, &control)
    });
    (outcome, watches)
}
