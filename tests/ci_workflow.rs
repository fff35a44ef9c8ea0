//! The GitHub Actions workflow (`.github/workflows/benchmark.yml`) and its scripts
//! (`.github/scripts/`), checked without GitHub:
//! - the workflow parses, pins every action to a commit, asks only for the permissions it
//!   uses, names the artifact the compare script downloads, and runs scenarios that exist;
//!   actionlint and shellcheck pass (required when GQLBENCH_CI=1, as `.ci/run` sets);
//! - the scripts run as the workflow runs them, with a fake `gh` on PATH that plays GitHub:
//!   a regression fails the step and is posted, an existing comment is updated rather than
//!   a second one posted, no baseline and a different CPU pass with a note, no results fail.
mod common;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::*;
use gqlbench::results::RunResults;

fn workflow_path() -> PathBuf {
    repo().join(".github/workflows/benchmark.yml")
}

fn workflow() -> serde_yaml_ng::Value {
    let text = std::fs::read_to_string(workflow_path()).unwrap();
    serde_yaml_ng::from_str(&text).expect("the workflow is YAML")
}

/// A linter's binary: from `env` (a path), else PATH; None when absent (a failure in CI,
/// through `require`).
fn linter(env: &str, name: &str) -> Option<PathBuf> {
    let found = std::env::var_os(env).map(PathBuf::from).or_else(|| {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    });
    let missing = format!("{name} not found: set {env} or put it on PATH (.ci/run installs it)");
    if require(found.is_some(), &missing) {
        found
    } else {
        None
    }
}

#[test]
fn the_workflow_is_pinned_least_privileged_and_consistent() {
    let text = std::fs::read_to_string(workflow_path()).unwrap();
    let w = workflow();

    // Every action pinned to a full commit, with the version it is in a comment.
    let uses: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("- uses:")
                .or(l.trim().strip_prefix("uses:"))
        })
        .map(str::trim)
        .collect();
    assert!(uses.len() >= 3, "{uses:?}");
    for u in &uses {
        let (action, rest) = u.split_once('@').unwrap_or_else(|| panic!("unpinned: {u}"));
        let (sha, comment) = rest.split_once(" # v").unwrap_or((rest, ""));
        assert!(
            sha.len() == 40 && sha.chars().all(|c| c.is_ascii_hexdigit()),
            "{action} not pinned to a commit: {u}"
        );
        assert!(!comment.is_empty(), "{action}: say which version {sha} is");
    }

    // Triggers: main's pushes make the baseline, pull requests are compared with it.
    let on = &w["on"];
    assert_eq!(on["push"]["branches"][0].as_str(), Some("main"));
    assert!(on.get("pull_request").is_some());

    // Read-only by default; the job adds only what it uses.
    assert_eq!(w["permissions"]["contents"].as_str(), Some("read"));
    let job = &w["jobs"]["benchmark"];
    let perms = job["permissions"].as_mapping().expect("job permissions");
    let mut granted: Vec<(String, String)> = perms
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().unwrap().to_string(),
                v.as_str().unwrap().to_string(),
            )
        })
        .collect();
    granted.sort();
    assert_eq!(
        granted,
        [
            ("actions".to_string(), "read".to_string()),
            ("contents".into(), "read".into()),
            ("pull-requests".into(), "write".into()),
        ]
    );
    assert!(job["timeout-minutes"].as_u64().is_some_and(|m| m <= 60));

    // The artifact main uploads is the one the compare script downloads.
    let steps = job["steps"].as_sequence().unwrap();
    let upload = steps
        .iter()
        .find(|s| s["if"].as_str() == Some("github.event_name == 'push'"))
        .expect("an upload step on push");
    assert_eq!(upload["with"]["name"].as_str(), Some("gqlbench-main"));
    let compare = std::fs::read_to_string(repo().join(".github/scripts/compare.sh")).unwrap();
    assert!(compare.contains("--name gqlbench-main"));
    assert!(compare.contains("--workflow \"$workflow\""));
    assert!(compare.contains("GQLBENCH_WORKFLOW:-benchmark.yml"));

    // The scripts the steps run exist and are executable.
    for s in steps {
        if let Some(run) = s["run"].as_str() {
            for word in run.split_whitespace().filter(|w| w.starts_with(".github/")) {
                let p = repo().join(word);
                let mode = std::fs::metadata(&p)
                    .unwrap_or_else(|_| panic!("{word} missing"))
                    .permissions();
                use std::os::unix::fs::PermissionsExt;
                assert!(mode.mode() & 0o111 != 0, "{word} not executable");
            }
        }
    }

    // The benchmark runs scenarios of the catalogue, with an allowance the gate takes.
    let args = w["env"]["GQLBENCH_ARGS"].as_str().unwrap();
    let words: Vec<&str> = args.split_whitespace().collect();
    assert_eq!(&words[..2], ["run", "servers"], "{args}");
    let list = words
        .iter()
        .position(|w| *w == "--scenarios")
        .map(|i| words[i + 1])
        .expect("--scenarios");
    for s in list.split(',') {
        assert!(
            repo().join(format!("scenarios/servers/{s}.toml")).is_file(),
            "GQLBENCH_ARGS names scenario {s}, which scenarios/servers/ lacks"
        );
    }
    let allowance = w["env"]["GQLBENCH_ALLOWANCE"].as_str().unwrap();
    let pct: f64 = allowance.trim_end_matches('%').parse().unwrap();
    assert!(pct > 0.0 && pct <= 100.0, "{allowance}");

    // The linters GitHub's own checks would run; shellcheck over .ci's scripts too.
    let shellcheck = linter("GQLBENCH_SHELLCHECK", "shellcheck");
    if let Some(sc) = &shellcheck {
        let out = Command::new(sc)
            .args([
                ".github/scripts/benchmark.sh",
                ".github/scripts/compare.sh",
                ".ci/run",
                ".ci/prerequisites",
            ])
            .current_dir(repo())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "shellcheck: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    if let Some(al) = linter("GQLBENCH_ACTIONLINT", "actionlint") {
        let mut cmd = Command::new(al);
        cmd.current_dir(repo());
        // actionlint runs shellcheck on every `run:` block when it has one.
        if let Some(sc) = &shellcheck {
            cmd.arg(format!("-shellcheck={}", sc.display()));
        }
        cmd.arg(workflow_path());
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "actionlint: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// A `gh` that plays GitHub for the scripts: logs its arguments, answers `run list` with
/// FAKE_GH_RUN_ID, `run download` by copying FAKE_GH_BASELINE, the comments listing with
/// FAKE_GH_COMMENT_ID, and keeps a posted or updated body in $FAKE_GH_DIR/posted.md.
const FAKE_GH: &str = r#"#!/usr/bin/env bash
set -eu
echo "$*" >>"$FAKE_GH_DIR/log"
case "$1 ${2:-}" in
  "run list") echo "${FAKE_GH_RUN_ID:-}" ;;
  "run download")
    dir=""; prev=""
    for a in "$@"; do [ "$prev" = "--dir" ] && dir=$a; prev=$a; done
    [ -n "${FAKE_GH_BASELINE:-}" ] || { echo "artifact not found" >&2; exit 1; }
    mkdir -p "$dir" && cp -r "$FAKE_GH_BASELINE"/. "$dir"/ ;;
  api*)
    for a in "$@"; do
      case "$a" in body=@*) cp "${a#body=@}" "$FAKE_GH_DIR/posted.md" ;; esac
    done
    case "$*" in *--paginate*) echo "${FAKE_GH_COMMENT_ID:-}" ;; esac ;;
  *) echo "fake gh: unexpected $*" >&2; exit 3 ;;
esac
"#;

struct FakeGithub {
    dir: tempfile::TempDir,
}

struct Step {
    code: Option<i32>,
    stdout: String,
    log: String,
    posted: Option<String>,
    summary: String,
}

impl FakeGithub {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("gh"), FAKE_GH).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(bin.join("gh"), std::fs::Permissions::from_mode(0o755)).unwrap();
        Self { dir }
    }

    /// Runs a script of `.github/scripts` as its workflow step would, with `env` on top.
    fn step(&self, script: &str, arg: &Path, env: &[(&str, &str)]) -> Step {
        let d = self.dir.path();
        for f in ["log", "posted.md", "summary.md"] {
            let _ = std::fs::remove_file(d.join(f));
        }
        let path = format!(
            "{}:{}",
            d.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut cmd = Command::new(repo().join(".github/scripts").join(script));
        cmd.arg(arg)
            .current_dir(repo())
            .env("PATH", path)
            .env("FAKE_GH_DIR", d)
            .env("GQLBENCH", env!("CARGO_BIN_EXE_gqlbench"))
            .env("GITHUB_REPOSITORY", "acme/api")
            .env("GITHUB_STEP_SUMMARY", d.join("summary.md"))
            .env("PR_NUMBER", "42")
            .env("GQLBENCH_ALLOWANCE", "5%");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let read = |f: &str| std::fs::read_to_string(d.join(f)).ok();
        Step {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr),
            log: read("log").unwrap_or_default(),
            posted: read("posted.md"),
            summary: read("summary.md").unwrap_or_default(),
        }
    }
}

/// One real short run of the fixture catalogue, shared by this file's tests.
fn measured() -> &'static RunResults {
    static RUN: OnceLock<RunResults> = OnceLock::new();
    RUN.get_or_init(|| fixture_run("fx-good"))
}

#[test]
fn a_pull_request_is_compared_with_main_and_commented_once() {
    let gh = FakeGithub::new();
    let runs = tempfile::tempdir().unwrap();
    let base = with_samples(measured(), "fx-good", &[1000.0, 1010.0, 990.0]);
    let main = save_run(runs.path(), "main", &base);
    let same = save_run(
        runs.path(),
        "same",
        &with_samples(&base, "fx-good", &[1005.0, 995.0, 1000.0]),
    );
    let slow = save_run(
        runs.path(),
        "slow",
        &with_samples(&base, "fx-good", &[500.0, 505.0, 495.0]),
    );
    let baseline = [
        ("FAKE_GH_RUN_ID", "7001"),
        ("FAKE_GH_BASELINE", main.to_str().unwrap()),
    ];
    let marker = "<!-- gqlbench-benchmark -->";

    // A regression: the step fails, and the one comment says why.
    let s = gh.step("compare.sh", &slow, &baseline);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(s.log.contains("run list --repo acme/api --workflow benchmark.yml --branch main --event push --status success"), "{}", s.log);
    assert!(s
        .log
        .contains("run download 7001 --repo acme/api --name gqlbench-main"));
    assert!(s
        .log
        .contains("api --method POST repos/acme/api/issues/42/comments"));
    let posted = s.posted.expect("a comment posted");
    assert!(posted.starts_with(marker), "{posted}");
    assert!(posted.contains("REGRESSION"), "{posted}");
    assert!(
        posted.contains("**gate --fail-if-slower 5%: FAILED"),
        "{posted}"
    );
    assert!(posted.contains("actions/runs/7001"), "{posted}");
    assert_eq!(s.summary, posted, "the job summary shows the same");

    // The next push: no regression, and the earlier comment is updated, not a second posted.
    let s = gh.step(
        "compare.sh",
        &same,
        &[baseline[0], baseline[1], ("FAKE_GH_COMMENT_ID", "555")],
    );
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(s
        .log
        .contains("api --method PATCH repos/acme/api/issues/comments/555"));
    assert!(!s.log.contains("--method POST"), "{}", s.log);
    let posted = s.posted.expect("the comment updated");
    assert!(posted.contains("passed"), "{posted}");
    assert!(!posted.contains("REGRESSION"));

    // No successful run on main yet: nothing to compare, the step passes and says so.
    let s = gh.step("compare.sh", &slow, &[]);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(!s.log.contains("run download"));
    assert!(s.posted.unwrap().contains("No baseline"));

    // main's artifact expired: the same.
    let s = gh.step("compare.sh", &slow, &[("FAKE_GH_RUN_ID", "7001")]);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(s.posted.unwrap().contains("could not be downloaded"));

    // Main measured on another CPU: shown, not gated.
    let mut other = with_samples(&base, "fx-good", &[500.0, 505.0, 495.0]);
    other.machine.cpu_model = "Another CPU @ 1.0GHz".into();
    let other = save_run(runs.path(), "other-cpu", &other);
    let s = gh.step("compare.sh", &other, &baseline);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    let posted = s.posted.unwrap();
    assert!(posted.contains("**Not gated**"), "{posted}");
    assert!(posted.contains("Another CPU"), "{posted}");
    assert!(!posted.contains("gate --fail-if-slower"), "{posted}");

    // The benchmark wrote nothing: the step fails, and the comment says to read the log.
    let s = gh.step("compare.sh", &runs.path().join("missing"), &baseline);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(s.posted.unwrap().contains("wrote no results"));
}

#[test]
fn the_benchmark_step_runs_the_configured_command_and_keeps_its_exit_code() {
    let gh = FakeGithub::new();
    let runs = tempfile::tempdir().unwrap();
    let args = |target: &str| {
        format!(
            "run e2e --root {} --scenarios hello --targets {target} --trials 1 --duration 300ms",
            fixtures().display()
        )
    };
    let out = runs.path().join("good");
    let s = gh.step("benchmark.sh", &out, &[("GQLBENCH_ARGS", &args("fx-good"))]);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(read_results(&out).scenarios[0].targets[0].name == "fx-good");
    assert!(s.summary.contains("gqlbench report of this run (exit 0)"));
    assert!(s.summary.contains("fx-good"));

    // A target answering wrong: the run's exit 1 is the step's, and its results are kept
    // for the compare step to name the row.
    let out = runs.path().join("wrong");
    let s = gh.step(
        "benchmark.sh",
        &out,
        &[("GQLBENCH_ARGS", &args("fx-wrong"))],
    );
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(out.join("results.json").is_file());
    assert!(s.summary.contains("(exit 1)"));

    // Bad arguments: exit 2 from gqlbench, as is.
    let s = gh.step(
        "benchmark.sh",
        &runs.path().join("bad"),
        &[("GQLBENCH_ARGS", "run e2e --no-such-flag")],
    );
    assert_eq!(s.code, Some(2), "{}", s.stdout);
}
