//! One measured run of several started targets at once (the two sides of an A/B pair, or
//! the targets of a suite's round): one engine run per target (an arm), each from a thread
//! of its own. Alternating, the runs share one slice clock and only the arm whose slice it
//! is sends (balanced blocks: ABBA for two arms, a rotation and its mirror for more; the
//! first `guard` of each slice not counted); as a duet, all send all the time, each with
//! its share of the load. Each arm's vitals are sampled over its window, and alternating,
//! its CPU and its generator's are figures over its own share of the window; the machine's
//! noise is sampled once for the run.
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
use crate::results::{now_rfc3339, GeneratorUsage, NoiseInfo, SaturationFlag, TrialResult, Vitals};

/// Time the arms of an alternating run get to open and prime their connections before the
/// shared clock starts (a run still connecting then starts late, its first block cut).
const CONNECT_ALLOWANCE: Duration = Duration::from_millis(600);

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

/// What one arm's run measured.
pub struct ArmRun {
    pub load: LoadResult,
    /// The engine refused or failed the run.
    pub error: Option<String>,
    pub vitals: Vitals,
    pub generator: GeneratorUsage,
    pub saturation: Vec<SaturationFlag>,
}

/// Every arm's run, and the noise on the run's CPUs meanwhile.
pub struct SharedRun {
    pub arms: Vec<ArmRun>,
    pub noise: Option<NoiseInfo>,
}

/// What the shared run is: the load (each arm's, before a duet divides it), its warm-up
/// (inside the runs, alternating too) and measured window, both in wall time.
pub struct SharedLoad<'a> {
    pub load: &'a Load,
    pub ops: &'a [gqlbench_engine::Operation],
    pub warmup: Duration,
    pub duration: Duration,
    pub sharing: Sharing,
}

/// Runs every arm's engine run at once: arm 0's followed by the progress line, the others'
/// on threads of their own.
pub fn run<K: ?Sized>(
    plan: &RunPlan<K>,
    ctx: &RunContext,
    sessions: &[&Session],
    sl: &SharedLoad<'_>,
    progress: &mut Progress,
    label: &str,
) -> SharedRun {
    let n = sessions.len();
    let load = match sl.sharing {
        Sharing::Alternate { .. } => sl.load.clone(),
        Sharing::Duet if sl.load.is_open() => sl.load.at_rate(load_rate(sl.load) / n as f64),
        Sharing::Duet => sl
            .load
            .with_connections((sl.load.connections() / n as u32).max(1)),
    };
    let plans = engine_plans(plan, sessions, sl, &load);
    let controls: Vec<Control> = (0..n)
        .map(|_| Control {
            cancel: ctx.cancel.clone(),
            live: Arc::new(LiveStats::default()),
        })
        .collect();
    let samplers: Vec<Sampler> = sessions
        .iter()
        .zip(&controls)
        .map(|(s, c)| {
            let (gate, end) = window(c.live.clone());
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
    let secs = (sl.warmup + sl.duration).as_secs_f64();
    let outcomes: Vec<Result<LoadResult, gqlbench_engine::EngineError>> =
        std::thread::scope(|scope| {
            let others: Vec<_> = plans
                .iter()
                .zip(&controls)
                .skip(1)
                .map(|(p, c)| scope.spawn(move || gqlbench_engine::run(p, c)))
                .collect();
            let first = progress.follow(label, secs, &controls[0].live, || {
                gqlbench_engine::run(&plans[0], &controls[0])
            });
            let mut all = vec![first];
            all.extend(others.into_iter().map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(gqlbench_engine::EngineError::Io(std::io::Error::other(
                        "an arm's load thread panicked",
                    )))
                })
            }));
            all
        });
    let noise = watch.finish(&watched_cpus(plan));
    // Alternating, an arm is loaded for its share of the window only (whole balanced
    // blocks give every arm the same share): its CPU and its generator's are figures over
    // that share, as if it had been measured alone.
    let share = match sl.sharing {
        Sharing::Alternate { .. } => 1.0 / n as f64,
        Sharing::Duet => 1.0,
    };
    let arms = outcomes
        .into_iter()
        .zip(samplers)
        .zip(sessions)
        .map(|((outcome, sampler), sess)| arm_run(plan, &load, outcome, sampler, sess, share))
        .collect();
    SharedRun { arms, noise }
}

/// Each arm's engine plan. Alternating, they share one clock for their slices (see below).
fn engine_plans<K: ?Sized>(
    plan: &RunPlan<K>,
    sessions: &[&Session],
    sl: &SharedLoad<'_>,
    load: &Load,
) -> Vec<gqlbench_engine::LoadPlan> {
    let n = sessions.len();
    // One clock for every arm's slices. Alternating, it starts once the runs have had time
    // to connect and prime their connections, and every run starts its load on it, so the
    // warm-up and the window (whole blocks) cover whole blocks.
    let epoch = match sl.sharing {
        Sharing::Alternate { .. } => Instant::now() + CONNECT_ALLOWANCE,
        Sharing::Duet => Instant::now(),
    };
    sessions
        .iter()
        .enumerate()
        .map(|(arm, sess)| {
            let mut p = sess.engine_plan(
                load,
                sl.ops,
                plan.isolation.generator.as_ref(),
                sl.warmup,
                Stop {
                    duration: Some(sl.duration),
                    max_requests: None,
                    extend: None,
                },
            );
            if let Sharing::Alternate { slice, guard, seed } = sl.sharing {
                p.start_at = Some(epoch);
                // A run not connected by the epoch starts on a later block boundary: a
                // window cut mid-block loses its edge blocks (on the noisy VM, 100
                // connections to each of 5 servers took longer than the allowance).
                p.start_every = Some(slice * (2 * n) as u32);
                p.slicing = Some(Slicing {
                    epoch,
                    length: slice,
                    guard,
                    arm,
                    arms: n,
                    seed,
                });
            }
            p
        })
        .collect()
}

/// One arm's figures from its engine run and its sampler; alternating, `share` is the part
/// of the window it was loaded.
fn arm_run<K: ?Sized>(
    plan: &RunPlan<K>,
    load: &Load,
    outcome: Result<LoadResult, gqlbench_engine::EngineError>,
    sampler: Sampler,
    sess: &Session,
    share: f64,
) -> ArmRun {
    let mut vitals = target_vitals(sampler, sess);
    vitals.cpu_avg_pct = vitals.cpu_avg_pct.map(|c| c / share);
    let (load_result, error) = match outcome {
        Ok(r) => (r, None),
        Err(e) => (LoadResult::default(), Some(format!("engine: {e}"))),
    };
    let cores =
        crate::sys::cpus::generator_cores(plan.isolation.generator.as_ref(), load_result.threads);
    let generator = GeneratorUsage::measure(
        load_result.generator_cpu_s,
        load_result.elapsed_s * share,
        cores,
    );
    let saturation = crate::saturation::check(load, &load_result, &generator);
    ArmRun {
        load: load_result,
        error,
        vitals,
        generator,
        saturation,
    }
}

/// An arm's req/s while it was loaded: answered requests over the counted time of its
/// slices (alternating), or over its window (a duet, or a run without slices).
pub fn loaded_rate(arm: &ArmRun) -> Option<f64> {
    if arm.load.slices.is_empty() {
        return (arm.load.elapsed_s > 0.0).then_some(arm.load.throughput_rps);
    }
    let ok: u64 = arm.load.slices.iter().map(|s| s.ok).sum();
    let ms: f64 = arm.load.slices.iter().map(|s| s.counted_ms).sum();
    (ms > 0.0).then(|| ok as f64 / (ms / 1000.0))
}

/// An arm's trial: its run's figures, its req/s the rate while it was loaded, valid unless
/// its run failed, a response failed, it was interrupted or its target exited.
pub fn arm_trial(
    trial: u32,
    position: u32,
    arm: ArmRun,
    sess: &mut Session,
    noise: Option<NoiseInfo>,
) -> TrialResult {
    let rate = loaded_rate(&arm);
    let mut problems: Vec<String> = arm.error.into_iter().collect();
    let mut load: LoadResult = arm.load;
    if load.failed > 0 {
        problems.push(format!("{} failed responses", load.failed));
    }
    if let Some(st) = sess.process.exited() {
        problems.push(format!("target exited ({st})"));
    }
    if load.interrupted {
        problems.push("interrupted".into());
    }
    if load.requests == 0 && problems.is_empty() {
        problems.push("no request was answered in its slices".into());
    }
    if let Some(r) = rate {
        load.throughput_rps = r;
    }
    // Sliced, the count stays (its slices are what the round's readers use) and its step
    // is judged against the timing; a duet's arm is measured over its window as a trial
    // alone is.
    let sliced = !load.slices.is_empty();
    super::throughput::choose(&mut load, sliced);
    let mut t = TrialResult::of_load(trial, now_rfc3339(), load);
    t.position = position;
    t.vitals = arm.vitals;
    t.generator = arm.generator;
    t.saturation = arm.saturation;
    t.noise = noise;
    t.valid = problems.is_empty();
    t.problems = problems;
    t
}

/// A seed for the block orders of run `k` (a pair, a round): different per run of the
/// slices and per gqlbench process.
pub fn seed(k: u32) -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ ((k as u64) << 48) ^ std::process::id() as u64
}

/// An open model's rate (its highest stage).
fn load_rate(load: &Load) -> f64 {
    load.info().rate.unwrap_or(0.0)
}
