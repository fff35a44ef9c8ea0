//! The probe of a measured efficiency tier (`[efficiency] share = 0.5`): with every target
//! started and checked, a short closed-model run through each one, saturating whichever of
//! its own CPU and the CPUs the generator shares with the subgraphs binds first. The rate
//! is the share of the least req/s a valid probe served, so it is one that this machine's
//! generator and subgraphs can send and mock for every target, and that every target can
//! hold at that share. Each probe's figures (what bound it, the shared CPUs' load, the
//! subgraph calls per request) are kept in results (`PROBE`) and given in a table of
//! their own.
use std::time::Duration;

use crate::kind::ScenarioCx;
use crate::measure::session::Session;
use crate::measure::trial::{MeasureCx, Warmup};
use crate::plan::Load;
use crate::results::{ScenarioResult, TargetStatus};
use crate::summary::bound::Bound;
use crate::summary::efficiency::{Probe, PROBE, RATE};
use crate::view::Table;

/// Requests in flight in the probe: enough to keep a one-CPU gateway and the generator's
/// CPU busy at once (a native gateway answers the large query in about 2 ms of CPU).
pub const CONNECTIONS: u32 = 32;
/// The probe's warm-up and window: the figure sets a rate, so it needs to be near, not
/// precise (a burst of steal lowers it, which only makes the rate easier to hold).
const WARMUP: Duration = Duration::from_secs(1);
const WINDOW: Duration = Duration::from_secs(2);

/// The probe's load: the scenario's, closed, with [`CONNECTIONS`] (fewer if its pool is
/// smaller).
pub fn load(scenario: &Load) -> Load {
    scenario.with_connections(CONNECTIONS.min(scenario.connections()).max(1))
}

/// Probes every started target in turn and records what each served; the least req/s of
/// the valid probes, or None when none was valid. A target that exits during its probe is
/// marked crashed and its session stopped.
pub fn run(
    cx: &mut ScenarioCx<'_>,
    sessions: &mut [Option<Session>],
    ops: &[gqlbench_engine::Operation],
) -> Option<f64> {
    let load = load(&cx.sp.load);
    let mut probes = Vec::new();
    for (ti, slot) in sessions.iter_mut().enumerate() {
        let Some(sess) = slot.as_mut() else {
            continue;
        };
        if cx.ctx.cancelled() {
            break;
        }
        let name = cx.sp.targets[ti].name.clone();
        let label = format!("{} probe {name}", cx.sp.name);
        cx.progress.message(format!(
            "{label}: {} connections, closed",
            load.connections()
        ));
        let m = crate::measure::trial::measure(
            MeasureCx {
                plan: cx.plan,
                ctx: cx.ctx,
                sess,
                ops,
                progress: cx.progress,
            },
            &load,
            Warmup::Fixed(WARMUP),
            WINDOW,
            &label,
        );
        let exited = sess.process.exited();
        let rps = m.load.throughput_rps;
        let bound = m.upstream.as_ref().map(|up| {
            Bound::of_shares(
                m.vitals.cpu_avg_pct,
                up.subgraph_cpu_pct,
                m.generator.utilization,
                up,
                false,
            )
        });
        let problems = crate::kind::load::problems_of(m.problems, &m.load, exited);
        let p = Probe {
            target: name,
            rps,
            valid: problems.is_empty() && rps > 0.0,
            bound: bound.map(|b| b.label()),
            generator_share: m.generator.utilization,
            subgraphs_share: bound.and_then(|b| b.subgraphs),
            calls_per_request: m.upstream.as_ref().map(|u| u.calls_per_request),
            problems,
        };
        cx.progress.line(&line(&label, &p));
        if let Some(st) = exited {
            let tr = &mut cx.results.scenarios[cx.si].targets[ti];
            tr.status = TargetStatus::Crashed;
            tr.problem = Some(format!("exited during the rate probe ({st})"));
            sess.stop();
            *slot = None;
        }
        probes.push(p);
    }
    let least = probes
        .iter()
        .filter(|p| p.valid)
        .map(|p| p.rps)
        .min_by(f64::total_cmp);
    cx.results.scenarios[cx.si].by_kind.set(&PROBE, &probes);
    least
}

/// No probe was valid, so there is no rate to send: every target still running is
/// stopped, its row saying why (its own probe's problems, or the interruption that cut
/// the probes short).
pub fn no_rate(cx: &mut ScenarioCx<'_>, sessions: &mut [Option<Session>]) {
    let interrupted = cx.ctx.cancelled();
    let probes = cx.results.scenarios[cx.si]
        .by_kind
        .get(&PROBE)
        .unwrap_or_default();
    for (ti, slot) in sessions.iter_mut().enumerate() {
        let Some(sess) = slot.as_mut() else {
            continue;
        };
        let tr = &mut cx.results.scenarios[cx.si].targets[ti];
        let own = probes.iter().find(|p| p.target == tr.name);
        let why = own.map_or_else(|| "not probed".to_string(), |p| p.problems.join("; "));
        // A probe that got answers but failed some was answered wrong under load; one
        // that got none timed out.
        if interrupted {
            tr.status = TargetStatus::Interrupted;
            tr.problem = Some("run interrupted during the rate probe".into());
            sess.stop();
            *slot = None;
            continue;
        }
        tr.status = match own {
            Some(p) if p.rps > 0.0 => TargetStatus::WrongAnswers,
            _ => TargetStatus::TimedOut,
        };
        tr.problem = Some(format!(
            "not measured: no target served a valid rate probe, so the scenario has no rate (its probe: {why})"
        ));
        cx.progress
            .line(&format!("  {}: NOT MEASURED — {}", tr.name, why));
        sess.stop();
        *slot = None;
    }
}

/// "  efficiency-high probe hive-router: 612 req/s, bound by gateway (CPU 97%)".
fn line(label: &str, p: &Probe) -> String {
    let bound = p
        .bound
        .as_deref()
        .map_or(String::new(), |b| format!(", bound by {b}"));
    let problems = if p.valid {
        String::new()
    } else {
        format!(" [INVALID: {}]", p.problems.join("; "))
    };
    format!("  {label}: {:.0} req/s{bound}{problems}", p.rps)
}

/// The probe's table: what each target served, what bound it, what set the rate.
pub fn table(s: &ScenarioResult) -> Option<Table> {
    let probes = s.by_kind.get(&PROBE)?;
    let r = s.by_kind.get(&RATE)?;
    let share = r.share?;
    let rate = if r.rate > 0.0 {
        format!(
            "the rate, {:.0} req/s, is {:.0}% of the least valid figure",
            r.rate,
            100.0 * share
        )
    } else {
        "no probe was valid, so there is no rate and nothing was measured".into()
    };
    let whole = |x: f64| format!("{x:.0}");
    Some(Table {
        title: format!(
            "The rate's probe ({} s closed, {} connections, through each target at the start; {rate})",
            WINDOW.as_secs(),
            CONNECTIONS
        ),
        headers: [
            "target",
            "req/s",
            "bound by",
            "generator / subgraphs, % of the CPUs they share",
            "subgraph calls per request",
            "valid",
        ]
        .map(String::from)
        .to_vec(),
        rows: probes
            .iter()
            .map(|p| {
                vec![
                    p.target.clone(),
                    whole(p.rps),
                    p.bound.clone().unwrap_or_else(crate::view::cells::dash),
                    format!(
                        "{:.0} / {}",
                        100.0 * p.generator_share,
                        p.subgraphs_share
                            .map_or_else(crate::view::cells::dash, |x| format!("{:.0}", 100.0 * x))
                    ),
                    p.calls_per_request
                        .map_or_else(crate::view::cells::dash, |x| format!("{x:.2}")),
                    if p.valid {
                        "yes".into()
                    } else {
                        format!("no: {}", p.problems.join("; "))
                    },
                ]
            })
            .collect(),
    })
}
