//! End-to-end round trip: `gqlbench export k6` → the real k6 (v1.8.1, tools/k6) for 2 s
//! against a fixture server → `gqlbench import k6` → `report` and `compare`. The import
//! leaves the warm-up out, agrees with k6's own counts, labels the run as k6's, marks a
//! row with failed checks invalid (exit 1) and one where k6 dropped iterations saturated,
//! and refuses files that are not k6 output (exit 2, naming the file). A TestRun's pods,
//! run as the operator runs them, come back through the README's commands, gzipped; a
//! pod's file missing or a file given twice is refused. A summary's unmeasured
//! percentiles are null and "-", and a window too short to give a rate is refused.
use crate::common;
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
    // A gzipped output cut short (a runner killed before k6 closed it).
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    for i in 0..2000 {
        std::io::Write::write_all(
            &mut gz,
            format!("{{\"type\":\"Point\",\"metric\":\"http_reqs\",\"data\":{{\"time\":\"2026-01-01T00:00:0{}Z\",\"value\":1,\"tags\":{{}}}}}}\n", i % 10).as_bytes(),
        )
        .unwrap();
    }
    let gz = gz.finish().unwrap();
    std::fs::write(d.join("cut.json.gz"), &gz[..gz.len() / 2]).unwrap();
    let cases = [
        ("cut.json.gz", "cut.json.gz: is cut short"),
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

/// The shell commands of the README's section `heading` (its indented lines).
fn readme_commands(dir: &Path, heading: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let section = readme
        .split("\n### ")
        .find(|s| s.starts_with(heading))
        .unwrap_or_else(|| panic!("no section {heading}: {readme}"));
    section
        .lines()
        .filter_map(|l| l.strip_prefix("    "))
        .map(str::to_string)
        .collect()
}

/// A `kubectl` in `bin` that does what the README's collect commands ask of the cluster,
/// with `results` as the results volume: `wait` returns, `cp POD:/results/F F` copies.
fn stub_kubectl(bin: &Path, results: &Path) {
    std::fs::create_dir_all(bin).unwrap();
    let stub = bin.join("kubectl");
    std::fs::write(
        &stub,
        format!(
            "#!/bin/sh\n# kubectl as the README's collect commands use it, on a local volume.\ncase \"$1\" in\n  wait) exit 0 ;;\n  cp) exec cp \"{}/${{2#*:/results/}}\" \"$3\" ;;\n  *) echo \"stub kubectl: $*\" >&2; exit 3 ;;\nesac\n",
            results.display()
        ),
    )
    .unwrap();
    let mut perm = std::fs::metadata(&stub).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&stub, perm).unwrap();
}

/// A README command line run by `sh` in `dir`, with `bin` first on PATH.
fn sh(dir: &Path, bin: &Path, line: &str) -> std::process::Output {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .output()
        .unwrap()
}

#[test]
fn a_testruns_pods_come_back_through_the_readme_commands() {
    let server = start_fixture_server("good");
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    Gqlbench::new(["export", "k6", "e2e/hello", "--profile", "quick", "--url"])
        .arg(&server.url)
        .args([
            "-c",
            "4",
            "--parallelism",
            "2",
            "--warmup",
            "1s",
            "--duration",
            "1s",
        ])
        .arg("--out")
        .arg(&run)
        .root(fixtures())
        .go()
        .assert_exit(0);
    let volume = dir.path().join("volume");
    std::fs::create_dir(&volume).unwrap();
    assert_eq!(run_testrun(&run, &volume), vec![Some(0), Some(0)]);
    // Each pod wrote its own gzipped file, named after its Job.
    for i in 1..=2 {
        let f = volume.join(format!("gqlbench-e2e-hello-{i}.json.gz"));
        let head = std::fs::read(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(&head[..2], &[0x1f, 0x8b], "{} is not gzip", f.display());
    }
    // The README's commands copy them beside gqlbench-export.json and import them.
    let bin = dir.path().join("bin");
    stub_kubectl(&bin, &volume);
    std::fs::write(
        bin.join("gqlbench"),
        format!(
            "#!/bin/sh\nexec {} \"$@\" --out {} --json\n",
            env!("CARGO_BIN_EXE_gqlbench"),
            dir.path().join("imp").display()
        ),
    )
    .unwrap();
    let mut perm = std::fs::metadata(bin.join("gqlbench"))
        .unwrap()
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(bin.join("gqlbench"), perm).unwrap();
    let cmds = readme_commands(&run, "Collect and import");
    assert_eq!(cmds.len(), 3, "{cmds:?}");
    for c in &cmds[..2] {
        let o = sh(&run, &bin, c);
        assert!(
            o.status.success(),
            "{c}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = sh(&run, &bin, &cmds[2].replace("--target NAME", "--target fx"));
    let out = Outcome::of(o);
    out.assert_exit(0);
    let r = out.results();
    let load = &r.scenarios[0].targets[0].trials[0].load;
    // Every request of both pods, warm-up left out.
    let all: usize = (1..=2)
        .map(|i| {
            let f = run.join(format!("gqlbench-e2e-hello-{i}.json.gz"));
            let r = gqlbench::import::k6::input::open(&f).unwrap();
            std::io::BufRead::lines(r)
                .filter(|l| {
                    l.as_ref()
                        .unwrap()
                        .contains("\"metric\":\"http_reqs\",\"type\":\"Point\"")
                })
                .count()
        })
        .sum();
    assert!(load.requests > 50, "{}", load.requests);
    assert_eq!(load.requests + load.warmup_requests, all as u64);
    assert!(r
        .import
        .unwrap()
        .notes
        .iter()
        .any(|n| n.contains("2 k6-operator runner pods")));

    // A pod's file missing: refused, naming the pod (the export says 2 pods).
    let one = run.join("gqlbench-e2e-hello-1.json.gz");
    let two = run.join("gqlbench-e2e-hello-2.json.gz");
    let o = import(std::slice::from_ref(&one), &dir.path().join("x"));
    o.assert_exit(2);
    assert!(
        o.stderr.contains("no samples of runner pod(s) 2"),
        "{}",
        o.stderr
    );
    // The same file twice, or a copy of it: refused, naming it.
    let o = import(
        &[one.clone(), two.clone(), one.clone()],
        &dir.path().join("x"),
    );
    o.assert_exit(2);
    assert!(o.stderr.contains("is given twice"), "{}", o.stderr);
    let copy = run.join("copy.json");
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut gqlbench::import::k6::input::open(&two).unwrap(),
        &mut text,
    )
    .unwrap();
    std::fs::write(&copy, text).unwrap();
    let o = import(&[one, two, copy], &dir.path().join("x"));
    o.assert_exit(2);
    assert!(
        o.stderr.contains("copy.json: holds the same k6 output as"),
        "{}",
        o.stderr
    );
    assert!(!dir.path().join("x").exists());
}

#[test]
fn iterations_k6_dropped_flag_the_row() {
    // An arrival rate of 50/s on at most 2 VUs against answers that take 1.5 s: k6 has
    // no free VU for most iterations and drops them.
    let cat = fixture_copy();
    std::fs::write(
        cat.path().join("scenarios/e2e/open.toml"),
        "description = \"open\"\nworkload = \"fixture\"\n[[operations]]\nname = \"fixture/hello\"\n[load]\nmodel = \"open\"\nrate = 50\nmax_connections = 2\n",
    )
    .unwrap();
    let slow = start_fixture_server("slow");
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    Gqlbench::new(["export", "k6", "e2e/open", "--profile", "quick", "--url"])
        .arg(&slow.url)
        .args(["--warmup", "0s", "--duration", "1s", "--out"])
        .arg(&run)
        .root(cat.path())
        .go()
        .assert_exit(0);
    let o = Command::new(k6_binary())
        .args([
            "run",
            "--quiet",
            "--no-color",
            "--out",
            "json=points.json",
            "script.js",
        ])
        .current_dir(&run)
        .env("K6_NO_USAGE_REPORT", "true")
        .output()
        .unwrap();
    assert!(run.join("points.json").is_file(), "{o:?}");
    let o = import(&[run.join("points.json")], &dir.path().join("imp"));
    let r = o.results();
    let t = &r.scenarios[0].targets[0];
    let flags = &t.trials[0].saturation;
    assert!(
        flags
            .iter()
            .any(|f| f.kind.as_str() == "dropped_iterations" && f.detail.contains("fell behind")),
        "{flags:?}"
    );
    assert!(t.summary.as_ref().unwrap().saturated);
}

#[test]
fn a_summary_without_percentiles_shows_them_unmeasured() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A summary written with summaryTrendStats: ["avg"], and one with them all.
    let summary = |file: &str, dur: serde_json::Value| {
        let v = serde_json::json!({"metrics": {
            "http_reqs": {"count": 500, "rate": 250.0},
            "http_req_duration": dur,
        }});
        std::fs::write(d.join(file), v.to_string()).unwrap();
        d.join(file)
    };
    let avg = summary("avg.json", serde_json::json!({"avg": 4.96}));
    let all = summary(
        "all.json",
        serde_json::json!({"avg": 4.0, "min": 1.0, "med": 3.9, "max": 9.0,
            "p(90)": 4.5, "p(95)": 4.8, "p(99)": 4.96, "p(99.9)": 8.0}),
    );
    let o = import(&[avg], &d.join("avg"));
    o.assert_exit(0);
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("avg/results.json")).unwrap())
            .unwrap();
    let lat = &raw["scenarios"][0]["targets"][0]["summary"]["latency"];
    for f in ["p50_us", "p95_us", "p99_us", "min_us", "max_us", "stdev_us"] {
        assert_eq!(lat[f], serde_json::Value::Null, "{f} in {lat}");
    }
    assert_eq!(lat["mean_us"], 4960.0);
    // The report's p50, p95 and p99 cells are "-", not 0.00.
    let md = Gqlbench::report(d.join("avg")).go();
    md.assert_exit(0);
    let row = md
        .stdout
        .lines()
        .find(|l| l.contains("k6-target"))
        .unwrap_or_else(|| panic!("{}", md.stdout));
    assert!(!row.contains("0.00") && row.contains("4.96"), "{row}");
    // Without gqlbench-export.json the load is not known: said, not "0 connections".
    assert!(
        md.stdout.contains("load: not recorded") && !md.stdout.contains("0 connections"),
        "{}",
        md.stdout
    );
    // compare: no p99 on the side that did not measure it, and no change.
    import(&[all], &d.join("all")).assert_exit(0);
    let c = Gqlbench::compare(d.join("all"), d.join("avg")).json().go();
    let cmp = c.comparison();
    let row = &cmp.rows[0];
    assert_eq!(row.baseline_p99_us, Some(4960.0));
    assert_eq!(row.candidate_p99_us, None);
    assert!(row.p99_change.is_none());
    let t = Gqlbench::compare(d.join("all"), d.join("avg")).go();
    assert!(t.stdout.contains("4.96 → -"), "{}", t.stdout);
}

#[test]
fn a_window_too_short_or_a_summary_without_a_rate_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let point = |metric: &str, value: f64| {
        format!("{{\"type\":\"Point\",\"metric\":\"{metric}\",\"data\":{{\"time\":\"2026-01-01T00:00:00Z\",\"value\":{value},\"tags\":{{\"status\":\"200\",\"scenario\":\"default\"}}}}}}\n")
    };
    std::fs::write(
        d.join("one.json"),
        point("http_reqs", 1.0) + &point("http_req_duration", 1.0),
    )
    .unwrap();
    // Only the warm-up's request, and a latency outside any scenario without its request.
    std::fs::write(
        d.join("warm.json"),
        point("http_reqs", 1.0).replace("\"default\"", "\"warmup\"")
            + &point("http_req_duration", 5.0).replace(",\"scenario\":\"default\"", ""),
    )
    .unwrap();
    let write = |file: &str, v: serde_json::Value| {
        std::fs::write(d.join(file), v.to_string()).unwrap();
    };
    write(
        "short.json",
        serde_json::json!({"metrics": {"http_reqs": {"count": 1, "rate": 1000.0},
            "http_req_duration": {"avg": 1.0}}}),
    );
    write(
        "norate.json",
        serde_json::json!({"metrics": {"http_reqs": {"count": 500},
            "http_req_duration": {"avg": 1.0}}}),
    );
    write(
        "negative.json",
        serde_json::json!({"metrics": {"http_reqs": {"count": -5, "rate": 10.0},
            "http_req_duration": {"avg": 1.0}}}),
    );
    for (file, want) in [
        (
            "negative.json",
            "negative.json: field `metrics.http_reqs.count` is -5, not a count of requests",
        ),
        (
            "one.json",
            "one.json: the first to the last measured request is 0.000 s: too short",
        ),
        (
            "warm.json",
            "warm.json: no measured request in the file: every request is the `warmup` scenario's",
        ),
        (
            "short.json",
            "short.json: the test's duration (metrics.http_reqs count / rate) is 0.001 s",
        ),
        (
            "norate.json",
            "norate.json: field `metrics.http_reqs.rate` is missing",
        ),
    ] {
        let o = import(&[d.join(file)], &d.join("out"));
        o.assert_exit(2);
        assert!(
            o.stderr.contains(want),
            "{file}: want '{want}' in {}",
            o.stderr
        );
    }
    // An empty name is no name for a row or a scenario.
    for flag in ["--target", "--scenario", "--suite"] {
        let o = Gqlbench::new(["import", "k6", flag, ""])
            .arg(d.join("one.json"))
            .arg("--out")
            .arg(d.join("out"))
            .go();
        o.assert_exit(2);
        assert!(o.stderr.contains(flag), "{flag}: {}", o.stderr);
    }
    assert!(!d.join("out").exists());
}
