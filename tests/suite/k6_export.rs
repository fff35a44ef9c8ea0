//! End-to-end: `gqlbench export k6` writes a script that the real k6 (v1.8.1, pinned in
//! tools/k6) runs against a fixture server for 2 s, with every response checked: a right
//! server passes every check, a wrong or failing one fails the run (k6 exits 99). Run as
//! the k6-operator runs it (execution segments), every pod sends the scenario's mix; every
//! send of an operation takes its next case. The TestRun pins the tested k6 and gives each
//! pod a CPU, a node and a file on the results volume. Scenario kinds k6 cannot reproduce,
//! bad URLs and occupied folders are refused with exit 2; a connection sweep exports one
//! level with -c.
use crate::common;
use std::collections::BTreeMap;
use std::io::BufRead;
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
    let executions = gqlbench::measure::loopback::get_json(counters, "/counters").unwrap()
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

/// The `case` tag of every measured request of a k6 JSON lines file (gzipped when its name
/// ends in .gz, as k6 writes it), in the file's order.
fn measured_cases(file: &Path) -> Vec<String> {
    let f = std::fs::File::open(file).unwrap();
    let r: Box<dyn BufRead> = if file.extension().is_some_and(|e| e == "gz") {
        Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(
            f,
        )))
    } else {
        Box::new(std::io::BufReader::new(f))
    };
    r.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(&l.unwrap()).unwrap())
        .filter(|v| v["type"] == "Point" && v["metric"] == "http_reqs")
        .filter(|v| v["data"]["tags"]["scenario"] == "measured")
        .map(|v| v["data"]["tags"]["case"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_pod_of_a_testrun_sends_the_scenarios_mix() {
    // federation/dedup: large 4, small 1. Picked by `iteration % 5` on 5 pods, each pod's
    // iterations (every 5th) went all to one operation: four pods sent only `large`.
    let server = start_fixture_server("good");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("dedup");
    Gqlbench::new(["export", "k6", "federation/dedup", "--profile", "quick"])
        .args(["--url", &server.url, "--parallelism", "5"])
        .args(["--warmup", "0s", "--duration", "1s", "--out"])
        .arg(&out)
        .root(repo())
        .go()
        .assert_exit(0);
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    // The fixture answers no federation query right: the checks fail, the counts stand.
    let codes = run_testrun(&out, &results);
    assert_eq!(codes.len(), 5);
    for i in 1..=5 {
        let file = results.join(format!("gqlbench-federation-dedup-{i}.json.gz"));
        let mut by_op: BTreeMap<String, u64> = BTreeMap::new();
        for c in measured_cases(&file) {
            let op = c.split('#').next().unwrap().to_string();
            *by_op.entry(op).or_default() += 1;
        }
        let small = by_op.get("federation/small").copied().unwrap_or(0) as f64;
        let total: u64 = by_op.values().sum();
        assert!(total >= 50, "pod {i}: only {total} requests ({by_op:?})");
        let share = small / total as f64;
        assert!(
            (0.12..=0.28).contains(&share),
            "pod {i}: {:.0}% small, want about 20%: {by_op:?}",
            share * 100.0
        );
    }
}

#[test]
fn each_send_of_an_operation_takes_its_next_case() {
    // servers/mix: simple-var (60, 50 cases), medium-var (30, 20 cases), complex (10). One
    // case per turn of a 100-long table sent `simple-var#0` 60 times in a row.
    let server = start_fixture_server("good");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("mix");
    Gqlbench::new([
        "export",
        "k6",
        "servers/mix",
        "--profile",
        "quick",
        "-c",
        "1",
    ])
    .args([
        "--url",
        &server.url,
        "--warmup",
        "0s",
        "--duration",
        "1s",
        "--out",
    ])
    .arg(&out)
    .root(repo())
    .go()
    .assert_exit(0);
    k6_run(&out);
    let cases = measured_cases(&out.join("points.json"));
    assert!(cases.len() > 200, "only {} requests", cases.len());
    let longest = cases
        .chunk_by(|a, b| a == b)
        .map(<[String]>::len)
        .max()
        .unwrap();
    assert_eq!(longest, 1, "one case sent {longest} times in a row");
    let simple: std::collections::BTreeSet<&String> = cases
        .iter()
        .filter(|c| c.starts_with("social/simple-var#"))
        .collect();
    assert_eq!(
        simple.len(),
        50,
        "simple-var's cases sent: {}",
        simple.len()
    );
}

/// The YAML documents of a file.
fn yaml_docs(file: &Path) -> Vec<serde_yaml_ng::Value> {
    let text = std::fs::read_to_string(file).unwrap();
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|d| serde::Deserialize::deserialize(d).unwrap())
        .collect()
}

#[test]
fn the_testrun_pins_k6_and_gives_each_pod_a_cpu_a_node_and_a_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x");
    let url = "http://api.example:4000/graphql";
    export("e2e/hello", url, &out)
        .args(["--parallelism", "3", "-c", "12"])
        .go()
        .assert_exit(0);
    let tr = &yaml_docs(&out.join("testrun.yaml"))[0];
    let spec = &tr["spec"];
    let runner = &spec["runner"];
    assert_eq!(runner["image"], "grafana/k6:1.8.1");
    assert_eq!(spec["separate"], true);
    for side in ["requests", "limits"] {
        assert_eq!(runner["resources"][side]["cpu"], "1", "{side}");
        let mem = runner["resources"][side]["memory"].as_str().unwrap();
        assert!(mem.ends_with("Mi") && mem.len() > 2, "{side}: {mem}");
    }
    let env = |name: &str| {
        runner["env"]
            .as_sequence()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no env {name}"))
            .clone()
    };
    assert_eq!(env("GQLBENCH_URL")["value"], url);
    assert_eq!(
        env("GQLBENCH_POD")["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.labels['job-name']"
    );
    assert_eq!(
        spec["arguments"],
        "--out json=/results/$(GQLBENCH_POD).json.gz"
    );
    assert_eq!(runner["volumeMounts"][0]["mountPath"], "/results");
    let claim = &runner["volumes"][0]["persistentVolumeClaim"]["claimName"];
    assert_eq!(
        runner["volumes"][0]["name"],
        runner["volumeMounts"][0]["name"]
    );
    // results.yaml: that claim, writable from many nodes, and a pod that mounts it.
    let docs = yaml_docs(&out.join("results.yaml"));
    let pvc = docs
        .iter()
        .find(|d| d["kind"] == "PersistentVolumeClaim")
        .unwrap();
    assert_eq!(&pvc["metadata"]["name"], claim);
    assert_eq!(pvc["spec"]["accessModes"][0], "ReadWriteMany");
    let pod = docs.iter().find(|d| d["kind"] == "Pod").unwrap();
    assert_eq!(
        &pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"],
        claim
    );
    assert_eq!(
        pod["spec"]["containers"][0]["volumeMounts"][0]["mountPath"],
        "/results"
    );
    // The README: install, run, pass or fail, collect, run again, the URL.
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    for want in [
        "kubectl apply -f https://raw.githubusercontent.com/grafana/k6-operator/v1.6.0/bundle.yaml",
        "kubectl apply -f results.yaml",
        "kubectl create configmap gqlbench-e2e-hello --from-file=script.js --dry-run=client -o yaml | kubectl apply -f -",
        "kubectl delete testrun gqlbench-e2e-hello",
        "kubectl get testrun gqlbench-e2e-hello",
        "kubectl get pods -l k6_cr=gqlbench-e2e-hello,runner=true",
        "99",
        "for i in $(seq 1 3); do kubectl cp gqlbench-e2e-hello-results:/results/gqlbench-e2e-hello-$i.json.gz",
        "gqlbench import k6 gqlbench-e2e-hello-*.json.gz",
        "`GQLBENCH_URL` in `testrun.yaml`",
    ] {
        assert!(readme.contains(want), "README lacks {want:?}:\n{readme}");
    }
}

#[test]
fn a_connection_sweep_exports_the_level_given_with_c() {
    let dir = tempfile::tempdir().unwrap();
    let url = "http://127.0.0.1:9/graphql";
    // Without a level: refused, saying how to give one.
    let o = export("e2e/sweep", url, &dir.path().join("none")).go();
    o.assert_exit(2);
    assert!(o.stderr.contains("--connections N"), "{}", o.stderr);
    // With -c: that level, as a plain load, and the README says it is one level.
    let out = dir.path().join("level");
    export("e2e/sweep", url, &out)
        .args(["-c", "6"])
        .go()
        .assert_exit(0);
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("gqlbench-export.json")).unwrap())
            .unwrap();
    assert_eq!(
        meta["executor"],
        serde_json::json!({"executor": "constant-vus", "vus": 6})
    );
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(
        readme.contains("one level of it, 6 connections"),
        "{readme}"
    );
}
