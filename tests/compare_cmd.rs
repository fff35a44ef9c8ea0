//! End-to-end: `report` re-renders a saved run; `compare` gives every row a verdict with its
//! real reason, and its gate (`--fail-if-slower`) exits 1 naming every cause: a significant
//! slowdown beyond the allowance, a row broken or missing in the candidate, a partial run,
//! nothing in common. Bad input exits 2. One real short run is made per test binary; the
//! baselines and candidates are that run's JSON with figures edited, so the verdicts do not
//! depend on how noisy the machine is.
mod common;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use common::*;
use serde_json::{json, Value};

fn saved_run() -> Value {
    let dir = tempfile::tempdir().unwrap();
    let out = run(bin()
        .arg("--root")
        .arg(fixtures())
        .args([
            "run",
            "e2e",
            "--scenarios",
            "hello",
            "--targets",
            "fx-good,fx-chunked",
            "--trials",
            "3",
            "--duration",
            "300ms",
            "--out",
        ])
        .arg(dir.path().join("a")));
    assert!(out.status.success());
    serde_json::from_slice(&std::fs::read(dir.path().join("a/results.json")).unwrap()).unwrap()
}

/// The real run, made once and shared by the tests of this file.
fn measured() -> &'static Value {
    static RUN: OnceLock<Value> = OnceLock::new();
    RUN.get_or_init(saved_run)
}

fn target_mut<'a>(v: &'a mut Value, name: &str) -> &'a mut Value {
    v["scenarios"][0]["targets"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("target {name} missing"))
}

/// The same run with one target's req/s samples replaced (what another build would have
/// measured), the row marked valid.
fn with_samples(v: &Value, target: &str, samples: &[f64]) -> Value {
    let mut v = v.clone();
    let t = target_mut(&mut v, target);
    t["status"] = json!("ok");
    let s = &mut t["summary"];
    s["valid"] = json!(true);
    s["saturated"] = json!(false);
    s["trials"] = json!(samples.len());
    s["valid_trials"] = json!(samples.len());
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    s["rps"]["median"] = sorted[sorted.len() / 2].into();
    s["rps"]["samples"] = json!(samples);
    v
}

/// The row made invalid the way a crash mid-run leaves it.
fn crashed(v: &Value, target: &str) -> Value {
    let mut v = v.clone();
    let t = target_mut(&mut v, target);
    t["status"] = json!("crashed");
    t["summary"]["valid"] = json!(false);
    t["summary"]["valid_trials"] = json!(2);
    v
}

/// A baseline with fixed figures: both rows valid, 3 trials each.
fn baseline() -> (tempfile::TempDir, Value) {
    let m = measured();
    assert_eq!(
        m["scenarios"][0]["targets"][0]["trials"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let v = with_samples(m, "fx-good", &[1000.0, 1010.0, 990.0]);
    let v = with_samples(&v, "fx-chunked", &[2000.0, 2020.0, 1980.0]);
    (tempfile::tempdir().unwrap(), v)
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(p.join("results.json"), serde_json::to_vec(v).unwrap()).unwrap();
    p
}

fn compare(base: &Path, candidate: &Path, args: &[&str]) -> Output {
    run(bin().arg("compare").arg(base).arg(candidate).args(args))
}

fn row<'a>(c: &'a Value, target: &str) -> &'a Value {
    c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["target"] == target)
        .unwrap_or_else(|| panic!("no row for {target}"))
}

fn kinds(c: &Value) -> Vec<String> {
    c["gate_failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn compare_fails_only_on_a_significant_regression() {
    let (dir, a) = baseline();
    let base = write(dir.path(), "base", &a);
    let same = write(
        dir.path(),
        "same",
        &with_samples(&a, "fx-good", &[1005.0, 995.0, 1000.0]),
    );
    let slow = write(
        dir.path(),
        "slow",
        &with_samples(&a, "fx-good", &[500.0, 505.0, 495.0]),
    );
    // 3% slower, clearly so: within a 5% allowance.
    let slightly = write(
        dir.path(),
        "slightly",
        &with_samples(&a, "fx-good", &[970.0, 979.7, 960.3]),
    );

    let out = compare(&base, &same, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let c = json(&out);
    assert_eq!(c["regressions"], 0);
    assert_eq!(c["gate_passed"], true);
    assert_eq!(c["gate_failures"], json!([]));
    assert_eq!(c["compared"], 2);
    assert_eq!(c["rows"].as_array().unwrap().len(), 2);
    assert_eq!(row(&c, "fx-good")["verdict"], "no_significant_change");
    assert_eq!(
        row(&c, "fx-good")["reason"],
        "no significant change (interval includes 0)"
    );

    let out = compare(&base, &slow, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let c = json(&out);
    let r = row(&c, "fx-good");
    assert_eq!(r["regression"], true);
    assert_eq!(r["verdict"], "slower");
    assert_eq!(r["reason"], "slower (significant), beyond the 5% allowance");
    assert!((r["rps_change"]["pct"].as_f64().unwrap() + 50.0).abs() < 0.5);
    assert_eq!(r["rps_change"]["significant"], true);
    assert_eq!(c["regressions"], 1);
    assert_eq!(c["gate_passed"], false);
    assert_eq!(
        c["gate_failures"],
        json!([{"kind": "slower", "scenario": "e2e/hello", "target": "fx-good",
                "reason": "slower (significant), beyond the 5% allowance"}])
    );

    let out = compare(&base, &slightly, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let c = json(&out);
    assert_eq!(row(&c, "fx-good")["verdict"], "slower_within_allowance");
    assert_eq!(
        row(&c, "fx-good")["reason"],
        "slower (significant) but within the 5% allowance"
    );

    // Without the gate the same comparison only reports.
    let out = compare(&base, &slow, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("slower (significant)"));
    assert!(!stdout(&out).contains("REGRESSION"));
}

#[test]
fn compare_gate_trips_when_the_runs_have_no_row_in_common() {
    let (dir, a) = baseline();
    let base = write(dir.path(), "base", &a);
    let mut other = a.clone();
    other["scenarios"][0]["name"] = json!("other");
    let other = write(dir.path(), "other", &other);

    let out = compare(&base, &other, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let c = json(&out);
    assert_eq!(c["in_common"], 0);
    assert_eq!(c["compared"], 0);
    assert_eq!(
        kinds(&c),
        [
            "no_rows_in_common",
            "missing_in_candidate",
            "missing_in_candidate"
        ]
    );
    let reason = c["gate_failures"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("baseline has e2e/hello (fx-chunked, fx-good)")
            && reason.contains("candidate has e2e/other (fx-chunked, fx-good)"),
        "{reason}"
    );

    let out = compare(&base, &other, &["--fail-if-slower", "5%"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("gate --fail-if-slower 5%: FAILED"), "{text}");
    assert!(!text.contains("passed"), "{text}");

    // Without a gate: exit 0, and the note still says why nothing was compared.
    let out = compare(&base, &other, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("note: no row (scenario × target) in common"));
}

#[test]
fn compare_gate_trips_on_a_row_missing_from_the_candidate() {
    let (dir, a) = baseline();
    let base = write(dir.path(), "base", &a);
    let mut fewer = a.clone();
    fewer["scenarios"][0]["targets"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["name"] != "fx-chunked");
    let fewer = write(dir.path(), "fewer", &fewer);

    let out = compare(&base, &fewer, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let c = json(&out);
    assert_eq!(
        c["gate_failures"],
        json!([{"kind": "missing_in_candidate", "scenario": "e2e/hello",
                "target": "fx-chunked", "reason": "missing from candidate (valid in baseline)"}])
    );
    assert_eq!(row(&c, "fx-chunked")["verdict"], "missing_in_candidate");
    assert_eq!(row(&c, "fx-chunked")["regression"], true);
    assert_eq!(c["regressions"], 1);

    let out = compare(&base, &fewer, &["--fail-if-slower", "5%"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out)
        .contains("  - e2e/hello × fx-chunked: missing from candidate (valid in baseline)"));

    // The other way round the extra row is new, not a regression.
    let out = compare(&fewer, &base, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        row(&json(&out), "fx-chunked")["verdict"],
        "only_in_candidate"
    );
}

#[test]
fn compare_gate_trips_on_a_partial_run_whatever_its_status() {
    let (dir, a) = baseline();
    let base = write(dir.path(), "base", &a);
    for status in ["running", "interrupted", "failed"] {
        let mut partial = a.clone();
        partial["status"] = json!(status);
        let partial = write(dir.path(), status, &partial);

        let out = compare(&base, &partial, &["--fail-if-slower", "5%", "--json"]);
        assert_eq!(out.status.code(), Some(1), "{status}");
        let c = json(&out);
        assert_eq!(kinds(&c), ["partial_candidate"], "{status}");
        assert_eq!(c["candidate_status"], status);
        let reason = c["gate_failures"][0]["reason"].as_str().unwrap();
        assert!(
            reason.starts_with(&format!("candidate run is partial (status: {status}")),
            "{reason}"
        );
        // Every row is still compared and shown.
        assert_eq!(c["compared"], 2);

        // A partial baseline leaves rows unchecked: the gate cannot vouch for them either.
        let out = compare(&partial, &base, &["--fail-if-slower", "5%", "--json"]);
        assert_eq!(out.status.code(), Some(1), "{status}");
        assert_eq!(kinds(&json(&out)), ["partial_baseline"], "{status}");

        let out = compare(&base, &partial, &[]);
        assert_eq!(out.status.code(), Some(0), "{status}");
        assert!(stdout(&out).contains(&format!("note: candidate run is partial (status: {status}")));
    }
}

#[test]
fn compare_refuses_a_gate_outside_0_to_100_percent() {
    let (dir, a) = baseline();
    let base = write(dir.path(), "base", &a);
    for bad in ["500%", "100.5", "0%", "0", "-5%", "five"] {
        let out = run(bin()
            .arg("compare")
            .arg(&base)
            .arg(&base)
            .arg(format!("--fail-if-slower={bad}")));
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = stderr(&out);
        assert!(
            err.contains("--fail-if-slower") && err.contains("e.g. 5%"),
            "{bad}: {err}"
        );
        assert!(out.stdout.is_empty(), "{bad}");
    }
    let out = compare(&base, &base, &["--fail-if-slower", "100%"]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn compare_names_too_few_trials_instead_of_noise() {
    let (dir, a) = baseline();
    // The reported row: -5.0% with an interval below 0, from 1 baseline trial.
    let base = write(dir.path(), "base", &with_samples(&a, "fx-good", &[1000.0]));
    let cand = write(
        dir.path(),
        "cand",
        &with_samples(&a, "fx-good", &[950.0, 910.0, 994.0]),
    );
    let out = compare(&base, &cand, &["--fail-if-slower", "5%", "--json"]);
    // Too few trials cannot show a slowdown; the gate passes but says so.
    assert_eq!(out.status.code(), Some(0));
    let c = json(&out);
    let r = row(&c, "fx-good");
    assert_eq!(r["verdict"], "too_few_trials");
    assert_eq!(r["reason"], "too few trials (1 in baseline, need 3)");
    assert_eq!(r["baseline_trials"], 1);
    assert_eq!(r["candidate_trials"], 3);

    let out = compare(&base, &cand, &["--fail-if-slower", "5%"]);
    let text = stdout(&out);
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
    let base = write(dir.path(), "base", &a);
    let broken = write(dir.path(), "broken", &crashed(&a, "fx-good"));
    let out = compare(&base, &broken, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let c = json(&out);
    assert_eq!(kinds(&c), ["candidate_invalid"]);
    assert_eq!(
        row(&c, "fx-good")["reason"],
        "not comparable: candidate invalid (CRASHED (2/3 trials valid)), valid in baseline"
    );

    // A row already broken in the baseline has nothing to regress from: listed, not a
    // failure, even when the candidate lacks it.
    let bad_base = write(dir.path(), "bad-base", &crashed(&a, "fx-chunked"));
    let mut fewer = a.clone();
    fewer["scenarios"][0]["targets"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["name"] != "fx-chunked");
    let fewer = write(dir.path(), "fewer", &fewer);
    let out = compare(&bad_base, &fewer, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let c = json(&out);
    let r = row(&c, "fx-chunked");
    assert_eq!(r["verdict"], "baseline_invalid");
    assert_eq!(
        r["reason"],
        "not comparable: baseline invalid (CRASHED (2/3 trials valid)), missing from candidate"
    );
    assert_eq!(r["regression"], false);

    // Broken everywhere in the baseline: nothing was compared, so the gate cannot pass.
    let all_bad = write(
        dir.path(),
        "all-bad",
        &crashed(&crashed(&a, "fx-chunked"), "fx-good"),
    );
    let out = compare(&all_bad, &base, &["--fail-if-slower", "5%", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(kinds(&json(&out)), ["nothing_compared"]);
}

#[test]
fn compare_exits_2_naming_the_file_it_cannot_read() {
    let (dir, a) = baseline();
    let base = write(dir.path(), "base", &a);
    let nowhere = dir.path().join("nowhere");
    let out = compare(&nowhere, &base, &["--fail-if-slower", "5%"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("baseline {}", nowhere.display()))
            && err.contains("pass a run folder (holding results.json)"),
        "{err}"
    );

    let bogus = dir.path().join("bogus.json");
    std::fs::write(&bogus, r#"{"hello": 1}"#).unwrap();
    let out = compare(&base, &bogus, &["--fail-if-slower", "5%"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("candidate {}", bogus.display())) && err.contains("schema_version"),
        "{err}"
    );
}

#[test]
fn report_rerenders_a_saved_run_and_rejects_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let saved = write(dir.path(), "a", measured());
    let out = run(bin().arg("report").arg(&saved).args(["--format", "md"]));
    assert!(out.status.success());
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(
        md.contains("## e2e/hello") && md.contains("fx-good") && md.contains("req/s median"),
        "{md}"
    );

    let bogus = dir.path().join("bogus.json");
    std::fs::write(&bogus, r#"{"hello": 1}"#).unwrap();
    let out = run(bin().arg("report").arg(&bogus));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("schema_version"));
}

#[test]
fn report_exports_json_terminal_and_the_chart_csvs() {
    let dir = tempfile::tempdir().unwrap();
    let saved = write(dir.path(), "a", measured());
    let out = run(bin().arg("report").arg(&saved).args(["--format", "json"]));
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["scenarios"][0]["name"], "hello");
    assert_eq!(v["schema_version"], measured()["schema_version"]);
    let out = run(bin()
        .arg("report")
        .arg(&saved)
        .args(["--format", "terminal"]));
    assert!(out.status.success());
    assert!(stdout(&out).contains("e2e/hello — "), "{}", stdout(&out));

    // Nothing to chart: said, and nothing written.
    let out = run(bin().arg("report").arg(&saved).args(["--format", "csv"]));
    assert!(out.status.success());
    assert!(stderr(&out).contains("no chart data in this run"));
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
    swept["scenarios"][0]["connection_sweep"] = json!([1, 4]);
    let t = target_mut(&mut swept, "fx-good");
    t["trials"][0]["sweep"] = json!([
        {"connections": 1, "achieved_rps": 100.0, "p50_us": 1000, "p99_us": 2500,
         "failed": 0, "flags": [], "held": true},
        {"connections": 4, "achieved_rps": 300.0, "p50_us": 3000, "p99_us": 8000,
         "failed": 2, "flags": [], "held": false}
    ]);
    let saved = write(dir.path(), "swept", &swept);
    let out = run(bin()
        .arg("report")
        .arg(saved.join("results.json"))
        .args(["--format", "csv"]));
    assert!(out.status.success());
    let file = saved.join("sweep-hello.csv");
    assert!(stderr(&out).contains(&format!("wrote {}", file.display())));
    let csv = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        csv,
        "target,trial,connections,rps,p50_ms,p99_ms,failed\n\
         fx-good,1,1,100.0,1.000,2.500,0\n\
         fx-good,1,4,300.0,3.000,8.000,2\n"
    );
    assert_eq!(csvs(&saved), 1);
}
