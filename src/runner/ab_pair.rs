//! One process pair of an A/B: both sides started fresh (the side started first alternates
//! from pair to pair), their answers checked, the throughput phase measured together
//! (alternating or as a duet), then the latency phase at a fixed rate, both stopped. It
//! gives the pair's estimate, each side's trial for its row, and the switch transient its
//! slices showed.
use std::time::Duration;

use crate::kind::Kind;
use crate::kinds::ab::{PairLatency, PairRecord};
use crate::measure::alternate::{self, loaded_rate, ArmRun, SharedLoad, SharedRun, Sharing};
use crate::measure::session::{FederationStart, Session, StartOptions};
use crate::measure::RunContext;
use crate::plan::ab::{AbPlan, Form};
use crate::progress::Progress;
use crate::results::*;
use crate::summary::ab::{pair_estimate, SliceObs};
use crate::summary::transient;

/// Share of the slower side's throughput the latency phase sends at: well below both
/// sides' capacity, so latency is service time and light queueing, not saturation.
const LATENCY_LOAD: f64 = 0.5;
/// A bin of the transient must differ from the steady level by this much (and by three
/// Poisson deviations) to count.
const TRANSIENT_REL: f64 = 0.03;
/// A slice counts when at least this share of its counted part fell in the window.
const WHOLE_SLICE: f64 = 0.99;

pub enum PairOutcome {
    Measured(Box<Measured>),
    /// A side did not start, answered wrong, failed its load or died: which and why.
    Failed(String),
    /// Ctrl-C (or SIGTERM) during the pair: nothing of it is kept.
    Interrupted,
}

pub struct Measured {
    pub record: PairRecord,
    /// The guard the pair's switches call for (alternation only).
    pub measured_guard_ms: Option<f64>,
}

pub fn run(
    ap: &AbPlan<dyn Kind>,
    ctx: &RunContext,
    results: &mut RunResults,
    progress: &mut Progress,
    k: u32,
    guard: Duration,
) -> PairOutcome {
    let sp = &ap.run.scenarios[0];
    let first = if k % 2 == 1 { 0 } else { 1 };
    let mut sessions: [Option<Session>; 2] = [None, None];
    for i in [first, 1 - first] {
        match start(ap, ctx, results, progress, i, k) {
            Ok(s) => sessions[i] = Some(s),
            Err(_) if ctx.cancelled() => {
                stop_all(&mut sessions);
                return PairOutcome::Interrupted;
            }
            Err(why) => {
                stop_all(&mut sessions);
                return PairOutcome::Failed(why);
            }
        }
    }
    let [Some(sa), Some(sb)] = &mut sessions else {
        return PairOutcome::Failed("a side was not started".into());
    };
    let ops: Vec<_> = sp.operations.iter().map(|(o, w)| o.to_engine(*w)).collect();
    let sharing = match ap.form {
        Form::Alternate => Sharing::Alternate {
            slice: ap.slice,
            guard,
            seed: alternate::seed(k),
        },
        Form::Duet => Sharing::Duet,
    };
    let label = format!("pair {k}");
    let run = alternate::run(
        &ap.run,
        ctx,
        &[&*sa, &*sb],
        &SharedLoad {
            load: &sp.load,
            ops: &ops,
            warmup: ap.warmup,
            duration: ap.pair_time,
            sharing,
        },
        progress,
        &label,
    );
    if ctx.cancelled() {
        stop_all(&mut sessions);
        return PairOutcome::Interrupted;
    }
    let rates = [loaded_rate(&run.arms[0]), loaded_rate(&run.arms[1])];
    let mut record = PairRecord {
        pair: k,
        first,
        a_rps: rates[0],
        b_rps: rates[1],
        ..Default::default()
    };
    let measured_guard_ms = estimate(&run, sharing, &mut record);
    // Each side's trial for its row: its own figures over the pair.
    let noise = run.noise.clone();
    let mut failed = None;
    for (i, (arm, sess)) in run.arms.into_iter().zip([&mut *sa, &mut *sb]).enumerate() {
        let t = alternate::arm_trial(k, if i == first { 1 } else { 2 }, arm, sess, noise.clone());
        if !t.valid && failed.is_none() {
            failed = Some(format!(
                "side {}: pair {k}: {}",
                ap.arms[i].label,
                t.problems.join("; ")
            ));
        }
        results.scenarios[0].targets[i].trials.push(t);
    }
    if failed.is_none() && !ap.latency_time.is_zero() && !ctx.cancelled() {
        match latency_phase(
            ap,
            ctx,
            [&mut *sa, &mut *sb],
            &ops,
            &record,
            sharing,
            progress,
            k,
        ) {
            Ok(l) => record.latency = l,
            Err(why) => failed = Some(why),
        }
    }
    stop_all(&mut sessions);
    if ctx.cancelled() {
        return PairOutcome::Interrupted;
    }
    match failed {
        Some(why) => PairOutcome::Failed(why),
        None => PairOutcome::Measured(Box::new(Measured {
            record,
            measured_guard_ms,
        })),
    }
}

/// The pair's estimate into `record`: alternating, the slices' paired difference (after
/// each slice's guard) and the transients seen; as a duet, the ratio of CPU per request.
/// Returns the guard this pair's transients call for (alternating only).
fn estimate(run: &SharedRun, sharing: Sharing, record: &mut PairRecord) -> Option<f64> {
    match sharing {
        Sharing::Alternate { slice, guard, .. } => {
            let slice_ms = slice.as_secs_f64() * 1000.0;
            let bin_ms = gqlbench_engine::SLICE_PROFILE_BIN.as_secs_f64() * 1000.0;
            record.guard_ms = Some(guard.as_secs_f64() * 1000.0);
            let transients: Vec<Option<f64>> = run
                .arms
                .iter()
                .map(|a| {
                    transient::transient_ms(&a.load.slice_profile, bin_ms, slice_ms, TRANSIENT_REL)
                })
                .collect();
            record.transient_ms = transients.iter().flatten().copied().reduce(f64::max);
            let mut obs = slice_obs(&run.arms[0], slice_ms - record.guard_ms.unwrap_or(0.0));
            obs.extend(slice_obs(
                &run.arms[1],
                slice_ms - record.guard_ms.unwrap_or(0.0),
            ));
            obs.sort_by_key(|o| o.index);
            if let Some(e) = pair_estimate(&obs) {
                record.d = Some(e.d);
                record.blocks = e.blocks;
                record.within_se = Some(e.within_se);
            }
            transient::guard_ms(&transients, bin_ms, slice_ms)
        }
        Sharing::Duet => {
            let costs = [
                cpu_ms_per_request(&run.arms[0]),
                cpu_ms_per_request(&run.arms[1]),
            ];
            record.a_cpu_ms_per_req = costs[0];
            record.b_cpu_ms_per_req = costs[1];
            if let [Some(a), Some(b)] = costs {
                // Throughput is the inverse of the cost: B faster when its cost is lower.
                record.d = (a > 0.0 && b > 0.0).then(|| (a / b).ln());
            }
            None
        }
    }
}

/// Starts side `i` for pair `k` and checks its answers; on failure its row says why.
fn start(
    ap: &AbPlan<dyn Kind>,
    ctx: &RunContext,
    results: &mut RunResults,
    progress: &mut Progress,
    i: usize,
    k: u32,
) -> Result<Session, String> {
    let sp = &ap.run.scenarios[0];
    let (t, arm) = (&sp.targets[i], &ap.arms[i]);
    let log_rel = format!("logs/{}-{}-pair{k}.log", sp.name, arm.label);
    let cancelled = || ctx.cancelled();
    let mut options = StartOptions::for_scenario(
        &ap.run, sp, &arm.root, &arm.env, &log_rel, &cancelled, false,
    );
    options.federation = FederationStart::for_target(t, &ap.run, sp, &arm.root);
    progress.message(format!("pair {k}: starting {}", arm.label));
    let tr = &mut results.scenarios[0].targets[i];
    tr.log_file = Some(log_rel.clone());
    match Session::start(t, options) {
        Err(f) => {
            let why = format!(
                "side {} ({}): {} — {}",
                arm.label,
                t.name,
                f.status.label(),
                f.problem
            );
            tr.status = f.status;
            tr.problem = Some(f.problem);
            tr.log_tail = f.log_tail;
            progress.line(&format!("  {why}"));
            Err(why)
        }
        Ok((mut s, _note)) => {
            tr.ready_s = Some(s.ready_s);
            tr.rss_idle_bytes = s.rss_idle_bytes;
            if let Some((status, label, problem)) = super::scenario::check_answers(sp, t, &s, tr) {
                let why = format!("side {} ({}): {label} — {problem}", arm.label, t.name);
                tr.status = status;
                tr.problem = Some(problem);
                s.stop();
                progress.line(&format!("  {why}"));
                return Err(why);
            }
            Ok(s)
        }
    }
}

fn stop_all(sessions: &mut [Option<Session>; 2]) {
    for s in sessions.iter_mut().flatten() {
        s.stop();
    }
}

/// A side's whole slices as the pair estimate reads them: the slices whose counted part
/// lies in the window (`counted_ms`: the slice's length less its guard).
fn slice_obs(arm: &ArmRun, counted_ms: f64) -> Vec<SliceObs> {
    arm.load
        .slices
        .iter()
        .filter(|s| s.counted_ms >= WHOLE_SLICE * counted_ms && s.counted_ms > 0.0)
        .map(|s| SliceObs {
            index: s.index,
            arm: s.arm,
            rate: s.ok as f64 / (s.counted_ms / 1000.0),
        })
        .collect()
}

/// A duet side's CPU per answered request (ms), from its vitals over the window.
fn cpu_ms_per_request(arm: &ArmRun) -> Option<f64> {
    let cpu = arm.vitals.cpu_avg_pct? / 100.0 * arm.load.elapsed_s;
    let ok = arm.load.requests.saturating_sub(arm.load.failed);
    (ok > 0).then(|| cpu * 1000.0 / ok as f64)
}

/// The latency phase: both sides at one fixed rate (open model), in alternating slices;
/// each side's p50 and p99 at it. A side that fails or dies in it fails the pair.
#[allow(clippy::too_many_arguments)]
fn latency_phase(
    ap: &AbPlan<dyn Kind>,
    ctx: &RunContext,
    sessions: [&mut Session; 2],
    ops: &[gqlbench_engine::Operation],
    record: &PairRecord,
    sharing: Sharing,
    progress: &mut Progress,
    k: u32,
) -> Result<Option<PairLatency>, String> {
    let (Some(a_rps), Some(b_rps)) = (record.a_rps, record.b_rps) else {
        return Ok(None);
    };
    let rate = LATENCY_LOAD * a_rps.min(b_rps);
    if rate < 1.0 {
        return Ok(None);
    }
    let sp = &ap.run.scenarios[0];
    let load = sp.load.at_rate(rate);
    // Latency alternates whatever the pair's form: in a duet each request would also wait
    // for the other side's turn on the CPU, and p99 would be the scheduler's.
    let sharing = match sharing {
        Sharing::Alternate { .. } => sharing,
        Sharing::Duet => Sharing::Alternate {
            slice: ap.slice,
            guard: ap.guard.unwrap_or(ap.slice / 4),
            seed: alternate::seed(k),
        },
    };
    let [sa, sb] = sessions;
    let run = alternate::run(
        &ap.run,
        ctx,
        &[&*sa, &*sb],
        &SharedLoad {
            load: &load,
            ops,
            // The servers are warm; one block of slices lets the open model settle.
            warmup: 4 * ap.slice,
            duration: ap.latency_time,
            sharing,
        },
        progress,
        &format!("pair {k} latency"),
    );
    for (i, (arm, sess)) in run.arms.iter().zip([sa, sb]).enumerate() {
        let mut problems: Vec<String> = arm.error.iter().cloned().collect();
        if arm.load.failed > 0 {
            problems.push(format!("{} failed responses", arm.load.failed));
        }
        if let Some(st) = sess.process.exited() {
            problems.push(format!("target exited ({st})"));
        }
        if !problems.is_empty() && !ctx.cancelled() {
            return Err(format!(
                "side {}: pair {k}, at the fixed rate of {rate:.0} req/s: {}",
                ap.arms[i].label,
                problems.join("; ")
            ));
        }
    }
    let [a, b] = &run.arms[..] else {
        return Ok(None);
    };
    let answered = |x: &ArmRun| x.load.requests > 0;
    Ok((answered(a) && answered(b)).then_some(PairLatency {
        rate,
        a_p50_us: a.load.latency.p50_us,
        b_p50_us: b.load.latency.p50_us,
        a_p99_us: a.load.latency.p99_us,
        b_p99_us: b.load.latency.p99_us,
    }))
}
