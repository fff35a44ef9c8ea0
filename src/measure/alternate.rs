//! One measured run of two started targets at once (an A/B pair): two engine runs, one per
//! side, from two threads. Alternating, both runs share one slice clock and only the side
//! whose slice it is sends (ABBA blocks, the first `guard` of each slice not counted);
//! as a duet, both send all the time, each with half the load. Each side's vitals are
//! sampled over its window; the machine's noise once for the pair.
use std::sync::Arc;
use std::time::{Duration, Instant};

use gqlbench_engine::{Control, LiveStats, LoadResult, Slicing, Stop};

use super::noise;
use super::session::Session;
use super::trial::{watched_cpus, window, VITALS_INTERVAL};
use super::trial_figures::target_vitals;
use super::vitals::Sampler;
use crate::measure::RunContext;
use crate::plan::load::Load;
use crate::plan::RunPlan;
use crate::progress::Progress;
use crate::results::{GeneratorUsage, NoiseInfo, SaturationFlag, Vitals};

/// How the two sides share the pair's time.
#[derive(Debug, Clone, Copy)]
pub enum Sharing {
    /// Slices of `slice`, the first `guard` of each not counted; `seed` picks each block's
    /// order (ABBA or BAAB).
    Alternate {
        slice: Duration,
        guard: Duration,
        seed: u64,
    },
    /// Both at once, each with half the load.
    Duet,
}

/// What one side's run measured.
pub struct ArmRun {
    pub load: LoadResult,
    /// The engine refused or failed the run.
    pub error: Option<String>,
    pub vitals: Vitals,
    pub generator: GeneratorUsage,
    pub saturation: Vec<SaturationFlag>,
}

/// Both sides' runs of one pair, and the noise on the run's CPUs meanwhile.
pub struct PairRun {
    pub arms: [ArmRun; 2],
    pub noise: Option<NoiseInfo>,
}

/// What the pair's run is: the load (each side's, before a duet halves it), its warm-up
/// (inside the runs, alternating too) and measured window.
pub struct PairLoad<'a> {
    pub load: &'a Load,
    pub ops: &'a [gqlbench_engine::Operation],
    pub warmup: Duration,
    pub duration: Duration,
    pub sharing: Sharing,
}

/// Runs the pair: both sides' engine runs at once, side B's on a thread of its own, side
/// A's followed by the progress line.
pub fn run<K: ?Sized>(
    plan: &RunPlan<K>,
    ctx: &RunContext,
    sessions: [&Session; 2],
    pl: &PairLoad<'_>,
    progress: &mut Progress,
    label: &str,
) -> PairRun {
    let side_load = |load: &Load| match pl.sharing {
        Sharing::Alternate { .. } => load.clone(),
        Sharing::Duet if load.is_open() => load.at_rate(load_rate(load) / 2.0),
        Sharing::Duet => load.with_connections((load.connections() / 2).max(1)),
    };
    let load = side_load(pl.load);
    // One clock for both sides' slices, started before either run connects.
    let epoch = Instant::now();
    let plans: Vec<gqlbench_engine::LoadPlan> = (0..2)
        .map(|arm| {
            let mut p = sessions[arm].engine_plan(
                &load,
                pl.ops,
                plan.isolation.generator.as_ref(),
                pl.warmup,
                Stop {
                    duration: Some(pl.duration),
                    max_requests: None,
                    extend: None,
                },
            );
            if let Sharing::Alternate { slice, guard, seed } = pl.sharing {
                p.slicing = Some(Slicing {
                    epoch,
                    length: slice,
                    guard,
                    arm,
                    arms: 2,
                    seed,
                });
            }
            p
        })
        .collect();
    let controls: Vec<Control> = (0..2)
        .map(|_| Control {
            cancel: ctx.cancel.clone(),
            live: Arc::new(LiveStats::default()),
        })
        .collect();
    let samplers: Vec<Sampler> = (0..2)
        .map(|arm| {
            let (gate, end) = window(controls[arm].live.clone());
            let s = sessions[arm];
            Sampler::start(
                s.process.pid,
                s.cgroup.clone(),
                s.gc_file.clone(),
                VITALS_INTERVAL,
                gate,
                end,
            )
        })
        .collect();
    let watch = {
        let (gate, end) = window(controls[0].live.clone());
        noise::Watch::start(gate, end)
    };
    let secs = (pl.warmup + pl.duration).as_secs_f64();
    let (ra, rb) = std::thread::scope(|scope| {
        let (pb, cb) = (&plans[1], &controls[1]);
        let b = scope.spawn(move || gqlbench_engine::run(pb, cb));
        let a = progress.follow(label, secs, &controls[0].live, || {
            gqlbench_engine::run(&plans[0], &controls[0])
        });
        let b = b.join().unwrap_or_else(|_| {
            Err(gqlbench_engine::EngineError::Io(std::io::Error::other(
                "side B's load thread panicked",
            )))
        });
        (a, b)
    });
    let noise = watch.finish(&watched_cpus(plan));
    let mut samplers = samplers.into_iter();
    let mut arm = |outcome: Result<LoadResult, gqlbench_engine::EngineError>, i: usize| {
        let vitals = match samplers.next() {
            Some(s) => target_vitals(s, sessions[i]),
            None => Sampler::empty(),
        };
        let (load_result, error) = match outcome {
            Ok(r) => (r, None),
            Err(e) => (LoadResult::default(), Some(format!("engine: {e}"))),
        };
        let cores = crate::sys::cpus::generator_cores(
            plan.isolation.generator.as_ref(),
            load_result.threads,
        );
        let generator =
            GeneratorUsage::measure(load_result.generator_cpu_s, load_result.elapsed_s, cores);
        let saturation = crate::saturation::check(&load, &load_result, &generator);
        ArmRun {
            load: load_result,
            error,
            vitals,
            generator,
            saturation,
        }
    };
    let a = arm(ra, 0);
    let b = arm(rb, 1);
    PairRun {
        arms: [a, b],
        noise,
    }
}

/// An open model's rate (its highest stage).
fn load_rate(load: &Load) -> f64 {
    load.info().rate.unwrap_or(0.0)
}
