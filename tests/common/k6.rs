//! The k6 binary the k6 export and import tests run: `GQLBENCH_K6` when set, else the one
//! pinned by tools/k6 (go.mod, go.sum), built there with Go on first use. A missing Go is a
//! failure that says how to get k6, never a skipped test.
use std::path::PathBuf;
use std::process::Command;

use super::repo;

pub fn k6_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("GQLBENCH_K6") {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "GQLBENCH_K6={} is not a file", p.display());
        return p;
    }
    let dir = repo().join("tools/k6");
    let bin = dir.join("bin/k6");
    // Several test binaries may want it at once: build under a lock, once.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(std::env::temp_dir().join("gqlbench-k6-build.lock"))
        .expect("k6 build lock file");
    // SAFETY: flock on a file descriptor this function owns for its whole use.
    unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
    let stale = |b: &PathBuf| {
        let built = std::fs::metadata(b).and_then(|m| m.modified());
        let pinned = std::fs::metadata(dir.join("go.sum")).and_then(|m| m.modified());
        match (built, pinned) {
            (Ok(b), Ok(p)) => b < p,
            _ => true,
        }
    };
    if stale(&bin) {
        let status = Command::new("go")
            .args(["build", "-mod=readonly", "-trimpath", "-o", "bin/k6", "go.k6.io/k6"])
            .current_dir(&dir)
            .status()
            .unwrap_or_else(|e| {
                panic!(
                    "building k6 needs Go 1.26+ on PATH ({e}); or set GQLBENCH_K6 to a k6 v1.8.1 binary (tools/k6/README.md)"
                )
            });
        assert!(
            status.success(),
            "go build of k6 in tools/k6 failed: {status}"
        );
    }
    bin
}

/// Runs an export's `testrun.yaml` as the k6-operator's runner pods would run it
/// (grafana/k6-operator pkg/resources/jobs/runner.go and pkg/segmentation): `parallelism`
/// k6 processes at once, runner i (1 to N) with `--execution-segment=(i-1)/N:i/N` and the
/// sequence `0,1/N,...,1`, the manifest's `arguments` split on whitespace (with its
/// `$(VAR)` references expanded from the runner's env as the kubelet does, the Job name
/// `<name>-<i>` for the label the env reads, and the results volume's mount path mapped
/// to `results`), the script, and the tags `instance_id=i` and `testrun_name=<name>`.
/// Only the manifest's image (k6 v1.8.1 here too) and the pods themselves are not
/// reproduced. Returns each runner's exit code, in runner order.
pub fn run_testrun(export: &std::path::Path, results: &std::path::Path) -> Vec<Option<i32>> {
    let text = std::fs::read_to_string(export.join("testrun.yaml")).expect("testrun.yaml");
    let tr: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).expect("testrun.yaml is YAML");
    let spec = &tr["spec"];
    let name = tr["metadata"]["name"].as_str().expect("metadata.name");
    let n = spec["parallelism"].as_u64().expect("spec.parallelism");
    let mount = spec["runner"]["volumeMounts"][0]["mountPath"]
        .as_str()
        .expect("a results volume mount");
    let args = spec["arguments"].as_str().expect("spec.arguments");
    let script = spec["script"]["configMap"]["file"]
        .as_str()
        .expect("script file");
    let part = |i: u64| match i {
        0 => "0".to_string(),
        i if i == n => "1".to_string(),
        i => format!("{i}/{n}"),
    };
    let sequence: Vec<String> = (0..=n).map(part).collect();
    let mut children = Vec::new();
    for i in 1..=n {
        let job = format!("{name}-{i}");
        // The runner's environment: plain values, and the Job's label for a fieldRef.
        let mut env: Vec<(String, String)> = Vec::new();
        for e in spec["runner"]["env"].as_sequence().into_iter().flatten() {
            let key = e["name"].as_str().expect("env name").to_string();
            let value = match (
                e["value"].as_str(),
                e["valueFrom"]["fieldRef"]["fieldPath"].as_str(),
            ) {
                (Some(v), _) => v.to_string(),
                (None, Some("metadata.labels['job-name']")) => job.clone(),
                other => panic!("env {key}: a source the test does not reproduce: {other:?}"),
            };
            env.push((key, value));
        }
        let expand = |a: &str| {
            let mut a = a.to_string();
            for (k, v) in &env {
                a = a.replace(&format!("$({k})"), v);
            }
            a.replace(&format!("={mount}/"), &format!("={}/", results.display()))
        };
        let mut cmd = Command::new(k6_binary());
        cmd.args(["run", "--quiet", "--no-color"]);
        if n > 1 {
            cmd.arg(format!("--execution-segment={}:{}", part(i - 1), part(i)))
                .arg(format!(
                    "--execution-segment-sequence={}",
                    sequence.join(",")
                ));
        }
        cmd.args(args.split_whitespace().map(expand))
            .arg(export.join(script))
            .args(["--tag", &format!("instance_id={i}")])
            .args(["--tag", &format!("testrun_name={name}")])
            .envs(env.iter().map(|(k, v)| (k, v)))
            .env("K6_NO_USAGE_REPORT", "true")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        children.push(cmd.spawn().expect("starting k6"));
    }
    children
        .into_iter()
        .map(|mut c| c.wait().expect("k6 runner").code())
        .collect()
}
