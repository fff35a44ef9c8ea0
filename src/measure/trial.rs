//! Measuring a started target: one engine run (warm-up and measured window) with the
//! target's vitals, its subgraphs' usage, the generator's CPU and the saturation guard
//! sampled alongside (`measure`), and the trial those figures make (`conclude`). The kinds
//! (`src/kinds/`) decide how many runs a trial is and at which load.
use std::collections::BTreeMap;
use std::time::Duration;

use gqlbench_engine::{Control, LoadResult, Phase, Stop};

use super::session::Session;
use super::vitals::{self, Condition, Sampler};
use crate::measure::RunContext;
use crate::plan::load::Load;
use crate::plan::RunPlan;
use crate::progress::Progress;
use crate::results::*;
use crate::saturation;

const VITALS_INTERVAL: Duration = Duration::from_millis(200);

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
    /// A separate run until the throughput is steady (`runner::warmup`), at least `min`,
    /// at most `max`; the measured run then starts at once.
    UntilSteady { min: Duration, max: Duration },
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

fn in_window(live: &gqlbench_engine::LiveStats) -> bool {
    matches!(live.phase(), Phase::Measure | Phase::Done)
}

/// One engine run (warm-up + window) with everything sampled alongside.
#[allow(clippy::too_many_arguments)]
pub fn measure<K: ?Sized>(
    plan: &RunPlan<K>,
    ctx: &RunContext,
    sess: &mut Session,
    load: &Load,
    ops: &[gqlbench_engine::Operation],
    warmup: Warmup,
    duration: Duration,
    label: &str,
    progress: &mut Progress,
) -> Measured {
    let (warmup, warmup_info) = match warmup {
        Warmup::UntilSteady { min, max } if !load.is_open() => {
            let info =
                super::warmup::until_steady(plan, ctx, sess, load, ops, min, max, label, progress);
            (Duration::ZERO, Some(info))
        }
        Warmup::UntilSteady { min, .. } => (min, None),
        Warmup::Fixed(d) => (d, None),
    };
    let control = Control {
        cancel: ctx.cancel.clone(),
        live: Default::default(),
    };
    let eplan = sess.engine_plan(
        load,
        ops,
        plan.isolation.generator.as_ref(),
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
    let live = control.live.clone();
    // Vitals cover the measured window only: not the warm-up before it, nor the drain of
    // in-flight requests after it (up to the request timeout). The window's length is read
    // as it goes: the engine may extend it.
    let window = |live: std::sync::Arc<gqlbench_engine::LiveStats>| -> (Condition, Condition) {
        let l2 = live.clone();
        (
            Box::new(move || in_window(&live)),
            Box::new(move || {
                l2.phase() == Phase::Done
                    || (l2.window_ms() > 0 && l2.elapsed_ms() >= l2.window_ms())
            }),
        )
    };
    let (gate, end) = window(live);
    let sampler = Sampler::start(
        sess.process.pid,
        sess.cgroup.clone(),
        sess.gc_file.clone(),
        VITALS_INTERVAL,
        gate,
        end,
    );
    let sub_sampler = sess.subgraphs.as_ref().map(|s| {
        let (gate, end) = window(control.live.clone());
        Sampler::start(s.process.pid, None, None, VITALS_INTERVAL, gate, end)
    });
    let variant = super::variant_watch::VariantWatch::start(sess, |pid| {
        let (gate, end) = window(control.live.clone());
        Sampler::start(pid, None, None, VITALS_INTERVAL, gate, end)
    });
    let noise_watch = {
        let (gate, end) = window(control.live.clone());
        super::noise::Watch::start(gate, end)
    };
    let cap_hits_before = sess.cgroup.as_ref().and_then(|c| c.memory_cap_hits());
    let counters_before = sess.subgraphs.as_ref().and_then(|s| s.counters());
    let secs = (warmup + duration).as_secs_f64();
    let outcome = progress.follow(label, secs, &control.live, || {
        gqlbench_engine::run(&eplan, &control)
    });
    let mut vitals = sampler.finish();
    let noise = noise_watch.finish(&watched_cpus(plan));
    vitals.verified_cpus = sess.verified_cpus.clone();
    // The peak is the highest RSS seen since the target was ready, its idle sample
    // included: a server whose collector shrinks it under load still peaked where it idled.
    // A window in which nothing was read stays unmeasured: the idle figure is not its peak.
    if let (Some(peak), Some(idle)) = (vitals.rss_peak_bytes, sess.rss_idle_bytes) {
        vitals.rss_peak_bytes = Some(peak.max(idle));
    }
    let mut problems = Vec::new();
    let result = match outcome {
        Ok(r) => r,
        Err(e) => {
            problems.push(format!("engine: {e}"));
            LoadResult::default()
        }
    };
    let cores =
        crate::sys::cpus::generator_cores(plan.isolation.generator.as_ref(), result.threads);
    let generator = GeneratorUsage::measure(result.generator_cpu_s, result.elapsed_s, cores);
    let mut saturation = saturation::check(load, &result, &generator);
    // The counters were read before the engine run and after it, so they count what every
    // request it sent caused: priming, warm-up, the window and requests never answered.
    let client = result.sent();
    let mut variant = variant.finish(sess, client, &load.headers, &|| ctx.cancelled());
    problems.append(&mut variant.problems);
    let upstream = match (sess.subgraphs.as_ref(), sub_sampler) {
        (Some(s), Some(sampler)) => {
            let sv = sampler.finish();
            let after = s.counters();
            let calls: BTreeMap<String, u64> = match (&counters_before, &after) {
                (Some(a), Some(b)) => b
                    .iter()
                    .map(|(k, v)| (k.clone(), v.saturating_sub(a.get(k).copied().unwrap_or(0))))
                    .collect(),
                _ => BTreeMap::new(),
            };
            if after.is_none() {
                problems.push(format!(
                    "subgraph counters unreadable: did the subgraphs die? (their log: {})",
                    s.process.log.display()
                ));
            }
            let total: u64 = calls.values().sum();
            let sub_cores = plan
                .isolation
                .generator
                .as_ref()
                .map(|c| c.0.len())
                .unwrap_or(1);
            let u = UpstreamUsage {
                calls_per_request: if client > 0 {
                    total as f64 / client as f64
                } else {
                    0.0
                },
                calls,
                subgraph_cpu_pct: sv.cpu_avg_pct,
                subgraph_cores: sub_cores,
                subgraph_rss_peak_bytes: sv.rss_peak_bytes,
                headers: std::mem::take(&mut variant.headers),
                coprocessor_calls_per_request: variant.coprocessor_calls_per_request,
                coprocessor_cpu_pct: variant.coprocessor_cpu_pct,
            };
            // Subgraph CPU that could not be read raises no flag (and is shown unmeasured).
            if let Some(sub_cpu) = u.subgraph_cpu_pct {
                // The subgraphs share the generator's CPUs (the target has the others): their
                // CPU and the generator's together must leave headroom too.
                let shared = (generator.cpu_s + sub_cpu / 100.0 * result.elapsed_s)
                    / (result.elapsed_s.max(1e-9) * sub_cores as f64);
                if shared > saturation::GENERATOR_CPU_LIMIT
                    && sub_cpu <= SUBGRAPH_CPU_LIMIT * 100.0 * sub_cores as f64
                {
                    saturation.push(SaturationFlag {
                        kind: "shared_cpu".into(),
                        detail: format!(
                            "the generator and the subgraphs together used {:.0}% of the {} CPU(s) they share",
                            shared * 100.0,
                            sub_cores
                        ),
                    });
                }
                if sub_cpu > SUBGRAPH_CPU_LIMIT * 100.0 * sub_cores as f64 {
                    saturation.push(SaturationFlag {
                        kind: "subgraph_cpu".into(),
                        detail: format!(
                            "the subgraphs used {:.0}% CPU of their {} core(s): they may limit the gateway",
                            sub_cpu, sub_cores
                        ),
                    });
                }
            }
            Some(u)
        }
        _ => None,
    };
    if let Some(s) = sess.subgraphs.as_mut() {
        if let Some(st) = s.process.exited() {
            problems.push(format!("the subgraphs exited ({st})"));
        }
    }
    if let (Some(before), Some(after)) = (
        cap_hits_before,
        sess.cgroup.as_ref().and_then(|c| c.memory_cap_hits()),
    ) {
        if after > before {
            problems.push(format!(
                "memory cap reached {} times during the trial (cgroup failcnt)",
                after - before
            ));
        }
    }
    if let Some(w) = warmup_info.as_ref().filter(|w| !w.steady) {
        saturation.push(SaturationFlag {
            kind: "unsteady".into(),
            detail: format!(
                "the throughput did not settle within the warm-up's {:.0} s (last second: {}): the window may still include warm-up",
                w.max_s,
                w.rps
                    .iter()
                    .rev()
                    .take(super::warmup::WINDOW)
                    .rev()
                    .map(|x| format!("{x:.0}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    }
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
