//! Unit tests of the row verdicts and of the problems of the runs as a whole.
use super::*;
use crate::results::RunStatus;

const BASE: [f64; 5] = [1000.0, 1001.0, 999.0, 1000.5, 999.5];

fn scaled(k: f64) -> Vec<f64> {
    BASE.iter().map(|x| x * k).collect()
}

#[test]
fn too_few_trials_is_named_as_the_reason_not_noise() {
    // The reported case: a clear -5% whose interval excludes 0, from 1 baseline trial.
    let (v, why) = judge(
        Side::Valid(&[1000.0]),
        Side::Valid(&[950.0, 910.0, 994.0]),
        true,
        Some(5.0),
    );
    assert_eq!(v, Verdict::TooFewTrials);
    assert_eq!(why, "too few trials (1 in baseline, need 3)");
    let (v, why) = judge(
        Side::Valid(&[1000.0]),
        Side::Valid(&[500.0, 505.0]),
        true,
        None,
    );
    assert_eq!(v, Verdict::TooFewTrials);
    assert_eq!(
        why,
        "too few trials (1 in baseline, 2 in candidate, need 3)"
    );
    assert_eq!(v.gate_problem(), None);
}

#[test]
fn an_interval_including_zero_says_so() {
    let noisy = [990.0, 1012.0, 1001.0, 985.0, 1010.0];
    let (v, why) = judge(Side::Valid(&BASE), Side::Valid(&noisy), true, Some(5.0));
    assert_eq!(v, Verdict::NoSignificantChange);
    assert_eq!(why, "no significant change (interval includes 0)");
}

#[test]
fn a_significant_slowdown_is_weighed_against_the_allowance() {
    let slower = scaled(0.97);
    let (v, why) = judge(Side::Valid(&BASE), Side::Valid(&slower), true, Some(5.0));
    assert_eq!(v, Verdict::SlowerWithinAllowance);
    assert!(
        why.starts_with("slower (significant, -3.0%) but less than the 5% allowance: interval [-"),
        "{why}"
    );
    assert_eq!(v.gate_problem(), None);

    // Noisier trials: the point estimate (-3%) is within a 4% allowance, but the interval
    // (about -5.3% to -0.7%) reaches beyond it, so a 4% slowdown is not ruled out.
    let wide = [1000.0, 1020.0, 980.0, 1010.0, 990.0];
    let wide_slower: Vec<f64> = wide.iter().map(|x| x * 0.97).collect();
    let (v, why) = judge(
        Side::Valid(&wide),
        Side::Valid(&wide_slower),
        true,
        Some(4.0),
    );
    assert_eq!(v, Verdict::Slower, "{why}");
    assert!(
        why.contains("a slowdown beyond the 4% allowance is within its interval"),
        "{why}"
    );
    assert_eq!(v.gate_problem(), Some(ProblemKind::Slower));
    // An allowance beyond the whole interval passes.
    let (v, _) = judge(
        Side::Valid(&wide),
        Side::Valid(&wide_slower),
        true,
        Some(6.0),
    );
    assert_eq!(v, Verdict::SlowerWithinAllowance);

    // Without a gate there is no allowance to be within.
    let (v, why) = judge(Side::Valid(&BASE), Side::Valid(&slower), true, None);
    assert_eq!(v, Verdict::Slower);
    assert_eq!(why, "slower (significant)");

    let (v, why) = judge(
        Side::Valid(&BASE),
        Side::Valid(&scaled(1.03)),
        true,
        Some(5.0),
    );
    assert_eq!(v, Verdict::Faster);
    assert_eq!(why, "faster (significant)");
}

#[test]
fn missing_and_invalid_rows_trip_only_when_the_baseline_was_valid() {
    let (v, why) = judge(Side::Valid(&BASE), Side::Missing, true, Some(5.0));
    assert_eq!(v, Verdict::MissingInCandidate);
    assert_eq!(why, "missing from candidate (valid in baseline)");
    assert_eq!(v.gate_problem(), Some(ProblemKind::MissingInCandidate));

    let (v, why) = judge(
        Side::Valid(&BASE),
        Side::Invalid("CRASHED (1/3 trials valid)"),
        true,
        Some(5.0),
    );
    assert_eq!(v, Verdict::CandidateInvalid);
    assert_eq!(
        why,
        "not comparable: candidate invalid (CRASHED (1/3 trials valid)), valid in baseline"
    );
    assert_eq!(v.gate_problem(), Some(ProblemKind::CandidateInvalid));

    // An invalid baseline has no figure to regress from, whatever became of the row.
    for (candidate, says) in [
        (Side::Missing, "missing from candidate"),
        (
            Side::Invalid("SATURATED (not ranked)"),
            "candidate invalid (SATURATED (not ranked))",
        ),
        (Side::Valid(&BASE), "candidate valid"),
    ] {
        let (v, why) = judge(Side::Invalid("WRONG ANSWERS"), candidate, true, Some(5.0));
        assert_eq!(v, Verdict::BaselineInvalid);
        assert_eq!(
            why,
            format!("not comparable: baseline invalid (WRONG ANSWERS), {says}")
        );
        assert_eq!(v.gate_problem(), None);
        assert!(!v.compared());
    }

    let (v, _) = judge(Side::Missing, Side::Valid(&BASE), true, Some(5.0));
    assert_eq!(v, Verdict::OnlyInCandidate);
    assert_eq!(v.gate_problem(), None);
}

#[test]
fn scenarios_without_throughput_are_not_compared() {
    let (v, why) = judge(Side::Invalid("OK"), Side::Missing, false, Some(5.0));
    assert_eq!(v, Verdict::NotCompared);
    assert!(why.contains("no req/s"), "{why}");
    assert_eq!(v.gate_problem(), None);
}

#[test]
fn partial_runs_and_empty_comparisons_are_run_problems() {
    let rows = ("servers/simple (a)", "servers/authors (a)");
    let complete = (RunStatus::Complete, RunStatus::Complete);
    assert_eq!(run_problems(complete, 2, 1, rows), vec![]);

    for (status, name) in [
        (RunStatus::Running, "running"),
        (RunStatus::Interrupted, "interrupted"),
        (RunStatus::Failed, "failed"),
    ] {
        let p = run_problems((RunStatus::Complete, status), 2, 2, rows);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].kind, ProblemKind::PartialCandidate);
        assert!(
            p[0].reason
                .starts_with(&format!("candidate run is partial (status: {name}")),
            "{}",
            p[0].reason
        );
        let p = run_problems((status, RunStatus::Complete), 2, 2, rows);
        assert_eq!(p[0].kind, ProblemKind::PartialBaseline);
    }

    let p = run_problems(complete, 0, 0, rows);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].kind, ProblemKind::NoRowsInCommon);
    assert!(p[0].reason.contains("baseline has servers/simple (a)"));
    assert!(p[0].reason.contains("candidate has servers/authors (a)"));

    let p = run_problems(complete, 3, 0, rows);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].kind, ProblemKind::NothingCompared);
    assert!(p[0].reason.contains("3 row(s) in common"));
}

#[test]
fn rows_counted_in_one_run_and_timed_in_the_other_are_named() {
    let run = |timed: bool| {
        let mut load = gqlbench_engine::LoadResult {
            model: "closed".into(),
            requests: 40,
            elapsed_s: 1.0,
            throughput_rps: if timed { 33.7 } else { 40.0 },
            ..Default::default()
        };
        if timed {
            load.rps_source = Some("timing".into());
        }
        one_row(load)
    };
    let (old, new) = (run(false), run(true));
    let c = compare(&old, &new, "old", "new", None);
    assert!(
        c.notes.iter().any(|n| n.starts_with(
            "req/s counted in one run and taken from the requests' own timing in the other (a count too coarse for its window): constant/hive-gateway;"
        )),
        "{:?}",
        c.notes
    );
    let same = compare(&new, &new, "new", "new", None);
    assert!(!same
        .notes
        .iter()
        .any(|n| n.contains("requests' own timing")));
}

/// A federation run of one scenario (`constant`) and one target (hive-gateway) with one
/// trial of `load`.
fn one_row(load: gqlbench_engine::LoadResult) -> crate::results::RunResults {
    use crate::results::{RunResults, ScenarioResult, TargetResult, TrialResult};
    let mut t = TargetResult::new("hive-gateway".into(), Default::default());
    let mut x = TrialResult::of_load(1, String::new(), load);
    x.valid = !x.load.interrupted;
    t.trials.push(x);
    t.summary = crate::summary::summarize(&t);
    let mut s = ScenarioResult {
        name: "constant".into(),
        ..Default::default()
    };
    s.targets.push(t);
    let mut r: RunResults = crate::results::test_run(serde_json::json!({"suite": "federation"}));
    r.scenarios.push(s);
    r
}

#[test]
fn a_candidate_that_measured_nothing_shows_no_figures_not_zero() {
    let measured = one_row(gqlbench_engine::LoadResult {
        model: "closed".into(),
        requests: 4322,
        elapsed_s: 1.0,
        throughput_rps: 4322.0,
        ..Default::default()
    });
    let mut cut = one_row(gqlbench_engine::LoadResult {
        model: "closed".into(),
        interrupted: true,
        ..Default::default()
    });
    cut.status = RunStatus::Interrupted;
    let c = compare(&measured, &cut, "old", "new", None);
    let row = &c.rows[0];
    assert!(
        row.baseline_rps.is_some_and(|r| (r - 4322.0).abs() < 1e-6),
        "{row:?}"
    );
    assert_eq!(row.candidate_rps, None, "{row:?}");
    assert_eq!(row.candidate_p99_us, None, "{row:?}");
}

#[test]
fn one_trial_a_side_gives_a_change_without_an_interval() {
    let at = |rps: f64| {
        one_row(gqlbench_engine::LoadResult {
            model: "closed".into(),
            requests: rps as u64,
            elapsed_s: 1.0,
            throughput_rps: rps,
            ..Default::default()
        })
    };
    let c = compare(&at(1000.0), &at(950.0), "old", "new", None);
    let cells = crate::report::comparison::cells(&c);
    assert_eq!(cells[0][3], "-5.0% (no interval: 1 trial)", "{cells:?}");
}

#[test]
fn two_ab_runs_whose_labels_stand_for_other_targets_are_said_to_differ() {
    use crate::kinds::ab::{AbRecord, AB};
    use crate::plan::ab::Arm;
    let arm = |label: &str, target: &str| Arm {
        label: label.into(),
        target: target.into(),
        root: "/repo".into(),
        env: Default::default(),
    };
    let with_arms = |a: &str, b: &str| {
        let mut r = one_row(gqlbench_engine::LoadResult {
            requests: 1000,
            elapsed_s: 1.0,
            throughput_rps: 1000.0,
            ..Default::default()
        });
        let rec = AbRecord {
            arms: vec![arm("a", a), arm("b", b)],
            ..Default::default()
        };
        r.scenarios[0].by_kind.set(&AB, &rec);
        r
    };
    let same = notes::ab_sides_note(&with_arms("x", "y"), &with_arms("x", "y"));
    assert_eq!(same, None);
    let note = notes::ab_sides_note(&with_arms("x", "y"), &with_arms("z", "y")).unwrap();
    assert!(note.contains("side a (target x and z)"), "{note}");
    assert!(!note.contains("side b ("), "{note}");
    // Runs that are not A/B runs have nothing to say.
    let plain = one_row(gqlbench_engine::LoadResult::default());
    assert_eq!(notes::ab_sides_note(&plain, &plain), None);
}
