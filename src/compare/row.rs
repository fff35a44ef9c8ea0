//! One row of a comparison from a matched pair of targets: its figures on each side, the
//! change of req/s (scaled by the canary when both runs timed one) and of p99, and its
//! verdict with the reason in words (`judge.rs`).
use super::judge::{self, judge_with, side_of, state, Side};
use super::{speed, CompareRow};
use crate::results::{ScenarioResult, TargetResult, TargetSummary};
use crate::stats::between::Between;
use crate::stats::relative_change;

/// One row; `named` is the scenario it is named after (the baseline's when it has it),
/// `other` the same scenario in the other run.
pub(super) fn row(
    named: &ScenarioResult,
    other: Option<&ScenarioResult>,
    ta: Option<&TargetResult>,
    tb: Option<&TargetResult>,
    gate: Option<f64>,
    between: Option<&Between>,
) -> CompareRow {
    let (state_a, state_b) = (
        ta.map(state).unwrap_or_default(),
        tb.map(state).unwrap_or_default(),
    );
    let throughput = std::iter::once(named)
        .chain(other)
        .all(|s| s.kind.has_trials());
    // Both sides scaled by their canaries, or neither. With both targets present, `named`
    // is the baseline's scenario (see `matching::pairs`).
    let both_valid = matches!(
        (ta, tb),
        (Some(a), Some(b)) if crate::summary::rankable(a) && crate::summary::rankable(b)
    );
    let adjusted = match (ta, tb, other) {
        (Some(a), Some(b), Some(sb)) if both_valid => {
            let sa = named;
            speed::adjusted_samples(sa, a)
                .zip(speed::adjusted_samples(sb, b))
                .map(|(x, y)| {
                    (
                        x,
                        y,
                        speed::median_canary_ms(sa, a),
                        speed::median_canary_ms(sb, b),
                    )
                })
        }
        _ => None,
    };
    let sides = (side_of(ta, &state_a), side_of(tb, &state_b));
    let sides = match (&adjusted, sides) {
        (Some((x, y, _, _)), (Side::Valid(_), Side::Valid(_))) => (Side::Valid(x), Side::Valid(y)),
        (_, s) => s,
    };
    let (verdict, mut reason) = judge_with(sides.0, sides.1, throughput, gate, between);
    let machine_speed_change_pct = adjusted
        .as_ref()
        .and_then(|(_, _, ca, cb)| Some((ca.as_ref()? / cb.as_ref()? - 1.0) * 100.0));
    if let (Some(m), true) = (machine_speed_change_pct, verdict.compared()) {
        let how = if m >= 0.0 { "faster" } else { "slower" };
        reason.push_str(&format!(
            "; req/s scaled by the canary (the machine ran {:.1}% {how} in the candidate)",
            m.abs()
        ));
    }
    // A summary of no trial (every one cut short by Ctrl-C) has no figure to show, not 0.
    let key_a = figures(ta);
    let key_b = figures(tb);
    let change = |f: fn(&TargetSummary) -> &[f64]| match (key_a, key_b) {
        (Some(x), Some(y)) => relative_change(f(x), f(y)),
        _ => None,
    };
    // A p99 the source did not measure (an imported k6 summary without it) is no figure.
    let p99 = |k: Option<&TargetSummary>| {
        k.filter(|s| s.latency.measured("p99_us"))
            .map(|s| s.p99_us.median)
    };
    let rps_change = match (&adjusted, key_a, key_b) {
        (Some((x, y, _, _)), _, _) => judge::change(x, y, between),
        (None, Some(x), Some(y)) => judge::change(&x.rps.samples, &y.rps.samples, between),
        _ => None,
    };
    let comparable = matches!(
        (ta, tb),
        (Some(a), Some(b)) if crate::summary::rankable(a) && crate::summary::rankable(b)
    );
    let regression = gate.is_some() && verdict.gate_problem().is_some();
    CompareRow {
        scenario: format!("{}/{}", named.suite, named.name),
        target: ta.or(tb).map(|t| t.name.clone()).unwrap_or_default(),
        baseline_rps: key_a.map(|s| s.rps.center_or_median()),
        candidate_rps: key_b.map(|s| s.rps.center_or_median()),
        rps_change,
        baseline_p99_us: p99(key_a),
        candidate_p99_us: p99(key_b),
        p99_change: change(|s| &s.p99_us.samples).filter(|_| p99(key_a).and(p99(key_b)).is_some()),
        baseline_trials: key_a.map(|s| s.rps.samples.len()),
        candidate_trials: key_b.map(|s| s.rps.samples.len()),
        comparable,
        note: (!comparable).then(|| reason.clone()),
        verdict,
        reason,
        regression,
        speed_adjusted: adjusted.is_some(),
        machine_speed_change_pct,
    }
}

/// A target's summary where it has figures: a summary of no trial (every one cut short by
/// Ctrl-C) has none to show, not 0.
fn figures(t: Option<&TargetResult>) -> Option<&TargetSummary> {
    t.and_then(|t| t.summary.as_ref())
        .filter(|s| !s.rps.samples.is_empty())
}
