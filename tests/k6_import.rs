//! End-to-end round trip: `gqlbench export k6` → the real k6 (v1.8.1, tools/k6) for 2 s
//! against a fixture server → `gqlbench import k6` → `report` and `compare`. The import
//! leaves the warm-up out, agrees with k6's own counts, labels the run as k6's, marks a
//! row with failed checks invalid (exit 1), and refuses files that are not k6 output
//! (exit 2, naming the file).
mod common;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// Exports e2e/hello against `url` into `dir` and runs k6 on it: 1 s warm-up, `secs` measured.
fn k6_round(dir: &Path, url: &str, secs: &str) -> (Option<i32>, serde_json::Value) {
    Gqlbench::new([
        "export",
        "k6",
        "e2e/hello",
        "--profile",
        "quick",
        "--url",
        url,
    ])
    .args(["--warmup", "1s", "--duration", secs, "--out"])
    .arg(dir)
    .root(fixtures())
    .go()
    .assert_exit(0);
    let out = Command::new(k6_binary())
        .args([
            "run",
            "--quiet",
            "--no-color",
            "--summary-export=summary.json",
        ])
        .args(["--out", "json=points.json", "script.js"])
        .current_dir(dir)
        .env("K6_NO_USAGE_REPORT", "true")
        .output()
        .expect("running k6");
    let summary = std::fs::read_to_string(dir.join("summary.json"))
        .unwrap_or_else(|e| panic!("no summary ({e}): {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), serde_json::from_str(&summary).unwrap())
}

fn import(files: &[PathBuf], out: &Path) -> Outcome {
    Gqlbench::new(["import", "k6", "--k6-version", "v1.8.1", "--json"])
        .args(files)
        .arg("--out")
        .arg(out)
        .go()
}

#[test]
fn k6_output_round_trips_into_reports_and_compare() {
    let dir = tempfile::tempdir().unwrap();
    let good = start_fixture_server("good");
    let run = dir.path().join("good");
    let (code, summary) = k6_round(&run, &good.url, "2s");
    assert_eq!(code, Some(0));
    let o = import(
        &[run.join("points.json"), run.join("summary.json")],
        &dir.path().join("imp"),
    );
    o.assert_exit(0);
    let r = o.results();
    assert_eq!(r.engine, "k6 v1.8.1");
    let info = r.import.as_ref().expect("import info");
    assert!(info.unmeasured.iter().any(|u| u == "target CPU"));
    let s = &r.scenarios[0];
    // Suite and scenario from gqlbench-export.json beside the files.
    assert_eq!((s.suite.as_str(), s.name.as_str()), ("e2e", "hello"));
    let t = &s.targets[0];
    let load = &t.trials[0].load;
    // The measured requests are those of k6's `measured` scenario: its checks (three per
    // request) in k6's own summary, the warm-up's left out.
    let measured_checks = summary["metrics"]["checks{scenario:measured}"]["passes"]
        .as_u64()
        .unwrap();
    assert_eq!(load.requests * 3, measured_checks);
    let all = summary["metrics"]["http_reqs"]["count"].as_u64().unwrap();
    assert_eq!(load.requests + load.warmup_requests, all);
    assert!(load.warmup_requests > 0 && load.requests > 100);
    assert!(t.trials[0].valid && t.summary.as_ref().unwrap().valid);
    // The histogram's p99 and k6's (over the whole test) are of one distribution.
    let k6_p99_us = summary["metrics"]["http_req_duration"]["p(99)"]
        .as_f64()
        .unwrap()
        * 1000.0;
    let ours = load.latency.p99_us as f64;
    assert!(
        ours > k6_p99_us / 3.0 && ours < k6_p99_us * 3.0,
        "p99 {ours} vs k6 {k6_p99_us}"
    );
    assert!(
        !load.series.is_empty() && load.series.len() <= 3,
        "{:?}",
        load.series.len()
    );
    // Not measured by k6: a dash, not a zero.
    let sum = t.summary.as_ref().unwrap();
    assert_eq!((sum.cpu_avg_pct, sum.rss_peak_bytes), (None, None));

    // report renders it, saying who measured it; compare reads two imports.
    let imp = dir.path().join("imp");
    let md = Gqlbench::report(&imp).go();
    md.assert_exit(0);
    assert!(
        md.stdout.contains("measured by k6 v1.8.1, not by gqlbench"),
        "{}",
        md.stdout
    );
    let html = Gqlbench::report(&imp).args(["--format", "html"]).go();
    html.assert_exit(0);
    assert!(html.stdout.contains("measured by k6 v1.8.1"));
    let again = dir.path().join("imp2");
    import(&[run.join("points.json")], &again).assert_exit(0);
    let c = Gqlbench::compare(&imp, &again).go();
    c.assert_exit(0);
    assert!(
        c.stdout.contains("fx-good") || c.stdout.contains("127.0.0.1"),
        "{}",
        c.stdout
    );

    // A summary alone: k6's figures for the whole test, said so.
    let o = import(&[run.join("summary.json")], &dir.path().join("sum"));
    o.assert_exit(0);
    let r = o.results();
    assert_eq!(r.scenarios[0].targets[0].trials[0].load.requests, all);
    assert!(r
        .import
        .unwrap()
        .notes
        .iter()
        .any(|n| n.contains("warm-up included")));
}

#[test]
fn failed_checks_make_the_imported_row_invalid() {
    let dir = tempfile::tempdir().unwrap();
    let wrong = start_fixture_server("wrong");
    let run = dir.path().join("wrong");
    let (code, _) = k6_round(&run, &wrong.url, "1s");
    assert_eq!(code, Some(99), "the export's threshold fails the k6 run");
    let o = import(&[run.join("points.json")], &dir.path().join("imp"));
    o.assert_exit(1);
    let r = o.results();
    let t = &r.scenarios[0].targets[0];
    assert!(!t.trials[0].valid);
    let by = &t.summary.as_ref().unwrap().failures_by_kind;
    assert_eq!(by.keys().collect::<Vec<_>>(), vec!["wrong_data"], "{by:?}");
    assert_eq!(t.trials[0].load.failed, t.trials[0].load.requests);
}

#[test]
fn files_that_are_not_k6_output_are_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("data.csv"), "metric_name,timestamp\nhttp_reqs,1\n").unwrap();
    std::fs::write(d.join("other.json"), "{\"hello\": 1}").unwrap();
    std::fs::write(d.join("results.json"), "{\"schema_version\": 3}").unwrap();
    std::fs::write(
        d.join("broken.json"),
        "{\"type\":\"Point\",\"metric\":\"http_reqs\",\"data\":{\"time\":\"2026-01-01T00:00:00Z\",\"value\":1,\"tags\":{}}}\n{\"type\":\"Point\",\"metric\":\"http_req_duration\",\"data\":{\"time\":\"yesterday\",\"value\":1}}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("trunc.json"),
        "{\"type\":\"Metric\",\"metric\":\"http_reqs\",\"data\":{}}\n{\"type\":\"Poi",
    )
    .unwrap();
    let cases = [
        ("data.csv", "data.csv: is neither"),
        (
            "other.json",
            "other.json: is JSON without a `metrics` object",
        ),
        ("results.json", "is a gqlbench results file"),
        ("broken.json", "broken.json: line 2: data.time 'yesterday'"),
        (
            "trunc.json",
            "trunc.json: line 2: not one of k6's JSON lines",
        ),
        ("missing.json", "missing.json: cannot be read"),
    ];
    for (file, want) in cases {
        let o = import(&[d.join(file)], &d.join("out"));
        o.assert_exit(2);
        assert!(
            o.stderr.contains(want),
            "{file}: want '{want}' in {}",
            o.stderr
        );
    }
    assert!(!d.join("out").exists(), "nothing written on bad input");
}
