//! The GitHub Actions workflow (`.github/workflows/benchmark.yml`), its scripts
//! (`.github/scripts/`) and the example workflow for a user's own server
//! (`examples/ci/own-server.yml`), checked without GitHub:
//! - the workflows parse, pin every action to a commit, ask only for the permissions they
//!   use and run scenarios and targets that exist; which jobs and steps run for a push, a
//!   manual run and a pull request is evaluated from their expressions; actionlint and
//!   shellcheck pass (required when GQLBENCH_CI=1, as `.ci/run` sets);
//! - the pull request job checks out the base commit beside the head, builds gqlbench
//!   once, and its script builds the target in both checkouts and runs `gqlbench ab` with
//!   both roots;
//! - the scripts run as the workflow runs them, with a fake `gh` (plays GitHub) and a fake
//!   `gqlbench` (installs, and an `ab` that writes a report and exits as told) on PATH:
//!   ab's exit 0, 1 (a regression, or a failure) and 2 are the step's, each with its own
//!   line in the one PR comment; a side or the harness that does not build fails, named;
//! - the own-server example checks out base and head, installs gqlbench once, builds both
//!   sides and gates on `gqlbench ab --a-root base --b-root .`, its comment block run as
//!   GitHub would; its suite folder loads as a catalogue; docs/ci.md shows it verbatim.
use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

fn workflow_path() -> PathBuf {
    repo().join(".github/workflows/benchmark.yml")
}

fn example_path() -> PathBuf {
    repo().join("examples/ci/own-server.yml")
}

fn yaml(path: &Path) -> serde_yaml_ng::Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn workflow() -> serde_yaml_ng::Value {
    yaml(&workflow_path())
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

/// Every `uses:` of a workflow's text: pinned to a full commit, with its version in a
/// comment. Returns them.
fn assert_pinned(text: &str) -> Vec<String> {
    let uses: Vec<String> = text
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("- uses:")
                .or(l.trim().strip_prefix("uses:"))
        })
        .map(|u| u.trim().to_string())
        .collect();
    for u in &uses {
        let (action, rest) = u.split_once('@').unwrap_or_else(|| panic!("unpinned: {u}"));
        let (sha, comment) = rest.split_once(" # v").unwrap_or((rest, ""));
        assert!(
            sha.len() == 40 && sha.chars().all(|c| c.is_ascii_hexdigit()),
            "{action} not pinned to a commit: {u}"
        );
        assert!(!comment.is_empty(), "{action}: say which version {sha} is");
    }
    uses
}

/// A job's permissions, sorted.
fn permissions(job: &serde_yaml_ng::Value) -> Vec<(String, String)> {
    let mut granted: Vec<(String, String)> = job["permissions"]
        .as_mapping()
        .expect("job permissions")
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().unwrap().to_string(),
                v.as_str().unwrap().to_string(),
            )
        })
        .collect();
    granted.sort();
    granted
}

fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
    p.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn the_workflow_is_pinned_least_privileged_and_consistent() {
    let text = std::fs::read_to_string(workflow_path()).unwrap();
    let w = workflow();

    let uses = assert_pinned(&text);
    assert!(uses.len() >= 5, "{uses:?}");
    // The example uses the same vetted commits of the same actions.
    let example_uses = assert_pinned(&std::fs::read_to_string(example_path()).unwrap());
    for u in &example_uses {
        assert!(uses.contains(u), "the example's {u} is not the workflow's");
    }

    // Triggers: pull requests are gated; main's pushes (and manual runs) are its history.
    let on = &w["on"];
    assert_eq!(on["push"]["branches"][0].as_str(), Some("main"));
    assert!(on.get("pull_request").is_some());
    assert!(on.get("workflow_dispatch").is_some());

    // Read-only by default; each job adds only what it uses: the PR job comments, the
    // history job only reads (no more listing of main's runs).
    assert_eq!(w["permissions"]["contents"].as_str(), Some("read"));
    let ab = &w["jobs"]["ab"];
    let history = &w["jobs"]["history"];
    assert_eq!(
        permissions(ab),
        pairs(&[("contents", "read"), ("pull-requests", "write")])
    );
    assert_eq!(permissions(history), pairs(&[("contents", "read")]));
    for job in [ab, history] {
        assert!(job["timeout-minutes"].as_u64().is_some_and(|m| m <= 60));
    }

    // main's record keeps its name.
    let steps = history["steps"].as_sequence().unwrap();
    let upload = step_named(steps, "Keep the results as main's history");
    assert_eq!(upload["with"]["name"].as_str(), Some("gqlbench-main"));

    // The scripts the steps run exist and are executable.
    for s in steps.iter().chain(ab["steps"].as_sequence().unwrap()) {
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

    // main's history runs scenarios of the catalogue.
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

    // The gate's configuration: a scenario and a target of the catalogue that runs it, an
    // allowance `ab` takes ((0, 50%]) and a budget that is a duration within the job's time.
    let env = |k: &str| w["env"][k].as_str().unwrap_or_else(|| panic!("env {k}"));
    let cat = gqlbench::catalog::Catalog::load(&repo()).unwrap();
    let (suite, name) = env("GQLBENCH_AB_SCENARIO").split_once('/').unwrap();
    let scenario = cat.scenario(suite, name).unwrap();
    let target = cat.target(env("GQLBENCH_AB_TARGET")).unwrap();
    assert!(
        target.file.workloads.contains(&scenario.file.workload),
        "target {} does not serve workload {}",
        target.name,
        scenario.file.workload
    );
    let pct = gqlbench::cli::parse_percent(env("GQLBENCH_AB_ALLOWANCE")).unwrap();
    assert!(pct > 0.0 && pct <= 50.0, "{pct}");
    let budget = gqlbench::cli::parse_duration(env("GQLBENCH_AB_BUDGET")).unwrap();
    let timeout = ab["timeout-minutes"].as_u64().unwrap();
    assert!(
        budget.as_secs() + 15 * 60 <= timeout * 60,
        "the budget {budget:?} leaves too little of the job's {timeout} minutes for the builds"
    );

    // The linters GitHub's own checks would run; shellcheck over .ci's scripts too.
    let shellcheck = linter("GQLBENCH_SHELLCHECK", "shellcheck");
    if let Some(sc) = &shellcheck {
        let out = Command::new(sc)
            .args([
                ".github/scripts/benchmark.sh",
                ".github/scripts/ab.sh",
                ".github/scripts/comment.sh",
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
        for file in [workflow_path(), example_path()] {
            let mut cmd = Command::new(&al);
            cmd.current_dir(repo());
            // actionlint runs shellcheck on every `run:` block when it has one.
            if let Some(sc) = &shellcheck {
                cmd.arg(format!("-shellcheck={}", sc.display()));
            }
            cmd.arg(&file);
            let out = cmd.output().unwrap();
            assert!(
                out.status.success(),
                "actionlint {}: {}{}",
                file.display(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

fn step_named<'a>(steps: &'a [serde_yaml_ng::Value], name: &str) -> &'a serde_yaml_ng::Value {
    steps
        .iter()
        .find(|s| s["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no step named {name:?}"))
}

/// The step that runs `needle`, and its index.
fn step_running<'a>(
    steps: &'a [serde_yaml_ng::Value],
    needle: &str,
) -> (usize, &'a serde_yaml_ng::Value) {
    let found: Vec<(usize, &serde_yaml_ng::Value)> = steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s["run"].as_str().is_some_and(|r| r.contains(needle)))
        .collect();
    assert_eq!(found.len(), 1, "steps running {needle:?}: {found:?}");
    found[0]
}

/// The `actions/checkout` steps, in order.
fn checkouts(steps: &[serde_yaml_ng::Value]) -> Vec<&serde_yaml_ng::Value> {
    steps
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout@"))
        })
        .collect()
}

/// Which jobs run for `event` on `git_ref`, and which of their steps, by evaluating each
/// job's `if:`, its `env` and each step's `if:` as GitHub would (every step succeeded,
/// nothing was cancelled).
fn steps_run(event: &str, git_ref: &str) -> Vec<(String, Vec<String>)> {
    use common::gha_expr::{eval, Context};
    let w = workflow();
    let mut out = Vec::new();
    for (name, job) in w["jobs"].as_mapping().unwrap() {
        let mut ctx = Context(
            [
                ("github.event_name", event),
                ("github.ref", git_ref),
                ("steps.bench.conclusion", "success"),
                ("steps.harness.outcome", "success"),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        );
        if let Some(cond) = job["if"].as_str() {
            if !eval(cond, &ctx).truthy() {
                continue;
            }
        }
        for (k, v) in job["env"].as_mapping().into_iter().flatten() {
            let (k, v) = (k.as_str().unwrap(), v.as_str().unwrap());
            let value = eval_template(v, &ctx);
            ctx.0.insert(format!("env.{k}"), value);
        }
        let steps = job["steps"]
            .as_sequence()
            .unwrap()
            .iter()
            .filter(|s| match s["if"].as_str() {
                Some(cond) => eval(cond, &ctx).truthy(),
                None => true,
            })
            .map(|s| s["name"].as_str().unwrap_or("(unnamed)").to_string())
            .collect();
        out.push((name.as_str().unwrap().to_string(), steps));
    }
    out
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

/// docs/ci.md: a pull request runs the `ab` job only (no benchmark of its own, no stored
/// baseline); a push to main and a manual run on main keep main's record; a manual run
/// elsewhere keeps its own results.
#[test]
fn pull_requests_run_ab_and_main_s_runs_keep_its_history() {
    let compare = "Build base and head, compare them (gqlbench ab) and comment";
    let history = "Keep the results as main's history";
    let own = "Keep this run's results";
    for (event, git_ref, job, expected) in [
        ("push", "refs/heads/main", "history", vec![history]),
        (
            "workflow_dispatch",
            "refs/heads/main",
            "history",
            vec![history],
        ),
        (
            "workflow_dispatch",
            "refs/heads/try-a-change",
            "history",
            vec![own],
        ),
        ("pull_request", "refs/pull/42/merge", "ab", vec![compare]),
    ] {
        let ran = steps_run(event, git_ref);
        assert_eq!(ran.len(), 1, "{event}: one job runs, not {ran:?}");
        let (name, steps) = &ran[0];
        assert_eq!(name, job, "{event} on {git_ref}");
        for step in [compare, history, own] {
            assert_eq!(
                steps.iter().any(|s| s == step),
                expected.contains(&step),
                "{event} on {git_ref}: step {step:?}; steps run: {steps:?}"
            );
        }
        assert_eq!(
            steps.iter().any(|s| s == "Benchmark"),
            job == "history",
            "{steps:?}"
        );
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

/// A `gh` that plays GitHub for the comment: it logs its arguments, answers the comments
/// listing with FAKE_GH_COMMENT_ID (through the caller's `--jq`-less echo, as the marker's
/// filter would), and keeps a posted or updated body in $FAKE_GH_DIR/posted.md.
const FAKE_GH: &str = r#"#!/usr/bin/env bash
set -eu
echo "gh $*" >>"$FAKE_GH_DIR/log"
case "$1" in
  api)
    for a in "$@"; do
      case "$a" in body=@*) cp "${a#body=@}" "$FAKE_GH_DIR/posted.md" ;; esac
    done
    case "$*" in *--paginate*) echo "${FAKE_GH_COMMENT_ID:-}" ;; esac ;;
  *) echo "fake gh: unexpected $*" >&2; exit 3 ;;
esac
"#;

/// A `gqlbench` that plays the harness: logs its arguments (to the same log as gh);
/// `install` prints and succeeds, or fails in the root FAKE_INSTALL_FAIL names; `ab` writes
/// FAKE_AB_REPORT as report.md and FAKE_AB_RESULTS as results.json into --out (each when
/// set) and exits with FAKE_AB_EXIT; exit 2 says why on stderr and writes nothing, as a
/// refused configuration does.
const FAKE_GQLBENCH: &str = r#"#!/usr/bin/env bash
set -eu
echo "gqlbench $*" >>"$FAKE_GH_DIR/log"
root=.; out=""; prev=""
for a in "$@"; do
  [ "$prev" = "--root" ] && root=$a
  [ "$prev" = "--out" ] && out=$a
  prev=$a
done
case " $* " in
  *" install "*)
    echo "installing in $root"
    if [ "${FAKE_INSTALL_FAIL:-}" = "$root" ]; then
      echo "npm ERR! ETARGET No matching version found for graphql@99" >&2
      exit 1
    fi ;;
  *" ab "*)
    echo "ab: slice 1 of 40"
    code=${FAKE_AB_EXIT:-0}
    if [ "$code" = 2 ]; then
      echo "error: --allowance 0%: outside (0, 50%]" >&2
      exit 2
    fi
    mkdir -p "$out"
    if [ -n "${FAKE_AB_REPORT:-}" ]; then printf '%s\n' "$FAKE_AB_REPORT" >"$out/report.md"; fi
    if [ -n "${FAKE_AB_RESULTS:-}" ]; then printf '%s\n' "$FAKE_AB_RESULTS" >"$out/results.json"; fi
    exit "$code" ;;
  *) echo "fake gqlbench: unexpected $*" >&2; exit 3 ;;
esac
"#;

struct FakeGithub {
    dir: tempfile::TempDir,
}

#[derive(Debug)]
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
        use std::os::unix::fs::PermissionsExt;
        for (name, text) in [("gh", FAKE_GH), ("gqlbench", FAKE_GQLBENCH)] {
            std::fs::write(bin.join(name), text).unwrap();
            std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(0o755))
                .unwrap();
        }
        Self { dir }
    }

    fn fake_gqlbench(&self) -> String {
        self.dir
            .path()
            .join("bin/gqlbench")
            .to_str()
            .unwrap()
            .into()
    }

    /// Runs a script of `.github/scripts` as its workflow step would, in the repository,
    /// with the real gqlbench unless `env` says otherwise.
    fn step(&self, script: &str, arg: &Path, env: &[(&str, &str)]) -> Step {
        let mut cmd = Command::new(repo().join(".github/scripts").join(script));
        cmd.arg(arg)
            .current_dir(repo())
            .env("GQLBENCH", env!("CARGO_BIN_EXE_gqlbench"));
        self.go(cmd, env)
    }

    /// Runs a workflow's `run:` block as GitHub does (bash -e -o pipefail), in `cwd`.
    fn block(&self, run: &str, cwd: &Path, env: &[(&str, &str)]) -> Step {
        let file = self.dir.path().join("block.sh");
        std::fs::write(&file, run).unwrap();
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&file)
            .current_dir(cwd);
        self.go(cmd, env)
    }

    fn go(&self, mut cmd: Command, env: &[(&str, &str)]) -> Step {
        let d = self.dir.path();
        for f in ["log", "posted.md", "summary.md"] {
            let _ = std::fs::remove_file(d.join(f));
        }
        let path = format!(
            "{}:{}",
            d.join("bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        cmd.env("PATH", path)
            .env("FAKE_GH_DIR", d)
            .env("GITHUB_REPOSITORY", "acme/api")
            .env("GITHUB_STEP_SUMMARY", d.join("summary.md"))
            .env("PR_NUMBER", "42");
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

    /// ab.sh as the PR job runs it (the workflow's own configuration and the step's env),
    /// with the fake gqlbench, into a fresh folder; `env` on top.
    fn ab(&self, env: &[(&str, &str)]) -> (Step, tempfile::TempDir) {
        let w = workflow();
        let out = tempfile::tempdir().unwrap();
        let fake = self.fake_gqlbench();
        let mut all: Vec<(String, String)> = Vec::new();
        for (k, v) in w["env"].as_mapping().unwrap() {
            all.push((k.as_str().unwrap().into(), v.as_str().unwrap().into()));
        }
        let steps = w["jobs"]["ab"]["steps"].as_sequence().unwrap();
        let (_, step) = step_running(steps, ".github/scripts/ab.sh");
        for (k, v) in step["env"].as_mapping().unwrap() {
            let v = v.as_str().unwrap();
            if !v.contains("${{") {
                all.push((k.as_str().unwrap().into(), v.into()));
            }
        }
        all.extend(
            [
                ("GQLBENCH", fake.as_str()),
                ("GQLBENCH_BASE_SHA", "1111111aaaaaaa"),
                ("GITHUB_SHA", "2222222bbbbbbb"),
                ("GQLBENCH_HARNESS_BUILD", "success"),
            ]
            .iter()
            .chain(env)
            .map(|(k, v)| (k.to_string(), v.to_string())),
        );
        let refs: Vec<(&str, &str)> = all.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let s = self.step("ab.sh", &out.path().join("ab"), &refs);
        (s, out)
    }
}

const MARKER: &str = "<!-- gqlbench-benchmark -->";
const REPORT: &str = "# gqlbench ab: servers/simple, graphql-yoga\n\nhead vs base: -0.4% req/s [-1.1%, +0.3%]: no significant change";

/// The PR job: the head in `.`, the base commit in base/, one build of gqlbench from the
/// head before the step that compares, and that step gives ab both roots, after building
/// the target in each.
#[test]
fn the_pull_request_job_checks_out_the_base_and_runs_ab_with_both_roots() {
    let w = workflow();
    let job = &w["jobs"]["ab"];
    let steps = job["steps"].as_sequence().unwrap();

    let co = checkouts(steps);
    assert_eq!(co.len(), 2, "{co:?}");
    assert!(co[0]["with"]["ref"].is_null() && co[0]["with"]["path"].is_null());
    assert_eq!(
        co[1]["with"]["ref"].as_str(),
        Some("${{ github.event.pull_request.base.sha }}")
    );
    let base_dir = co[1]["with"]["path"].as_str().expect("the base's path");

    // gqlbench is built once, from the head, before the comparison.
    let (build, harness) = step_running(steps, "cargo build");
    assert_eq!(
        harness["run"].as_str(),
        Some("cargo build --release --locked")
    );
    let harness_id = harness["id"].as_str().expect("the build's id");
    let (i, ab) = step_running(steps, ".github/scripts/ab.sh");
    assert!(build < i);
    let pos = |s: &serde_yaml_ng::Value| steps.iter().position(|x| x == s).unwrap();
    assert!(
        pos(co[1]) < build,
        "the base is there before anything builds"
    );
    assert_eq!(ab["if"].as_str(), Some("${{ !cancelled() }}"));
    let env = &ab["env"];
    assert_eq!(env["GQLBENCH_BASE_ROOT"].as_str(), Some(base_dir));
    assert_eq!(env["GQLBENCH_HEAD_ROOT"].as_str(), Some("."));
    assert_eq!(
        env["GQLBENCH_HARNESS_BUILD"].as_str(),
        Some(format!("${{{{ steps.{harness_id}.outcome }}}}").as_str())
    );
    assert_eq!(
        env["PR_NUMBER"].as_str(),
        Some("${{ github.event.pull_request.number }}")
    );
    // No stored baseline on the PR path any more: nothing downloads one.
    let text = std::fs::read_to_string(workflow_path()).unwrap();
    assert!(!text.contains("run download") && !text.contains("compare.sh"));
    assert!(!repo().join(".github/scripts/compare.sh").exists());

    // What the step runs: the target built in each root, then ab with both.
    let gh = FakeGithub::new();
    let (s, out) = gh.ab(&[("FAKE_AB_REPORT", REPORT)]);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    let lines: Vec<&str> = s
        .log
        .lines()
        .filter(|l| l.starts_with("gqlbench"))
        .collect();
    let dir = out.path().join("ab");
    assert_eq!(
        lines,
        [
            format!("gqlbench --root {base_dir} install graphql-yoga"),
            "gqlbench --root . install graphql-yoga".to_string(),
            format!(
                "gqlbench ab servers/simple --target graphql-yoga --a-root {base_dir} --b-root . \
                 --a-label base --b-label head --allowance 5% --budget 10m --out {} --force",
                dir.display()
            ),
        ]
    );
    // The configuration comes from the workflow's env: another value goes through.
    let (s, _out) = gh.ab(&[
        ("GQLBENCH_AB_SCENARIO", "servers/medium"),
        ("GQLBENCH_AB_ALLOWANCE", "3%"),
        (
            "GQLBENCH_AB_ARGS",
            "--a-env NODE_OPTIONS=--max-old-space-size=512",
        ),
    ]);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(s.log.contains("gqlbench ab servers/medium "), "{}", s.log);
    assert!(s.log.contains(" --allowance 3% "), "{}", s.log);
    assert!(
        s.log
            .contains("--force --a-env NODE_OPTIONS=--max-old-space-size=512"),
        "{}",
        s.log
    );
}

/// ab's exit code is the step's, and the one comment says what it means: 0 passed, 1 a
/// regression or a failure to measure (told apart by the run's verdict when it records
/// one), 2 a configuration error; a second push updates the comment.
#[test]
fn the_ab_step_keeps_ab_s_exit_code_and_says_what_it_means() {
    let gh = FakeGithub::new();

    let (s, out) = gh.ab(&[("FAKE_AB_REPORT", REPORT)]);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(
        s.log
            .contains("gh api --method POST repos/acme/api/issues/42/comments"),
        "{}",
        s.log
    );
    let posted = s.posted.expect("a comment posted");
    assert!(posted.starts_with(MARKER), "{posted}");
    assert!(
        posted.contains("**Passed**: head is not slower than base beyond the 5% allowance"),
        "{posted}"
    );
    assert!(
        posted.contains("no significant change"),
        "the report: {posted}"
    );
    assert!(posted.contains("Base `1111111`"), "{posted}");
    assert!(posted.contains("head `2222222`"), "{posted}");
    assert_eq!(s.summary, posted, "the job summary shows the same");
    assert_eq!(
        std::fs::read_to_string(out.path().join("ab/comment.md")).unwrap(),
        posted
    );

    // The next push: a regression, and the comment is updated, not a second one posted.
    let (s, _out) = gh.ab(&[
        ("FAKE_AB_EXIT", "1"),
        ("FAKE_AB_REPORT", "head is 7.9% slower [-9.0%, -6.8%]"),
        (
            "FAKE_AB_RESULTS",
            r#"{"verdict":{"exit_code":1,"failures":[],"regressions":["servers/simple A/B: head is slower than base: -6.1% [-8.0, -4.2], beyond the ±5% allowance"]}}"#,
        ),
        ("FAKE_GH_COMMENT_ID", "555"),
    ]);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(
        s.log
            .contains("gh api --method PATCH repos/acme/api/issues/comments/555"),
        "{}",
        s.log
    );
    assert!(!s.log.contains("--method POST"), "{}", s.log);
    let posted = s.posted.expect("the comment updated");
    assert!(
        posted.contains("**Regression**: head is slower than base, and a slowdown beyond the 5% allowance is not ruled out"),
        "{posted}"
    );
    assert!(posted.contains("7.9% slower"), "{posted}");
    assert!(
        !posted.contains("Passed") && !posted.contains("Failed"),
        "{posted}"
    );

    // Exit 1 with a side that failed: a failure to measure, named, not a regression.
    let (s, _out) = gh.ab(&[
        ("FAKE_AB_EXIT", "1"),
        ("FAKE_AB_REPORT", "head: did not start"),
        (
            "FAKE_AB_RESULTS",
            r#"{"verdict":{"exit_code":1,"failures":["head (graphql-yoga): exited during start-up (code 1)"]}}"#,
        ),
    ]);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    let posted = s.posted.unwrap();
    assert!(posted.contains("**Failed to measure**"), "{posted}");
    assert!(
        posted.contains("- head (graphql-yoga): exited during start-up (code 1)"),
        "{posted}"
    );
    assert!(!posted.contains("Regression"), "{posted}");

    // Exit 1 with no verdict to read and no report: said as either, with ab's last words.
    let (s, _out) = gh.ab(&[("FAKE_AB_EXIT", "1")]);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    let posted = s.posted.unwrap();
    assert!(
        posted.contains("**Failed** (`gqlbench ab` exit 1)"),
        "{posted}"
    );
    assert!(posted.contains("wrote no report"), "{posted}");
    assert!(posted.contains("ab: slice 1 of 40"), "{posted}");

    // Exit 2: a configuration error, with what gqlbench said; nothing measured.
    let (s, _out) = gh.ab(&[("FAKE_AB_EXIT", "2"), ("GQLBENCH_AB_ALLOWANCE", "0%")]);
    assert_eq!(s.code, Some(2), "{}", s.stdout);
    let posted = s.posted.unwrap();
    assert!(posted.contains("**Configuration error**"), "{posted}");
    assert!(posted.contains("allowance `0%`"), "{posted}");
    assert!(posted.contains("outside (0, 50%]"), "{posted}");
    assert!(!posted.contains("Regression"), "{posted}");
}

/// A side that does not build, or a harness that did not: the step fails (exit 1), ab does
/// not run, and the comment names which, with the build's last lines.
#[test]
fn a_side_or_harness_that_does_not_build_fails_and_is_named() {
    let gh = FakeGithub::new();

    let (s, _out) = gh.ab(&[("FAKE_INSTALL_FAIL", "base")]);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(!s.log.contains("gqlbench ab"), "{}", s.log);
    assert!(!s.log.contains("--root . install"), "{}", s.log);
    let posted = s.posted.unwrap();
    assert!(posted.starts_with(MARKER), "{posted}");
    assert!(
        posted.contains("**Not compared: the build of the base failed.**"),
        "{posted}"
    );
    assert!(posted.contains("ETARGET"), "the build's output: {posted}");

    let (s, _out) = gh.ab(&[("FAKE_INSTALL_FAIL", ".")]);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(s.log.contains("--root base install"), "{}", s.log);
    assert!(!s.log.contains("gqlbench ab"), "{}", s.log);
    let posted = s.posted.unwrap();
    assert!(
        posted.contains("**Not compared: the build of the head failed.**"),
        "{posted}"
    );
    assert!(posted.contains("ETARGET"), "{posted}");

    let (s, _out) = gh.ab(&[("GQLBENCH_HARNESS_BUILD", "failure")]);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(!s.log.contains("gqlbench "), "nothing ran: {}", s.log);
    let posted = s.posted.unwrap();
    assert!(
        posted.contains("**Not compared: the harness did not build.**"),
        "{posted}"
    );
}

/// The example for a user's own server: a pull request workflow that checks out the base
/// commit beside the head, installs gqlbench once, builds both sides and gates on
/// `gqlbench ab --a-root base --b-root .`; its comment block, run as GitHub runs it, keeps
/// ab's exit code; its suite folder is a catalogue gqlbench loads; docs/ci.md shows the
/// file as it is.
#[test]
fn the_own_server_example_checks_out_base_and_head_and_gates_on_ab() {
    let w = yaml(&example_path());
    assert!(w["on"].get("pull_request").is_some());
    let jobs = w["jobs"].as_mapping().unwrap();
    assert_eq!(jobs.len(), 1);
    let job = jobs.values().next().unwrap();
    assert_eq!(
        permissions(job),
        pairs(&[("contents", "read"), ("pull-requests", "write")])
    );
    let steps = job["steps"].as_sequence().unwrap();
    let co = checkouts(steps);
    assert_eq!(co.len(), 2);
    assert!(co[0]["with"]["ref"].is_null() && co[0]["with"]["path"].is_null());
    assert_eq!(
        co[1]["with"]["ref"].as_str(),
        Some("${{ github.event.pull_request.base.sha }}")
    );
    assert_eq!(co[1]["with"]["path"].as_str(), Some("base"));

    // gqlbench once, then each side's build, then ab with both roots.
    let (install, i) = step_running(steps, "cargo install");
    let run = i["run"].as_str().unwrap();
    assert!(run.contains("--git \"$GQLBENCH_GIT\"") && run.contains(" gqlbench"));
    let (base, base_step) = step_running(steps, "--root base");
    let (head, head_step) = step_running(steps, "--root .");
    let (ab, ab_step) = step_running(steps, "gqlbench ab ");
    assert!(install < base && base < head && head < ab);
    for s in [base_step, head_step] {
        assert!(s["run"]
            .as_str()
            .unwrap()
            .starts_with("gqlbench install \"$TARGET\""));
    }
    let block = ab_step["run"].as_str().unwrap();
    for flag in [
        "--a-root base",
        "--b-root .",
        "--allowance \"$ALLOWANCE\"",
        "--budget \"$BUDGET\"",
    ] {
        assert!(block.contains(flag), "{flag}: {block}");
    }
    assert_eq!(ab_step["if"].as_str(), Some("${{ !cancelled() }}"));

    // Its configuration names the suite folder's target and scenario, which load.
    let env = |k: &str| w["env"][k].as_str().unwrap().to_string();
    let root = repo().join("examples/ci/own-server");
    let cat = gqlbench::catalog::Catalog::load(&root).unwrap();
    let target = cat.target(&env("TARGET")).unwrap();
    let scenario_name = env("SCENARIO");
    let (suite, name) = scenario_name.split_once('/').unwrap();
    let scenario = cat.scenario(suite, name).unwrap();
    assert!(target.file.workloads.contains(&scenario.file.workload));
    assert!(scenario.file.operations.len() >= 2);
    for op in &scenario.file.operations {
        cat.operation(&op.name)
            .unwrap_or_else(|e| panic!("{}: {e:#}", op.name));
    }
    assert!(
        target
            .file
            .start
            .command
            .iter()
            .any(|a| a.starts_with("../../")),
        "the server runs from the checkout: {:?}",
        target.file.start.command
    );
    assert!(cat.profiles().is_ok());

    // The block as GitHub runs it, with the fake gqlbench and gh on PATH.
    let gh = FakeGithub::new();
    let mut base_env: Vec<(String, String)> = w["env"]
        .as_mapping()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.as_str().unwrap().into(), v.as_str().unwrap().into()))
        .collect();
    base_env.extend(
        [
            ("PR", "42"),
            ("BASE_BUILT", "success"),
            ("HEAD_BUILT", "success"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    );
    let run_block = |extra: &[(&str, &str)]| {
        let cwd = tempfile::tempdir().unwrap();
        let mut all: Vec<(&str, &str)> = base_env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        all.extend_from_slice(extra);
        (gh.block(block, cwd.path(), &all), cwd)
    };
    let (s, cwd) = run_block(&[("FAKE_AB_REPORT", REPORT)]);
    assert_eq!(s.code, Some(0), "{}", s.stdout);
    assert!(
        s.log.contains(
            "gqlbench ab my-api/hot-path --target my-server --a-root base --b-root . \
             --a-label base --b-label head --allowance 5% --budget 10m --out results/ab --force"
        ),
        "{}",
        s.log
    );
    assert!(cwd.path().join("results/ab/comment.md").is_file());
    let posted = s.posted.unwrap();
    assert!(posted.contains("**Passed**"), "{posted}");
    assert!(posted.contains("no significant change"), "{posted}");
    assert!(s.log.contains("--method POST"), "{}", s.log);

    let (s, _cwd) = run_block(&[("FAKE_AB_EXIT", "1"), ("FAKE_GH_COMMENT_ID", "77")]);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(s
        .log
        .contains("--method PATCH repos/acme/api/issues/comments/77"));
    let posted = s.posted.unwrap();
    assert!(posted.contains("**Failed**"), "{posted}");
    assert!(posted.contains("No report"), "{posted}");

    let (s, _cwd) = run_block(&[("FAKE_AB_EXIT", "2")]);
    assert_eq!(s.code, Some(2), "{}", s.stdout);
    assert!(s.posted.unwrap().contains("**Configuration error**"));

    let (s, _cwd) = run_block(&[("BASE_BUILT", "failure")]);
    assert_eq!(s.code, Some(1), "{}", s.stdout);
    assert!(!s.log.contains("gqlbench ab"), "{}", s.log);
    assert!(s.posted.unwrap().contains("the base was not built"));

    // docs/ci.md shows the example whole, as the file is.
    let doc = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let open = "<!-- include: examples/ci/own-server.yml -->\n```yaml\n";
    let start = doc.find(open).expect("docs/ci.md includes the example") + open.len();
    let end = start + doc[start..].find("```\n<!-- /include -->").expect("closed");
    assert_eq!(
        &doc[start..end],
        std::fs::read_to_string(example_path()).unwrap(),
        "docs/ci.md's copy of examples/ci/own-server.yml differs from the file"
    );
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
    // in the run's artifact.
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
