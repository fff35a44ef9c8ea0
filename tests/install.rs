//! End-to-end: installs of targets. Two installs of one target at once run its install
//! command once (the second waits, then finds it current); a program the install declares
//! in `requires` that is missing fails it at once, naming the program and how to get it.
mod common;
use common::*;

use std::process::Stdio;
use std::time::Duration;

fn add_target(root: &std::path::Path, name: &str, install: &str) {
    let dir = root.join("targets").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("target.toml"),
        format!(
            "name = \"{name}\"\nkind = \"server\"\nworkloads = [\"fixture\"]\n\n[install]\n{install}\n\n[start]\ncommand = [\"node\", \"../_fixture/server.mjs\", \"good\"]\nready_timeout = \"10s\"\n"
        ),
    )
    .unwrap();
}

#[test]
fn two_installs_of_one_target_at_once_run_its_command_once() {
    let root = fixture_copy();
    // The install appends to a counter and then holds until the test releases it, so the
    // second install certainly starts while the first one runs.
    add_target(
        root.path(),
        "fx-slow-install",
        r#"command = ["sh", "-c", "echo run >> runs.txt; i=0; while [ ! -f release ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; touch installed"]
check = "installed"
requires = [{ program = "sh", hint = "a POSIX shell" }]"#,
    );
    let tdir = root.path().join("targets/fx-slow-install");
    let logs = tempfile::tempdir().unwrap();
    let start = |log: &str| {
        bin()
            .arg("--root")
            .arg(root.path())
            .args(["install", "fx-slow-install"])
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(logs.path().join(log)).unwrap())
            .spawn()
            .unwrap()
    };
    let first = start("first.err");
    wait_for(
        "the first install to start its command",
        Duration::from_secs(30),
        || tdir.join("runs.txt").exists(),
    );
    let second = start("second.err");
    let waiting = format!(
        "waiting for another install of fx-slow-install (PID {}",
        first.id()
    );
    wait_for(
        "the second install to wait for the first",
        Duration::from_secs(30),
        || {
            std::fs::read_to_string(logs.path().join("second.err"))
                .unwrap_or_default()
                .contains(&waiting)
        },
    );
    std::fs::write(tdir.join("release"), "").unwrap();
    let (a, b) = (
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    );
    let second_err = std::fs::read_to_string(logs.path().join("second.err")).unwrap();
    assert!(a.status.success() && b.status.success(), "{second_err}");
    assert_eq!(
        std::fs::read_to_string(tdir.join("runs.txt")).unwrap(),
        "run\n",
        "the install command ran once"
    );
    assert!(second_err.contains("already installed"), "{second_err}");
}

#[test]
fn a_missing_prerequisite_fails_the_install_at_once_naming_it_and_its_hint() {
    let root = fixture_copy();
    add_target(
        root.path(),
        "fx-needs-tool",
        r#"command = ["sh", "-c", "touch ran"]
check = "ran"
requires = [
  { program = "sh", hint = "a POSIX shell" },
  { program = "gqlbench-no-such-tool", hint = "apt-get install gqlbench-no-such-tool" },
]"#,
    );
    let tdir = root.path().join("targets/fx-needs-tool");
    let o = run(bin()
        .arg("--root")
        .arg(root.path())
        .args(["install", "fx-needs-tool"]));
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("`gqlbench-no-such-tool` (get it: apt-get install gqlbench-no-such-tool)"),
        "{e}"
    );
    assert!(
        !e.contains("`sh`"),
        "only the missing program is named: {e}"
    );
    assert!(!tdir.join("ran").exists(), "the install command never ran");

    // `list` shows what is missing.
    let o = run(bin().arg("--root").arg(root.path()).arg("list"));
    assert!(String::from_utf8_lossy(&o.stdout).contains("fx-needs-tool: `gqlbench-no-such-tool`"));

    // A run's own install of it fails the same way, and the target is reported as such.
    let out = tempfile::tempdir().unwrap();
    run(bin()
        .arg("--root")
        .arg(root.path())
        .args([
            "run",
            "e2e",
            "--scenarios",
            "hello",
            "--targets",
            "fx-needs-tool",
        ])
        .arg("--out")
        .arg(out.path()));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.path().join("results.json")).unwrap()).unwrap();
    let t = target(&r, 0, "fx-needs-tool");
    assert_eq!(t["status"], "install_failed");
    assert!(
        t["problem"]
            .as_str()
            .unwrap()
            .contains("`gqlbench-no-such-tool` (get it: apt-get install gqlbench-no-such-tool)"),
        "{}",
        t["problem"]
    );
    assert!(!tdir.join("ran").exists());
}
