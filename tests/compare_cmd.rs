//! End-to-end: `report` re-renders a saved run; `compare` gates on significant regressions.
mod common;
use common::*;

fn saved_run() -> (tempfile::TempDir, serde_json::Value) {
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
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("a/results.json")).unwrap()).unwrap();
    (dir, v)
}

/// The same run with one target's req/s samples replaced (what another build would have
/// measured). Fixed samples keep the test independent of how noisy the machine is.
fn with_samples(v: &serde_json::Value, target: &str, samples: &[f64]) -> serde_json::Value {
    let mut v = v.clone();
    for t in v["scenarios"][0]["targets"].as_array_mut().unwrap() {
        if t["name"] == target {
            let s = &mut t["summary"]["rps"];
            let mut sorted = samples.to_vec();
            sorted.sort_by(f64::total_cmp);
            s["median"] = sorted[sorted.len() / 2].into();
            s["samples"] = serde_json::json!(samples);
        }
    }
    v
}

#[test]
fn compare_fails_only_on_a_significant_regression() {
    let (dir, a) = saved_run();
    assert_eq!(
        a["scenarios"][0]["targets"][0]["trials"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let write = |name: &str, v: &serde_json::Value| {
        let p = dir.path().join(name);
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(p.join("results.json"), serde_json::to_vec(v).unwrap()).unwrap();
        p
    };
    let a = with_samples(&a, "fx-good", &[1000.0, 1010.0, 990.0]);
    let base = write("base", &a);
    let same = write(
        "same",
        &with_samples(&a, "fx-good", &[1005.0, 995.0, 1000.0]),
    );
    let slow = write("slow", &with_samples(&a, "fx-good", &[500.0, 505.0, 495.0]));

    let out =
        run(bin()
            .arg("compare")
            .arg(&base)
            .arg(&same)
            .args(["--fail-if-slower", "5%", "--json"]));
    assert_eq!(out.status.code(), Some(0));
    let c = json(&out);
    assert_eq!(c["regressions"], 0);
    assert_eq!(c["rows"].as_array().unwrap().len(), 2);

    let out =
        run(bin()
            .arg("compare")
            .arg(&base)
            .arg(&slow)
            .args(["--fail-if-slower", "5%", "--json"]));
    assert_eq!(out.status.code(), Some(1));
    let c = json(&out);
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["target"] == "fx-good")
        .unwrap();
    assert_eq!(row["regression"], true);
    assert!((row["rps_change"]["pct"].as_f64().unwrap() + 50.0).abs() < 0.5);
    assert_eq!(row["rps_change"]["significant"], true);

    // Without the gate the same comparison only reports.
    let out = run(bin().arg("compare").arg(&base).arg(&slow));
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("slower (significant)"));
}

#[test]
fn report_rerenders_a_saved_run_and_rejects_other_files() {
    let (dir, _) = saved_run();
    let out = run(bin()
        .arg("report")
        .arg(dir.path().join("a"))
        .args(["--format", "md"]));
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
