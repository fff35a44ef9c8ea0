//! End-to-end: `report` re-renders a saved run; `compare` gives every row a verdict with its
//! real reason, and its gate (`--fail-if-slower`) exits 1 naming every cause: a significant
//! slowdown beyond the allowance, a row broken or missing in the candidate, a partial run,
//! nothing in common. Bad input exits 2. One real short run is made per test binary; the
//! baselines and candidates are that run's results with figures edited, so the verdicts do
//! not depend on how noisy the machine is.
use crate::common;
use std::path::Path;
use std::sync::OnceLock;

use common::*;
use gqlbench::compare::{CompareRow, Comparison, Problem, ProblemKind, Verdict};
use gqlbench::results::{RunResults, RunStatus, SweepStep, TargetStatus};

fn saved_run() -> RunResults {
    fixture_run("fx-good,fx-chunked")
}

/// The real run, made once and shared by the tests of this file.
fn measured() -> &'static RunResults {
    static RUN: OnceLock<RunResults> = OnceLock::new();
    RUN.get_or_init(saved_run)
}

/// The row made invalid the way a crash mid-run leaves it.
fn crashed(v: &RunResults, target: &str) -> RunResults {
    let mut v = v.clone();
    let t = target_mut(&mut v, target);
    t.status = TargetStatus::Crashed;
    let s = t.summary.as_mut().expect("a measured row has a summary");
    s.valid = false;
    s.valid_trials = 2;
    v
}

/// The run without the row of `target`.
fn without(v: &RunResults, target: &str) -> RunResults {
    let mut v = v.clone();
    v.scenarios[0].targets.retain(|t| t.name != target);
    v
}

/// A baseline with fixed figures: both rows valid, 3 trials each.
fn baseline() -> (tempfile::TempDir, RunResults) {
    let m = measured();
    assert_eq!(m.scenarios[0].targets[0].trials.len(), 3);
    let v = with_samples(m, "fx-good", &[1000.0, 1010.0, 990.0]);
    let v = with_samples(&v, "fx-chunked", &[2000.0, 2020.0, 1980.0]);
    (tempfile::tempdir().unwrap(), v)
}

/// `--fail-if-slower 5%`, with and without `--json`.
const GATE: &[&str] = &["--fail-if-slower", "5%"];
const GATE_JSON: &[&str] = &["--fail-if-slower", "5%", "--json"];

fn compare(base: &Path, candidate: &Path, args: &[&str]) -> Outcome {
    Gqlbench::compare(base, candidate).args(args).go()
}

fn row<'a>(c: &'a Comparison, target: &str) -> &'a CompareRow {
    c.rows
        .iter()
        .find(|r| r.target == target)
        .unwrap_or_else(|| panic!("no row for {target}"))
}

fn kinds(c: &Comparison) -> Vec<ProblemKind> {
    c.gate_failures.iter().map(|f| f.kind).collect()
}

/// A problem of one row of the scenario e2e/hello.
fn row_problem(kind: ProblemKind, target: &str, reason: &str) -> Problem {
    Problem {
        kind,
        scenario: Some("e2e/hello".into()),
        target: Some(target.into()),
        reason: reason.into(),
    }
}

#[test]
fn compare_fails_only_on_a_significant_regression() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    let same = save_run(
        dir.path(),
        "same",
        &with_samples(&a, "fx-good", &[1005.0, 995.0, 1000.0]),
    );
    let slow = save_run(
        dir.path(),
        "slow",
        &with_samples(&a, "fx-good", &[500.0, 505.0, 495.0]),
    );
    // 3% slower, clearly so (tight trials on both sides, so the whole interval is within
    // a 5% allowance).
    let tight = save_run(
        dir.path(),
        "tight",
        &with_samples(&a, "fx-good", &[1000.0, 1001.0, 999.0]),
    );
    let slightly = save_run(
        dir.path(),
        "slightly",
        &with_samples(&a, "fx-good", &[970.0, 971.0, 969.0]),
    );

    let out = compare(&base, &same, GATE_JSON);
    out.assert_exit(0);
    let c = out.comparison();
    assert_eq!(c.regressions, 0);
    assert_eq!(c.gate_passed, Some(true));
    assert!(c.gate_failures.is_empty(), "{:?}", c.gate_failures);
    assert_eq!(c.compared, 2);
    assert_eq!(c.rows.len(), 2);
    assert_eq!(row(&c, "fx-good").verdict, Verdict::NoSignificantChange);
    assert_eq!(
        row(&c, "fx-good").reason,
        "no significant change (interval includes 0)"
    );

    let out = compare(&base, &slow, GATE_JSON);
    out.assert_exit(1);
    let c = out.comparison();
    let r = row(&c, "fx-good");
    assert!(r.regression);
    assert_eq!(r.verdict, Verdict::Slower);
    assert!(
        r.reason
            .contains("a slowdown beyond the 5% allowance is within its interval"),
        "{}",
        r.reason
    );
    let change = r.rps_change.expect("a change of req/s");
    assert!((change.pct + 50.0).abs() < 0.5);
    assert!(change.significant);
    assert_eq!(c.regressions, 1);
    assert_eq!(c.gate_passed, Some(false));
    assert_eq!(
        c.gate_failures,
        [row_problem(ProblemKind::Slower, "fx-good", &r.reason)]
    );

    let out = compare(&tight, &slightly, GATE_JSON);
    out.assert_exit(0);
    let c = out.comparison();
    assert_eq!(row(&c, "fx-good").verdict, Verdict::SlowerWithinAllowance);
    assert!(
        row(&c, "fx-good")
            .reason
            .starts_with("slower (significant, -3.0%) but less than the 5% allowance"),
        "{}",
        row(&c, "fx-good").reason
    );

    // Without the gate the same comparison only reports.
    let out = compare(&base, &slow, &[]);
    out.assert_exit(0);
    assert!(out.stdout.contains("slower (significant)"));
    assert!(!out.stdout.contains("REGRESSION"));
}

/// `--format md` is what the CI workflow posts on a pull request: a markdown table with a
/// row per scenario × target, the gate's outcome in bold with its reasons, and cells that a
/// target's name cannot break out of.
#[test]
fn compare_writes_markdown_for_a_pull_request() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    // A target name with a pipe and a line break must stay inside its cell.
    let odd = "fx|good\nx";
    let mut a2 = a.clone();
    target_mut(&mut a2, "fx-good").name = odd.into();
    let mut slow = with_samples(&a, "fx-good", &[500.0, 505.0, 495.0]);
    target_mut(&mut slow, "fx-good").name = odd.into();
    let base2 = save_run(dir.path(), "base2", &a2);
    let slow = save_run(dir.path(), "slow", &slow);
    let out = compare(&base2, &slow, &["--fail-if-slower", "5%", "--format", "md"]);
    out.assert_exit(1);
    let md = &out.stdout;
    assert!(md.starts_with("### gqlbench comparison"), "{md}");
    let table: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    // Header, separator, and one row per target of e2e/hello (two).
    assert_eq!(table.len(), 4, "{md}");
    let cols = |l: &str| l.replace("\\|", "").matches('|').count();
    assert!(table.iter().all(|l| cols(l) == cols(table[0])), "{md}");
    let row = table
        .iter()
        .find(|l| l.contains("fx\\|good x"))
        .unwrap_or_else(|| panic!("escaped name missing: {md}"));
    assert!(row.contains("REGRESSION"), "{row}");
    assert!(
        md.contains("**gate --fail-if-slower 5%: FAILED, 1 reason(s):**"),
        "{md}"
    );
    // The same comparison without a slowdown: the gate passes, in bold too.
    let out = compare(&base, &base, &["--fail-if-slower", "5%", "--format", "md"]);
    out.assert_exit(0);
    assert!(
        out.stdout.contains("**gate --fail-if-slower 5%: passed"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("REGRESSION"));
    // --json and --format do not go together.
    compare(&base, &base, &["--json", "--format", "md"]).assert_exit(2);
}

#[test]
fn compare_gate_trips_when_the_runs_have_no_row_in_common() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    let mut other = a.clone();
    other.scenarios[0].name = "other".into();
    let other = save_run(dir.path(), "other", &other);

    let out = compare(&base, &other, GATE_JSON);
    out.assert_exit(1);
    let c = out.comparison();
    assert_eq!(c.in_common, 0);
    assert_eq!(c.compared, 0);
    assert_eq!(
        kinds(&c),
        [
            ProblemKind::NoRowsInCommon,
            ProblemKind::MissingInCandidate,
            ProblemKind::MissingInCandidate
        ]
    );
    let reason = &c.gate_failures[0].reason;
    assert!(
        reason.contains("baseline has e2e/hello (fx-chunked, fx-good)")
            && reason.contains("candidate has e2e/other (fx-chunked, fx-good)"),
        "{reason}"
    );

    let out = compare(&base, &other, GATE);
    out.assert_exit(1);
    let text = &out.stdout;
    assert!(text.contains("gate --fail-if-slower 5%: FAILED"), "{text}");
    assert!(!text.contains("passed"), "{text}");

    // Without a gate: exit 0, and the note still says why nothing was compared.
    let out = compare(&base, &other, &[]);
    out.assert_exit(0);
    assert!(out
        .stdout
        .contains("note: no row (scenario × target) in common"));
}

#[test]
fn compare_gate_trips_on_a_row_missing_from_the_candidate() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    let fewer = save_run(dir.path(), "fewer", &without(&a, "fx-chunked"));

    let out = compare(&base, &fewer, GATE_JSON);
    out.assert_exit(1);
    let c = out.comparison();
    assert_eq!(
        c.gate_failures,
        [row_problem(
            ProblemKind::MissingInCandidate,
            "fx-chunked",
            "missing from candidate (valid in baseline)"
        )]
    );
    assert_eq!(row(&c, "fx-chunked").verdict, Verdict::MissingInCandidate);
    assert!(row(&c, "fx-chunked").regression);
    assert_eq!(c.regressions, 1);

    let out = compare(&base, &fewer, GATE);
    out.assert_exit(1);
    assert!(out
        .stdout
        .contains("  - e2e/hello × fx-chunked: missing from candidate (valid in baseline)"));

    // The other way round the extra row is new, not a regression.
    let out = compare(&fewer, &base, GATE_JSON);
    out.assert_exit(0);
    assert_eq!(
        row(&out.comparison(), "fx-chunked").verdict,
        Verdict::OnlyInCandidate
    );
}

#[test]
fn compare_gate_trips_on_a_partial_run_whatever_its_status() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    for (status, name) in [
        (RunStatus::Running, "running"),
        (RunStatus::Interrupted, "interrupted"),
        (RunStatus::Failed, "failed"),
    ] {
        let mut partial = a.clone();
        partial.status = status;
        let partial = save_run(dir.path(), name, &partial);

        let out = compare(&base, &partial, GATE_JSON);
        assert_eq!(out.code, Some(1), "{name}");
        let c = out.comparison();
        assert_eq!(kinds(&c), [ProblemKind::PartialCandidate], "{name}");
        assert_eq!(c.candidate_status, status);
        let reason = &c.gate_failures[0].reason;
        assert!(
            reason.starts_with(&format!("candidate run is partial (status: {name}")),
            "{reason}"
        );
        // Every row is still compared and shown.
        assert_eq!(c.compared, 2);

        // A partial baseline leaves rows unchecked: the gate cannot vouch for them either.
        let out = compare(&partial, &base, GATE_JSON);
        assert_eq!(out.code, Some(1), "{name}");
        assert_eq!(
            kinds(&out.comparison()),
            [ProblemKind::PartialBaseline],
            "{name}"
        );

        let out = compare(&base, &partial, &[]);
        assert_eq!(out.code, Some(0), "{name}");
        assert!(out
            .stdout
            .contains(&format!("note: candidate run is partial (status: {name}")));
    }
}

#[test]
fn compare_refuses_a_gate_outside_0_to_100_percent() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    for bad in ["500%", "100.5", "0%", "0", "-5%", "five"] {
        let out = compare(&base, &base, &[&format!("--fail-if-slower={bad}")]);
        assert_eq!(out.code, Some(2), "{bad}");
        let err = &out.stderr;
        assert!(
            err.contains("--fail-if-slower") && err.contains("e.g. 5%"),
            "{bad}: {err}"
        );
        assert!(out.stdout.is_empty(), "{bad}");
    }
    let out = compare(&base, &base, &["--fail-if-slower", "100%"]);
    out.assert_exit(0);
}

#[test]
fn compare_names_too_few_trials_instead_of_noise() {
    let (dir, a) = baseline();
    // The reported row: -5.0% with an interval below 0, from 1 baseline trial.
    let base = save_run(dir.path(), "base", &with_samples(&a, "fx-good", &[1000.0]));
    let cand = save_run(
        dir.path(),
        "cand",
        &with_samples(&a, "fx-good", &[950.0, 910.0, 994.0]),
    );
    let out = compare(&base, &cand, GATE_JSON);
    // Too few trials cannot show a slowdown; the gate passes but says so.
    out.assert_exit(0);
    let c = out.comparison();
    let r = row(&c, "fx-good");
    assert_eq!(r.verdict, Verdict::TooFewTrials);
    assert_eq!(r.reason, "too few trials (1 in baseline, need 3)");
    assert_eq!(r.baseline_trials, Some(1));
    assert_eq!(r.candidate_trials, Some(3));

    let out = compare(&base, &cand, GATE);
    let text = &out.stdout;
    assert!(
        text.contains("too few trials (1 in baseline, need 3)"),
        "{text}"
    );
    assert!(!text.contains("within noise"), "{text}");
    assert!(
        text.contains("note: 1 row(s) have too few trials to call any change significant"),
        "{text}"
    );
}

#[test]
fn compare_gate_trips_on_a_row_broken_in_the_candidate_only() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    let broken = save_run(dir.path(), "broken", &crashed(&a, "fx-good"));
    let out = compare(&base, &broken, GATE_JSON);
    out.assert_exit(1);
    let c = out.comparison();
    assert_eq!(kinds(&c), [ProblemKind::CandidateInvalid]);
    assert_eq!(
        row(&c, "fx-good").reason,
        "not comparable: candidate invalid (CRASHED (2/3 trials valid)), valid in baseline"
    );

    // A row already broken in the baseline has nothing to regress from: listed, not a
    // failure, even when the candidate lacks it.
    let bad_base = save_run(dir.path(), "bad-base", &crashed(&a, "fx-chunked"));
    let fewer = save_run(dir.path(), "fewer", &without(&a, "fx-chunked"));
    let out = compare(&bad_base, &fewer, GATE_JSON);
    out.assert_exit(0);
    let c = out.comparison();
    let r = row(&c, "fx-chunked");
    assert_eq!(r.verdict, Verdict::BaselineInvalid);
    assert_eq!(
        r.reason,
        "not comparable: baseline invalid (CRASHED (2/3 trials valid)), missing from candidate"
    );
    assert!(!r.regression);

    // Broken everywhere in the baseline: nothing was compared, so the gate cannot pass.
    let all_bad = save_run(
        dir.path(),
        "all-bad",
        &crashed(&crashed(&a, "fx-chunked"), "fx-good"),
    );
    let out = compare(&all_bad, &base, GATE_JSON);
    out.assert_exit(1);
    assert_eq!(kinds(&out.comparison()), [ProblemKind::NothingCompared]);
}

#[test]
fn compare_exits_2_naming_the_file_it_cannot_read() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    let nowhere = dir.path().join("nowhere");
    let out = compare(&nowhere, &base, GATE);
    out.assert_exit(2);
    let err = &out.stderr;
    assert!(
        err.contains(&format!("baseline {}", nowhere.display()))
            && err.contains("pass a run folder (holding results.json)"),
        "{err}"
    );

    let bogus = dir.path().join("bogus.json");
    std::fs::write(&bogus, r#"{"hello": 1}"#).unwrap();
    let out = compare(&base, &bogus, GATE);
    out.assert_exit(2);
    let err = &out.stderr;
    assert!(
        err.contains(&format!("candidate {}", bogus.display())) && err.contains("schema_version"),
        "{err}"
    );
}

#[test]
fn a_candidate_with_a_throughput_no_run_measures_is_damaged_input() {
    let (dir, a) = baseline();
    let base = save_run(dir.path(), "base", &a);
    // Edited results: a valid row at 0 req/s, or below it. The gate would pass and blame
    // the baseline; the file is refused instead, naming it and the field.
    for (name, samples, field) in [
        ("zero", [0.0, 0.0, 0.0], "summary.rps.samples[0] is 0"),
        (
            "negative",
            [1000.0, -1010.0, 990.0],
            "summary.rps.samples[1] is -1010",
        ),
    ] {
        let bad = save_run(dir.path(), name, &with_samples(&a, "fx-good", &samples));
        let out = compare(&base, &bad, GATE);
        out.assert_exit(2);
        let err = &out.stderr;
        let file = bad.join("results.json").display().to_string();
        assert!(
            err.contains(&file) && err.contains(field) && err.contains("target fx-good"),
            "{err}"
        );
        assert!(
            err.contains("the candidate is damaged or was edited"),
            "{err}"
        );
        // The same file as the baseline: named as the baseline.
        let out = compare(&bad, &base, GATE);
        out.assert_exit(2);
        assert!(
            out.stderr.contains("the baseline is damaged"),
            "{}",
            out.stderr
        );
    }
    // A trial's own figure edited the same way.
    let mut edited = a.clone();
    target_mut(&mut edited, "fx-chunked").trials[1]
        .load
        .throughput_rps = -1.0;
    let bad = save_run(dir.path(), "trial", &edited);
    let out = compare(&base, &bad, GATE);
    out.assert_exit(2);
    assert!(
        out.stderr.contains("trials[1].load.throughput_rps is -1"),
        "{}",
        out.stderr
    );
    // What gqlbench wrote passes.
    compare(&base, &base, GATE).assert_exit(0);
}

#[test]
fn report_rerenders_a_saved_run_and_rejects_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let saved = save_run(dir.path(), "a", measured());
    let out = Gqlbench::report(&saved).args(["--format", "md"]).go();
    assert!(out.success());
    let md = &out.stdout;
    assert!(
        md.contains("## e2e/hello") && md.contains("fx-good") && md.contains("req/s [95% CI]"),
        "{md}"
    );

    let bogus = dir.path().join("bogus.json");
    std::fs::write(&bogus, r#"{"hello": 1}"#).unwrap();
    let out = Gqlbench::report(&bogus).go();
    out.assert_exit(2);
    assert!(out.stderr.contains("schema_version"));
}

/// A step of a connection sweep.
fn step(connections: u32, rps: f64, p50_us: u64, p99_us: u64, failed: u64) -> SweepStep {
    SweepStep {
        rate: None,
        connections: Some(connections),
        achieved_rps: rps,
        p50_us,
        p99_us,
        failed,
        flags: vec![],
        held: failed == 0,
        phase: None,
        verdict: None,
        reason: None,
    }
}

#[test]
fn report_exports_json_terminal_and_the_chart_csvs() {
    let dir = tempfile::tempdir().unwrap();
    let saved = save_run(dir.path(), "a", measured());
    let out = Gqlbench::report(&saved).args(["--format", "json"]).go();
    assert!(out.success());
    let v = out.results();
    assert_eq!(v.scenarios[0].name, "hello");
    assert_eq!(v.schema_version, measured().schema_version);
    let out = Gqlbench::report(&saved).args(["--format", "terminal"]).go();
    assert!(out.success());
    assert!(out.stdout.contains("e2e/hello — "), "{}", out.stdout);

    // Nothing to chart: said, and nothing written.
    let out = Gqlbench::report(&saved).args(["--format", "csv"]).go();
    assert!(out.success());
    assert!(out.stderr.contains("no chart data in this run"));
    assert!(out.stdout.is_empty());
    let csvs = |p: &Path| {
        std::fs::read_dir(p)
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| n.ends_with(".csv"))
            .count()
    };
    assert_eq!(csvs(&saved), 0);

    // The same run as a connection sweep: its CSV is written into the run folder, named.
    let mut swept = measured().clone();
    swept.scenarios[0].connection_sweep = Some(vec![1, 4]);
    target_mut(&mut swept, "fx-good").trials[0].sweep = Some(vec![
        step(1, 100.0, 1000, 2500, 0),
        step(4, 300.0, 3000, 8000, 2),
    ]);
    let saved = save_run(dir.path(), "swept", &swept);
    let out = Gqlbench::report(saved.join("results.json"))
        .args(["--format", "csv"])
        .go();
    assert!(out.success());
    let file = saved.join("sweep-hello.csv");
    assert!(out.stderr.contains(&format!("wrote {}", file.display())));
    let csv = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        csv,
        "target,trial,connections,rps,p50_ms,p99_ms,failed\n\
         fx-good,1,1,100.0,1.000,2.500,0\n\
         fx-good,1,4,300.0,3.000,8.000,2\n"
    );
    assert_eq!(csvs(&saved), 1);
}

/// The run with every trial of `target` at the given req/s (round by round) and every
/// canary timing multiplied by `slower_machine`; the row valid, its summary left as is.
fn with_trials_and_machine(
    v: &RunResults,
    target: &str,
    rps: &[f64],
    slower_machine: f64,
) -> RunResults {
    let mut v = v.clone();
    let rounds = v.scenarios[0]
        .rounds
        .as_mut()
        .expect("rounds with canaries");
    // The same canary time in every round (the measured ones vary with the machine, and
    // would widen the interval), scaled by how much slower this machine ran.
    for p in &mut rounds.canary {
        p.ms = vec![Some(4.0 * slower_machine); p.ms.len().max(1)];
    }
    let t = target_mut(&mut v, target);
    t.status = TargetStatus::Ok;
    let mut samples = Vec::new();
    for (tr, x) in t
        .trials
        .iter_mut()
        .filter(|x| x.excluded.is_none())
        .zip(rps)
    {
        tr.valid = true;
        tr.saturation.clear();
        tr.load.throughput_rps = *x;
        samples.push(*x);
    }
    let s = t.summary.as_mut().expect("a summary");
    s.valid = true;
    s.saturated = false;
    s.rps.samples = samples;
    v
}

#[test]
fn a_slower_machine_is_told_apart_from_a_slower_build_by_the_canary() {
    let m = measured();
    let dir = tempfile::tempdir().unwrap();
    let a = with_trials_and_machine(m, "fx-good", &[1000.0, 1010.0, 990.0], 1.0);
    // The machine ran 10% slower (canary 10% longer) and so did the target: same build.
    let same_build = with_trials_and_machine(m, "fx-good", &[909.1, 918.2, 900.0], 1.1);
    // The machine ran as fast, the target 10% slower: a regression.
    let slower_build = with_trials_and_machine(m, "fx-good", &[909.1, 918.2, 900.0], 1.0);
    let base = save_run(dir.path(), "a", &a);

    let out = compare(&base, &save_run(dir.path(), "same", &same_build), GATE_JSON);
    out.assert_exit(0);
    let r = row(&out.comparison(), "fx-good").clone();
    assert!(r.speed_adjusted, "{r:?}");
    assert_eq!(r.verdict, Verdict::NoSignificantChange, "{}", r.reason);
    let m_change = r.machine_speed_change_pct.unwrap();
    assert!((m_change + 9.1).abs() < 0.2, "{m_change}");
    assert!(r.reason.contains("scaled by the canary"), "{}", r.reason);

    let out = compare(
        &base,
        &save_run(dir.path(), "slower", &slower_build),
        GATE_JSON,
    );
    out.assert_exit(1);
    let r = row(&out.comparison(), "fx-good").clone();
    assert_eq!(r.verdict, Verdict::Slower, "{}", r.reason);
    assert!((r.rps_change.unwrap().pct + 9.1).abs() < 0.5);
}

/// `v` with four more rows copied from fx-good (fx-row0 .. fx-row3): six rows in all, each
/// standing for its own pair of target processes.
fn six_rows(v: &RunResults) -> RunResults {
    let mut v = v.clone();
    let good = target(&v, 0, "fx-good").clone();
    for i in 0..4 {
        let mut t = good.clone();
        t.name = format!("fx-row{i}");
        v.scenarios[0].targets.push(t);
    }
    v
}

/// Every row's trials: `base` req/s scaled by `level`, with the same ±0.1% spread.
fn rows_at(v: &RunResults, levels: &[(&str, f64)]) -> RunResults {
    levels.iter().fold(v.clone(), |v, (name, level)| {
        let t: Vec<f64> = [1000.0, 1001.0, 999.0, 1000.5, 999.5]
            .iter()
            .map(|x| x * level)
            .collect();
        with_samples(&v, name, &t)
    })
}

/// An A/A comparison of real targets: each process carries its own luck, so the rows'
/// changes scatter far beyond their tight within-run intervals. The interval of one row
/// alone would call its -7% a regression; widened by the scatter the six rows show, it
/// does not trip the gate. A slowdown of every row by 15% still does.
#[test]
fn compare_widens_each_interval_by_the_scatter_between_process_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let v = six_rows(measured());
    let names = [
        "fx-good",
        "fx-chunked",
        "fx-row0",
        "fx-row1",
        "fx-row2",
        "fx-row3",
    ];
    let base = rows_at(&v, &names.map(|n| (n, 1.0)));
    let luck = [1.03, 0.93, 1.02, 0.97, 1.04, 0.99];
    let aa = rows_at(&v, &std::array::from_fn::<_, 6, _>(|i| (names[i], luck[i])));
    let (base, aa) = (
        save_run(dir.path(), "a", &base),
        save_run(dir.path(), "a2", &aa),
    );
    let out = compare(&base, &aa, GATE_JSON);
    let c = out.comparison();
    let between = c.between_processes.expect("estimated over six rows");
    assert_eq!(between.rows, 6);
    assert!(between.sd_pct() > 2.0, "{between:?}");
    let r = row(&c, "fx-chunked");
    let change = r.rps_change.unwrap();
    assert!((change.pct + 7.0).abs() < 0.1, "{change:?}");
    assert!(!r.regression, "{}", r.reason);
    assert!(c
        .notes
        .iter()
        .any(|n| n.contains("variance between target processes")));
    out.assert_exit(0);
    // The same row judged on its own interval (no other rows to show the scatter) trips.
    let alone = |v: &RunResults| {
        let mut v = v.clone();
        v.scenarios[0].targets.retain(|t| t.name == "fx-chunked");
        v
    };
    let (b1, a1) = (
        save_run(dir.path(), "b1", &alone(&read_results(&base))),
        save_run(dir.path(), "a1", &alone(&read_results(&aa))),
    );
    let out = compare(&b1, &a1, GATE_JSON);
    let c = out.comparison();
    assert!(c.between_processes.is_none());
    assert!(
        c.notes.iter().any(|n| n.contains("could not be estimated")),
        "{:?}",
        c.notes
    );
    assert!(row(&c, "fx-chunked").regression);
    out.assert_exit(1);
    // Every row 15% slower, each with its own luck: still a regression in every row.
    let slow = rows_at(
        &v,
        &std::array::from_fn::<_, 6, _>(|i| (names[i], luck[i] * 0.85)),
    );
    let slow = save_run(dir.path(), "slow", &slow);
    let out = compare(&aa, &slow, GATE_JSON);
    let c = out.comparison();
    assert_eq!(c.regressions, 6, "{:?}", c.rows);
    out.assert_exit(1);
}
