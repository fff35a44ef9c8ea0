//! End-to-end: `gqlbench export k6` writes a script that the real k6 (v1.8.1, pinned in
//! tools/k6) runs against a fixture server for 2 s, with every response checked: a right
//! server passes every check, a wrong or failing one fails the run (k6 exits 99). Scenario
//! kinds k6 cannot reproduce, bad URLs and occupied folders are refused with exit 2.
mod common;
use std::path::Path;
use std::process::Command;

use common::*;

/// `export k6 SUITE/SCENARIO --url URL` on the fixture catalogue, quick profile.
fn export(scenario: &str, url: &str, out: &Path) -> Gqlbench {
    Gqlbench::new(["export", "k6", scenario, "--url", url, "--profile", "quick"])
        .root(fixtures())
        .arg("--out")
        .arg(out)
}

/// k6 run of an exported script; returns k6's exit code and its summary.
pub fn k6_run(dir: &Path) -> (Option<i32>, serde_json::Value) {
    let summary = dir.join("summary.json");
    let out = Command::new(k6_binary())
        .args(["run", "--quiet", "--no-color", "--summary-export"])
        .arg(&summary)
        .arg("--out")
        .arg(format!("json={}", dir.join("points.json").display()))
        .arg(dir.join("script.js"))
        .env("K6_NO_USAGE_REPORT", "true")
        .output()
        .expect("running k6");
    let text = std::fs::read_to_string(&summary).unwrap_or_else(|e| {
        panic!(
            "k6 wrote no summary ({e}); stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), serde_json::from_str(&text).unwrap())
}

/// Passes and fails of one named check in k6's summary export.
fn check_counts(summary: &serde_json::Value, name: &str) -> (u64, u64) {
    let c = &summary["root_group"]["checks"][name];
    (
        c["passes"]
            .as_u64()
            .unwrap_or_else(|| panic!("no check '{name}' in {summary}")),
        c["fails"].as_u64().unwrap(),
    )
}

#[test]
fn an_exported_script_checks_every_answer_in_k6() {
    let dir = tempfile::tempdir().unwrap();
    let good = start_fixture_server("good");
    let out = dir.path().join("good");
    export("e2e/hello", &good.url, &out)
        .args(["--warmup", "1s", "--duration", "2s"])
        .go()
        .assert_exit(0);
    for f in [
        "script.js",
        "testrun.yaml",
        "README.md",
        "gqlbench-export.json",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let (code, summary) = k6_run(&out);
    assert_eq!(code, Some(0), "k6 against the right server: {summary}");
    let reqs = summary["metrics"]["http_reqs"]["count"].as_u64().unwrap();
    assert!(reqs > 100, "only {reqs} requests in 3 s");
    let vus = summary["metrics"]["vus_max"]["value"].as_u64().unwrap();
    for check in ["status is 200", "no errors", "data as expected"] {
        let (pass, fail) = check_counts(&summary, check);
        assert_eq!(fail, 0, "{check}");
        // Every answered request was checked (warm-up ones too), except the last one of a
        // VU whose iteration the end of a scenario cut between the answer and the checks:
        // at most one per VU in each of the two scenarios.
        assert!(
            pass <= reqs && reqs - pass <= 2 * vus,
            "{check}: {pass} checked of {reqs} requests with {vus} VUs"
        );
    }

    // A server that answers wrong data, and one that answers errors: the checks fail and
    // so does the run (the measured window's checks threshold).
    for (mode, failing, passing) in [
        ("wrong", "data as expected", "no errors"),
        ("errors", "no errors", "status is 200"),
    ] {
        let bad = start_fixture_server(mode);
        let out = dir.path().join(mode);
        export("e2e/hello", &bad.url, &out)
            .args(["--warmup", "0s", "--duration", "1s"])
            .go()
            .assert_exit(0);
        let (code, summary) = k6_run(&out);
        assert_eq!(code, Some(99), "{mode}: thresholds must fail the run");
        let (pass, fail) = check_counts(&summary, failing);
        assert!(fail > 0 && pass == 0, "{mode}: '{failing}' {pass}/{fail}");
        let (pass, fail) = check_counts(&summary, passing);
        assert!(pass > 0 && fail == 0, "{mode}: '{passing}' {pass}/{fail}");
    }
}

#[test]
fn unique_numbers_reach_the_server_as_requests_it_never_saw() {
    // The fixture's cache executes a request only when its body is new: the 20% of
    // never-repeated requests, and the one repeated request once.
    let counters = free_port();
    let server = start_with_env("cache", &[("GQLBENCH_COUNTERS_PORT", counters.to_string())]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cache");
    export("e2e/response-cache", &server.url, &out)
        .args(["--warmup", "1s", "--duration", "2s"])
        .go()
        .assert_exit(0);
    let (code, summary) = k6_run(&out);
    assert_eq!(code, Some(0), "{summary}");
    let reqs = summary["metrics"]["http_reqs"]["count"].as_u64().unwrap() as f64;
    let executions = gqlbench::runner::loopback::get_json(counters, "/counters").unwrap()
        ["executions"]
        .as_f64()
        .unwrap();
    // Weights 80/20 walked in a fixed order: a fifth of the requests are unique, plus one.
    assert!(
        (0.18 * reqs..=0.22 * reqs + 2.0).contains(&executions),
        "{executions} executions of {reqs} requests"
    );
}

/// The warm-up and measured scenarios, executors and the TestRun as k6 and YAML read them.
#[test]
fn closed_and_open_loads_become_k6_executors() {
    let cat = fixture_copy();
    std::fs::write(
        cat.path().join("scenarios/e2e/open.toml"),
        "description = \"open\"\nworkload = \"fixture\"\n[[operations]]\nname = \"fixture/hello\"\n[load]\nmodel = \"open\"\nrate = 250\nmax_connections = 20\n",
    )
    .unwrap();
    std::fs::write(
        cat.path().join("scenarios/e2e/ramp.toml"),
        "description = \"ramp\"\nworkload = \"fixture\"\n[[operations]]\nname = \"fixture/hello\"\n[load]\nconnections = 4\nstages = [{ duration = \"2s\", target = 12 }]\n",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let inspect = |scenario: &str, extra: &[&str]| -> serde_json::Value {
        let out = dir.path().join(scenario.replace('/', "-"));
        Gqlbench::new(["export", "k6", scenario, "--profile", "quick"])
            .args([
                "--url",
                "http://127.0.0.1:9/graphql",
                "--duration",
                "5s",
                "--out",
            ])
            .arg(&out)
            .args(extra)
            .root(cat.path())
            .go()
            .assert_exit(0);
        // k6's own reading of the script's options.
        let o = Command::new(k6_binary())
            .args(["inspect", "--execution-requirements"])
            .arg(out.join("script.js"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["testrun"] =
            serde_yaml_ng::from_str(&std::fs::read_to_string(out.join("testrun.yaml")).unwrap())
                .unwrap();
        v
    };
    let v = inspect("e2e/open", &["--warmup", "1s", "--parallelism", "4"]);
    let s = &v["scenarios"];
    assert_eq!(s["measured"]["executor"], "constant-arrival-rate");
    assert_eq!(s["measured"]["rate"], 250);
    assert_eq!(s["measured"]["maxVUs"], 20);
    assert_eq!(s["measured"]["startTime"], "1s");
    assert_eq!(s["warmup"]["executor"], "constant-arrival-rate");
    assert_eq!(s["warmup"]["gracefulStop"], "0s");
    assert_eq!(v["testrun"]["kind"], "TestRun");
    assert_eq!(v["testrun"]["spec"]["parallelism"], 4);
    assert_eq!(
        v["testrun"]["spec"]["script"]["configMap"]["file"],
        "script.js"
    );

    let v = inspect("e2e/ramp", &["--warmup", "0s"]);
    let m = &v["scenarios"]["measured"];
    assert_eq!(m["executor"], "ramping-vus");
    assert_eq!(m["startVUs"], 4);
    // The 2 s ramp, then its target held to the end of the 5 s window.
    assert_eq!(m["stages"][0]["target"], 12);
    assert_eq!(m["stages"][1]["duration"], "3s");
    assert!(v["scenarios"].get("warmup").is_none(), "no warm-up asked");
}

#[test]
fn export_refuses_what_k6_cannot_run_naming_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let url = "http://127.0.0.1:9/graphql";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["e2e/nosuch", "--url", url],
            "unknown scenario 'nosuch'",
        ),
        (vec!["e2e", "--url", url], "SUITE/SCENARIO"),
        (
            vec!["e2e/subs", "--url", url],
            "`subscriptions` scenario cannot be exported",
        ),
        (
            vec!["e2e/rate-sweep", "--url", url],
            "`sweep` scenario cannot be exported",
        ),
        (vec!["e2e/hello", "--url", "localhost:4000"], "--url"),
        (
            vec!["e2e/hello", "--url", url, "--parallelism", "9"],
            "--parallelism",
        ),
        (
            vec!["e2e/hello", "--url", url, "--profile", "nosuch"],
            "--profile",
        ),
    ];
    for (args, want) in cases {
        let o = Gqlbench::new(["export", "k6", "--profile", "quick"])
            .args(&args)
            .arg("--out")
            .arg(dir.path().join("x"))
            .root(fixtures())
            .go();
        o.assert_exit(2);
        assert!(
            o.stderr.contains(want),
            "{args:?}: want '{want}' in {}",
            o.stderr
        );
    }
    assert!(
        !dir.path().join("x").exists(),
        "nothing written on bad input"
    );
    // A folder with other files is refused; an earlier export needs --force.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let o = export("e2e/hello", url, &other).go();
    o.assert_exit(2);
    assert!(o.stderr.contains("--out"), "{}", o.stderr);
    let out = dir.path().join("ok");
    export("e2e/hello", url, &out).go().assert_exit(0);
    let o = export("e2e/hello", url, &out).go();
    o.assert_exit(2);
    assert!(o.stderr.contains("--force"), "{}", o.stderr);
    export("e2e/hello", url, &out)
        .arg("--force")
        .go()
        .assert_exit(0);
}
