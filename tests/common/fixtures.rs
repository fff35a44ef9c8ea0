//! Where the catalogues are: this checkout's and the fixture one, and editable copies.
use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    repo().join("tests/fixtures")
}

/// A copy of the fixture catalogue that a test may edit.
pub fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), dir.path());
    dir
}

/// A fixture target `name` of `kind` in the catalogue at `root`, serving in `mode`, with
/// `env` (NAME=VALUE) in its environment, started from the fixture server's absolute path
/// so its processes are told from other tests' (and found when left running): that path.
pub fn abs_fixture_target(root: &Path, name: &str, kind: &str, mode: &str, env: &[&str]) -> String {
    let server = root.join("targets/_fixture/server.mjs");
    let dir = root.join("targets").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let env: String = env.iter().map(|e| format!("\"{e}\", ")).collect();
    let command = if env.is_empty() {
        String::new()
    } else {
        format!("\"env\", {env}")
    };
    std::fs::write(
        dir.join("target.toml"),
        format!(
            "name = \"{name}\"\nkind = \"{kind}\"\nworkloads = [\"fixture\"]\n\n[start]\ncommand = [{command}\"node\", \"{}\", \"{mode}\"]\nready_timeout = \"10s\"\n",
            server.display()
        ),
    )
    .unwrap();
    server.display().to_string()
}

/// A fixture target `name` in the catalogue at `root` serving `mode`, implementing
/// `workloads` (written as in TOML, e.g. `"\"fixture-apq\""`), with `extra` lines after its
/// start section.
pub fn workload_target(root: &Path, name: &str, mode: &str, workloads: &str, extra: &str) {
    let server = root.join("targets/_fixture/server.mjs");
    let dir = root.join("targets").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("target.toml"),
        format!(
            "name = \"{name}\"\nkind = \"server\"\nworkloads = [{workloads}]\n\n[start]\ncommand = [\"node\", \"{}\", \"{mode}\"]\nready_timeout = \"10s\"\n{extra}",
            server.display()
        ),
    )
    .unwrap();
}

/// One short trial of each target of the e2e `scenario` in the catalogue at `root`, one
/// target at a time (300 ms of warm-up, 800 ms measured), written to `out`.
pub fn one_short_trial(root: &Path, scenario: &str, out: &Path) -> super::Outcome {
    one_short_trial_of(root, scenario, "", out)
}

/// [`one_short_trial`] of the `targets` named (comma-separated; "" for the scenario's own).
pub fn one_short_trial_of(
    root: &Path,
    scenario: &str,
    targets: &str,
    out: &Path,
) -> super::Outcome {
    let mut run = super::Gqlbench::run("e2e");
    if !targets.is_empty() {
        run = run.targets(targets);
    }
    run.root(root)
        .scenarios(scenario)
        .trials(1)
        .args([
            "--warmup",
            "300ms",
            "--duration",
            "800ms",
            "--one-at-a-time",
        ])
        .out(out)
        .go()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// targets/_federation with its npm packages (the composition library) installed.
pub fn federation_tools() -> PathBuf {
    let dir = repo().join("targets/_federation");
    if !dir
        .join("node_modules/@theguild/federation-composition")
        .exists()
    {
        let st = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir)
            .status()
            .expect("npm");
        assert!(st.success(), "npm ci in targets/_federation failed");
    }
    dir
}
