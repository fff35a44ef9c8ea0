//! Running an A/B: process pairs one after another (both sides started fresh, their answers
//! checked, measured together, stopped) until the sequential rule decides or the budget is
//! spent. Each pair gives one estimate of the change (`summary::ab`); the decision looks at
//! the pairs only, so the luck of one process (its JIT, its layout) is sampled, not taken
//! for the builds' difference. Results are saved after every pair.
use std::time::Instant;

use anyhow::Result;

use super::ab_pair::{self, PairOutcome};
use crate::kind::Kind;
use crate::kinds::ab::{AbRecord, AbStop, AB};
use crate::measure::RunContext;
use crate::plan::ab::AbPlan;
use crate::progress::Progress;
use crate::results::*;
use crate::stats::sequential::Design;
use crate::summary::ab::{decide, AbDecision};

/// The scenario's result before the first pair: two rows named by the sides' labels, and
/// the A/B record with its settings.
pub fn new_scenario(ap: &AbPlan<dyn Kind>) -> ScenarioResult {
    let sp = &ap.run.scenarios[0];
    let mut s = super::scenario::result(sp);
    for (tr, arm) in s.targets.iter_mut().zip(ap.arms.iter()) {
        tr.name = arm.label.clone();
    }
    let record = AbRecord {
        form: ap.form,
        arms: ap.arms.to_vec(),
        allowance: ap.allowance,
        alpha: ap.alpha,
        slice_ms: ap.slice.as_secs_f64() * 1000.0,
        pair_time_s: ap.pair_time.as_secs_f64(),
        warmup_s: ap.warmup.as_secs_f64(),
        latency_time_s: ap.latency_time.as_secs_f64(),
        budget_s: ap.budget.as_secs_f64(),
        max_pairs: ap.max_pairs,
        stopped: AbStop::Running,
        ..Default::default()
    };
    s.by_kind.set(&AB, &record);
    s
}

/// Runs the pairs into `results.scenarios[0]`, whose rows are side A's and side B's.
pub fn run(
    ap: &AbPlan<dyn Kind>,
    ctx: &RunContext,
    results: &mut RunResults,
    progress: &mut Progress,
    unavailable: &[Option<Unavailable>; 2],
) -> Result<()> {
    let out = ap.run.out_dir.clone();
    let mut record = results.scenarios[0].by_kind.get(&AB).unwrap_or_default();
    // A side that could not be installed (in its own checkout): nothing to compare.
    for (i, arm) in ap.arms.iter().enumerate() {
        if let Some(u) = &unavailable[i] {
            let tr = &mut results.scenarios[0].targets[i];
            tr.status = u.status;
            tr.problem = Some(u.message.clone());
            let why = format!("side {}: {}", arm.label, u.message);
            record.failure = Some(match record.failure.take() {
                Some(f) => format!("{f}; {why}"),
                None => why,
            });
        }
    }
    let design = Design {
        alpha: ap.alpha,
        max_looks: ap.max_pairs as usize,
        min_look: ap.min_pairs as usize,
        spending: crate::stats::sequential::Spending::OBrienFleming,
    };
    let began = Instant::now();
    let mut ds: Vec<f64> = Vec::new();
    let mut guard = ap_pair_guard(ap);
    let mut decision: Option<AbDecision> = None;
    let mut longest_pair = ap.pair_secs();
    let mut k = 0u32;
    // Pairs that count against `--max-pairs`: a first pair left uncounted (its guard was
    // raised after it) is replaced, not one of the planned pairs.
    let mut planned_done = 0u32;
    while record.failure.is_none() && !ctx.cancelled() {
        k += 1;
        let pair_began = Instant::now();
        let outcome = ab_pair::run(ap, ctx, results, progress, k, guard);
        match outcome {
            PairOutcome::Interrupted => break,
            PairOutcome::Failed(why) => {
                record.failure = Some(why);
            }
            PairOutcome::Measured(p) => {
                let mut pr = p.record;
                // Every counted pair leaves the same part of each slice out. The first
                // pair's switches show whether the default guard covers the transient; when
                // they call for more, the guard is raised and the first pair, measured with
                // less, is not counted.
                if k == 1 && ap.guard.is_none() {
                    if let Some(g) = p.measured_guard_ms.filter(|g| *g > ms(guard)) {
                        guard = std::time::Duration::from_secs_f64(g / 1000.0);
                        pr.uncounted = Some(format!(
                            "its switches called for a {g:.0} ms guard, more than its own; the later pairs leave {g:.0} ms out"
                        ));
                    }
                }
                pr.end_s = began.elapsed().as_secs_f64();
                if let (Some(d), None) = (pr.d, &pr.uncounted) {
                    ds.push(d);
                }
                planned_done += pr.uncounted.is_none() as u32;
                progress.line(&pair_line(ap, &pr));
                record.pairs.push(pr);
            }
        }
        longest_pair = longest_pair.max(pair_began.elapsed().as_secs_f64());
        if record.failure.is_some() || ctx.cancelled() {
            break;
        }
        // The last look: the planned number, or no time left for another pair (the rule
        // then spends what is left of its error rate here; it stays valid). A budget spent
        // before the first look goes on to it: a run that decides nothing is no answer.
        let spent = began.elapsed().as_secs_f64() + longest_pair > ap.budget.as_secs_f64();
        let last = planned_done >= ap.max_pairs || (spent && ds.len() >= ap.min_pairs as usize);
        let d = decide(&ds, ap.allowance, &design, last);
        progress.line(&if ds.len() < ap.min_pairs as usize {
            format!(
                "  after {} of the {} pairs the first look needs",
                ds.len(),
                ap.min_pairs
            )
        } else {
            format!("  after {} pairs: {} {}", ds.len(), change(&d), d.verdict)
        });
        let stop = d.stop || last;
        decision = Some(d);
        record.decision = decision;
        record.elapsed_s = began.elapsed().as_secs_f64();
        save(results, &record, &out)?;
        if stop {
            record.stopped = match (last, spent) {
                (false, _) => AbStop::Decided,
                (true, true) => AbStop::BudgetSpent,
                (true, false) => AbStop::PlannedPairsDone,
            };
            break;
        }
    }
    if ctx.cancelled() {
        record.stopped = AbStop::Interrupted;
    } else if record.failure.is_some() {
        record.stopped = AbStop::SideFailed;
    }
    record.decision = decision;
    record.elapsed_s = began.elapsed().as_secs_f64();
    latency_changes(&mut record);
    let sp = &ap.run.scenarios[0];
    for tr in results.scenarios[0].targets.iter_mut() {
        tr.summary = crate::summary::summarize(tr);
        sp.kind.summarize(sp, tr);
    }
    save(results, &record, &out)
}

/// The guard of the first pair: the one asked for, or a quarter of the slice until the
/// first pair has shown how long a switch disturbs the load.
fn ap_pair_guard(ap: &AbPlan<dyn Kind>) -> std::time::Duration {
    ap.guard.unwrap_or(ap.slice / 4)
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn save(results: &mut RunResults, record: &AbRecord, out: &std::path::Path) -> Result<()> {
    results.scenarios[0].by_kind.set(&AB, record);
    results.save(out).map(|_| ())
}

/// "+1.2% [-0.4, +2.9]".
fn change(d: &AbDecision) -> String {
    crate::units::fmt_change(d.pct, d.low_pct, d.high_pct)
}

/// "pair 3: base 10,312 req/s, head 10,118 req/s: -1.9% (48 blocks)".
fn pair_line(ap: &AbPlan<dyn Kind>, p: &crate::kinds::ab::PairRecord) -> String {
    let d = p.d.map_or("no estimate".into(), |d| {
        format!("{:+.1}%", (d.exp() - 1.0) * 100.0)
    });
    format!(
        "pair {}: {} {:.0} req/s, {} {:.0} req/s: {d} ({} blocks)",
        p.pair,
        ap.arms[0].label,
        p.a_rps.unwrap_or(0.0),
        ap.arms[1].label,
        p.b_rps.unwrap_or(0.0),
        p.blocks
    ) + &p
        .uncounted
        .as_ref()
        .map_or(String::new(), |u| format!(", not counted: {u}"))
}

/// p50 and p99 of B vs A at the fixed rate, over the pairs that measured them.
fn latency_changes(record: &mut AbRecord) {
    let pairs: Vec<&crate::kinds::ab::PairLatency> = record
        .pairs
        .iter()
        .filter_map(|p| p.latency.as_ref())
        .collect();
    let of = |f: &dyn Fn(&crate::kinds::ab::PairLatency) -> (u64, u64)| {
        let v: Vec<(f64, f64)> = pairs
            .iter()
            .map(|l| f(l))
            .map(|(a, b)| (a as f64, b as f64))
            .collect();
        crate::stats::paired_change(&v)
    };
    record.p50 = of(&|l| (l.a_p50_us, l.b_p50_us));
    record.p99 = of(&|l| (l.a_p99_us, l.b_p99_us));
}
