//! The GitHub Actions workflow (`.github/workflows/benchmark.yml`) and its scripts
//! (`.github/scripts/`), checked without GitHub:
//! - the workflow parses, pins every action to a commit, asks only for the permissions it
//!   uses, names the artifact the compare script downloads, and runs scenarios that exist;
//!   which steps run for a push, a manual run and a pull request is evaluated from its
//!   expressions; actionlint and shellcheck pass (required when GQLBENCH_CI=1, as `.ci/run`
//!   sets);
//! - the scripts run as the workflow runs them, with a fake `gh` on PATH that plays GitHub:
//!   a regression fails the step and is posted, an existing comment is updated rather than
//!   a second one posted, main's latest push or manual run is the baseline, no baseline
//!   (none yet, expired) and a different CPU pass with a note, GitHub that cannot be reached
//!   fails with gh's error, no results fail.
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
    let upload = step_named(steps, "Keep the results as main's baseline");
    assert_eq!(upload["with"]["name"].as_str(), Some("gqlbench-main"));
    let compare = std::fs::read_to_string(repo().join(".github/scripts/compare.sh")).unwrap();
    assert!(compare.contains("artifact_name='gqlbench-main'"));
    assert!(compare.contains("--name \"$artifact_name\""));
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

fn step_named<'a>(steps: &'a [serde_yaml_ng::Value], name: &str) -> &'a serde_yaml_ng::Value {
    steps
        .iter()
        .find(|s| s["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no step named {name:?}"))
}

/// Which of the job's steps run for `event` on `git_ref`, by evaluating the job's `env` and
/// each step's `if:` as GitHub would (the benchmark step succeeded, nothing was cancelled).
fn steps_run(event: &str, git_ref: &str) -> Vec<String> {
    use common::gha_expr::{eval, Context};
    let w = workflow();
    let job = &w["jobs"]["benchmark"];
    let mut ctx = Context(
        [
            ("github.event_name", event),
            ("github.ref", git_ref),
            ("steps.bench.conclusion", "success"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );
    for (k, v) in job["env"].as_mapping().into_iter().flatten() {
        let (k, v) = (k.as_str().unwrap(), v.as_str().unwrap());
        let value = eval_template(v, &ctx);
        ctx.0.insert(format!("env.{k}"), value);
    }
    job["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|s| match s["if"].as_str() {
            Some(cond) => eval(cond, &ctx).truthy(),
            None => true,
        })
        .map(|s| s["name"].as_str().unwrap_or("(unnamed)").to_string())
        .collect()
}

/// An `env` value: the expression's value when it is one `${{ }}`, else the text as is.
fn eval_template(v: &str, ctx: &common::gha_expr::Context) -> String {
    let t = v.trim();
    if t.starts_with("${{") && t.ends_with("}}") && t.matches("${{").count() == 1 {
        common::gha_expr::eval(t, ctx).text()
    } else {
        assert!(!t.contains("${{"), "unsupported env template {v}");
        v.to_string()
    }
}

/// docs/ci.md: a push to main and a manual run on main (workflow_dispatch) both make the
/// baseline; a manual run elsewhere and a pull request keep their own results only, and
/// only a pull request is compared.
#[test]
fn pushes_and_manual_runs_on_main_make_the_baseline_and_pull_requests_use_it() {
    let w = workflow();
    assert!(w["on"].get("workflow_dispatch").is_some());
    let baseline = "Keep the results as main's baseline";
    let compare = "Compare with main and comment";
    let own = "Keep this run's results";
    for (event, git_ref, expected) in [
        ("push", "refs/heads/main", vec![baseline]),
        ("workflow_dispatch", "refs/heads/main", vec![baseline]),
        ("workflow_dispatch", "refs/heads/try-a-change", vec![own]),
        ("pull_request", "refs/pull/42/merge", vec![compare, own]),
    ] {
        let ran = steps_run(event, git_ref);
        for step in [baseline, compare, own] {
            assert_eq!(
                ran.iter().any(|s| s == step),
                expected.contains(&step),
                "{event} on {git_ref}: step {step:?}; steps run: {ran:?}"
            );
        }
        assert!(ran.iter().any(|s| s == "Benchmark"), "{ran:?}");
    }
}

/// The evaluator the test above relies on, on GitHub's rules it uses.
#[test]
fn workflow_expressions_evaluate_as_github_does() {
    use common::gha_expr::{eval, Context, Value};
    let ctx = Context(
        [
            ("github.ref", "refs/heads/main"),
            ("github.event_name", "push"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );
    let t = |e: &str| eval(e, &ctx);
    assert_eq!(t("github.event_name == 'push'"), Value::Bool(true));
    assert_eq!(t("github.event_name == 'PUSH'"), Value::Bool(true));
    assert_eq!(
        t("${{ github.ref != 'refs/heads/main' }}"),
        Value::Bool(false)
    );
    assert_eq!(
        t("github.ref == 'refs/heads/main' && (github.event_name == 'pull_request' || github.event_name == 'push')"),
        Value::Bool(true)
    );
    assert_eq!(
        t("!cancelled() && github.event_name == 'pull_request'"),
        Value::Bool(false)
    );
    assert_eq!(t("'' || 'it''s'"), Value::Str("it's".into()));
    assert_eq!(t("github.event_name && 'x'"), Value::Str("x".into()));
    assert_eq!(Value::Bool(true).text(), "true");
}

/// A `gh` that plays GitHub for the scripts. It logs its arguments and answers with the
/// JSON the real API would give, through the caller's `--jq` filter (run by jq, as gh
/// does): `run list` from FAKE_GH_RUNS (newest first; `[]` when unset), a run's artifacts
/// from FAKE_GH_ARTIFACTS (default: one `gqlbench-main`, not expired), `run download` by
/// copying FAKE_GH_BASELINE, the comments listing with FAKE_GH_COMMENT_ID; a posted or
/// updated body is kept in $FAKE_GH_DIR/posted.md. FAKE_GH_FAIL=list|artifacts|download
/// makes that call fail as gh does when GitHub cannot be reached or refuses the token.
const FAKE_GH: &str = r#"#!/usr/bin/env bash
set -eu
echo "$*" >>"$FAKE_GH_DIR/log"
jq_arg() {
  local prev="" a
  for a in "$@"; do [ "$prev" = "--jq" ] && { printf '%s' "$a"; return; }; prev=$a; done
  printf '.'
}
fail_if() {
  if [ "${FAKE_GH_FAIL:-}" = "$1" ]; then
    echo "$2" >&2
    exit 1
  fi
}
case "$1 ${2:-}" in
  "run list")
    fail_if list 'error connecting to api.github.com'
    printf '%s' "${FAKE_GH_RUNS:-[]}" | jq -r "$(jq_arg "$@")" ;;
  "run download")
    fail_if download 'error downloading gqlbench-main: HTTP 401: Bad credentials (https://api.github.com/repos/acme/api/actions/artifacts/99/zip)'
    dir=""; prev=""
    for a in "$@"; do [ "$prev" = "--dir" ] && dir=$a; prev=$a; done
    [ -n "${FAKE_GH_BASELINE:-}" ] || { echo "no valid artifacts found to download" >&2; exit 1; }
    mkdir -p "$dir" && cp -r "$FAKE_GH_BASELINE"/. "$dir"/ ;;
  "api repos/"*/actions/runs/*/artifacts*)
    fail_if artifacts 'HTTP 403: Resource not accessible by integration (https://api.github.com/repos/acme/api/actions/runs/7001/artifacts)'
    one='{"total_count":1,"artifacts":[{"name":"gqlbench-main","expired":false}]}'
    printf '%s' "${FAKE_GH_ARTIFACTS:-$one}" | jq -r "$(jq_arg "$@")" ;;
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

/// Run folders of the fixture catalogue's one row: main's, one alike, one half as fast.
struct Runs {
    dir: tempfile::TempDir,
    base: RunResults,
    main: PathBuf,
    same: PathBuf,
    slow: PathBuf,
}

fn runs() -> Runs {
    let dir = tempfile::tempdir().unwrap();
    let base = with_samples(measured(), "fx-good", &[1000.0, 1010.0, 990.0]);
    let main = save_run(dir.path(), "main", &base);
    let same = save_run(
        dir.path(),
        "same",
        &with_samples(&base, "fx-good", &[1005.0, 995.0, 1000.0]),
    );
    let slow = save_run(
        dir.path(),
        "slow",
        &with_samples(&base, "fx-good", &[500.0, 505.0, 495.0]),
    );
    Runs {
        dir,
        base,
        main,
        same,
        slow,
    }
}

/// main's runs as `gh run list --json databaseId,event` lists them, newest first.
const MAIN_PUSHED: &str = r#"[{"databaseId":7001,"event":"push"}]"#;

#[test]
fn a_pull_request_is_compared_with_main_and_commented_once() {
    let gh = FakeGithub::new();
    let r = runs();
    let baseline = [
        ("FAKE_GH_RUNS", MAIN_PUSHED),
        ("FAKE_GH_BASELINE", r.main.to_str().unwrap()),
    ];
    let marker = "<!-- gqlbench-benchmark -->";

    // A regression: the step fails, and the one comment says why.
    let s = gh.step("compare.sh", &r.slow, &baseline);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(
        s.log.contains(
            "run list --repo acme/api --workflow benchmark.yml --branch main --status success"
        ),
        "{}",
        s.log
    );
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
        &r.same,
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

    // Main measured on another CPU: shown, not gated.
    let mut other = with_samples(&r.base, "fx-good", &[500.0, 505.0, 495.0]);
    other.machine.cpu_model = "Another CPU @ 1.0GHz".into();
    let other = save_run(r.dir.path(), "other-cpu", &other);
    let s = gh.step("compare.sh", &other, &baseline);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    let posted = s.posted.unwrap();
    assert!(posted.contains("**Not gated**"), "{posted}");
    assert!(posted.contains("Another CPU"), "{posted}");
    assert!(!posted.contains("gate --fail-if-slower"), "{posted}");

    // The benchmark wrote nothing: the step fails, and the comment says to read the log.
    let s = gh.step("compare.sh", &r.dir.path().join("missing"), &baseline);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(s.posted.unwrap().contains("wrote no results"));
}

/// A manual run on main (workflow_dispatch) is a baseline like a push (docs/ci.md); a pull
/// request from a fork's branch that is also called main is not.
#[test]
fn the_baseline_is_main_s_latest_push_or_manual_run() {
    let gh = FakeGithub::new();
    let r = runs();
    let listed = r#"[{"databaseId":7010,"event":"pull_request"},{"databaseId":7002,"event":"workflow_dispatch"},{"databaseId":7001,"event":"push"}]"#;
    let s = gh.step(
        "compare.sh",
        &r.slow,
        &[
            ("FAKE_GH_RUNS", listed),
            ("FAKE_GH_BASELINE", r.main.to_str().unwrap()),
        ],
    );
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(
        s.log
            .contains("api repos/acme/api/actions/runs/7002/artifacts?name=gqlbench-main"),
        "{}",
        s.log
    );
    assert!(
        s.log
            .contains("run download 7002 --repo acme/api --name gqlbench-main"),
        "{}",
        s.log
    );
    let posted = s.posted.unwrap();
    assert!(posted.contains("actions/runs/7002"), "{posted}");
    assert!(posted.contains("REGRESSION"), "{posted}");

    // Only pull requests on a branch named main: no baseline.
    let s = gh.step(
        "compare.sh",
        &r.slow,
        &[(
            "FAKE_GH_RUNS",
            r#"[{"databaseId":7010,"event":"pull_request"}]"#,
        )],
    );
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(!s.log.contains("7010"), "{}", s.log);
    assert!(s.posted.unwrap().contains("No baseline: no successful run"));
}

/// Nothing to compare with (no run on main, its artifact expired or gone) passes and says
/// which; GitHub that cannot be asked (network, token) fails the step quoting gh's error,
/// and never reads as "no baseline".
#[test]
fn no_baseline_passes_saying_why_and_a_failure_to_reach_github_fails() {
    let gh = FakeGithub::new();
    let r = runs();
    let main = r.main.to_str().unwrap();

    // No successful run on main yet.
    let s = gh.step("compare.sh", &r.slow, &[]);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(!s.log.contains("run download"));
    let posted = s.posted.unwrap();
    assert!(
        posted.contains("No baseline: no successful run"),
        "{posted}"
    );
    assert!(posted.contains("workflow_dispatch"), "{posted}");

    // main's artifact has expired: GitHub still lists it, marked expired.
    let s = gh.step(
        "compare.sh",
        &r.slow,
        &[
            ("FAKE_GH_RUNS", MAIN_PUSHED),
            ("FAKE_GH_BASELINE", main),
            (
                "FAKE_GH_ARTIFACTS",
                r#"{"total_count":1,"artifacts":[{"name":"gqlbench-main","expired":true}]}"#,
            ),
        ],
    );
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(!s.log.contains("run download"), "{}", s.log);
    let posted = s.posted.unwrap();
    assert!(posted.contains("No baseline"), "{posted}");
    assert!(posted.contains("run 7001 has expired"), "{posted}");

    // ... or no longer lists it.
    let s = gh.step(
        "compare.sh",
        &r.slow,
        &[
            ("FAKE_GH_RUNS", MAIN_PUSHED),
            ("FAKE_GH_ARTIFACTS", r#"{"total_count":0,"artifacts":[]}"#),
        ],
    );
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(!s.log.contains("run download"), "{}", s.log);
    assert!(s.posted.unwrap().contains("run 7001 has no artifact"));

    // The download itself fails (a token refused, the network): not compared, and the
    // step fails with gh's own words.
    for (fail, gh_said, what) in [
        (
            "download",
            "HTTP 401: Bad credentials",
            "is there but could not be downloaded",
        ),
        (
            "artifacts",
            "HTTP 403: Resource not accessible by integration",
            "the artifacts of main's run 7001 could not be listed",
        ),
        (
            "list",
            "error connecting to api.github.com",
            "on main could not be listed",
        ),
    ] {
        let s = gh.step(
            "compare.sh",
            &r.slow,
            &[
                ("FAKE_GH_RUNS", MAIN_PUSHED),
                ("FAKE_GH_BASELINE", main),
                ("FAKE_GH_FAIL", fail),
            ],
        );
        assert_eq!(s.code, Some(1), "{fail}: {}", s.stdout);
        let posted = s.posted.unwrap();
        assert!(posted.contains("**Not compared**"), "{fail}: {posted}");
        assert!(posted.contains(what), "{fail}: {posted}");
        assert!(posted.contains(gh_said), "{fail}: {posted}");
        assert!(!posted.contains("No baseline"), "{fail}: {posted}");
        assert!(s.stdout.contains(gh_said), "{fail}: {}", s.stdout);
        assert_eq!(s.summary, posted);
    }
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
