//! The README's test command, `.ci/run` (CI's one entry point): the quick start names it;
//! `.ci/prerequisites`, which it runs first, finds what the tests need as the tests look for
//! it and installs what is missing with apt-get (as root or through sudo), or names it and
//! stops; and `require` (tests/common/prereq.rs), the one way a test skips for a missing
//! prerequisite, fails instead under the GQLBENCH_CI=1 that `.ci/run` sets.
use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

/// A program on this machine's PATH (the test's fake environments link to it).
fn on_path(name: &str) -> PathBuf {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} not on PATH"))
}

fn write_exe(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `.ci/prerequisites`, the first thing `.ci/run` (the README's test command) does, run on
/// a PATH holding only bash, env and `programs` (stubs that succeed; `go` answers `go env
/// GOVERSION` with `go_version`), with a fake apt-get and sudo when `apt` is set. The fake
/// apt-get logs its arguments and "installs" a package by putting the stub of the same name
/// from `installable` on PATH. Returns the exit code, stderr and the apt-get log.
fn prerequisites(
    programs: &[&str],
    go_version: &str,
    apt: bool,
    installable: &[&str],
) -> (Option<i32>, String, String) {
    let tmp = tempfile::tempdir().unwrap();
    let (bin, stubs, log) = (
        tmp.path().join("bin"),
        tmp.path().join("stubs"),
        tmp.path().join("apt.log"),
    );
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&stubs).unwrap();
    for p in ["bash", "env"] {
        std::os::unix::fs::symlink(on_path(p), bin.join(p)).unwrap();
    }
    let stub = |dir: &Path, name: &str| {
        let body = if name == "go" {
            format!("#!/bin/sh\necho {go_version}\n")
        } else {
            "#!/bin/sh\nexit 0\n".to_string()
        };
        write_exe(&dir.join(name), &body);
    };
    for p in programs {
        stub(&bin, p);
    }
    for p in installable {
        stub(&stubs, p);
    }
    if apt {
        let cp = on_path("cp");
        write_exe(
            &bin.join("apt-get"),
            &format!(
                "#!/bin/sh\necho \"apt-get $*\" >>\"{log}\"\nfor p in \"$@\"; do [ -f \"{stubs}/$p\" ] && {cp} -p \"{stubs}/$p\" \"{bin}/\"; done\nexit 0\n",
                log = log.display(),
                stubs = stubs.display(),
                cp = cp.display(),
                bin = bin.display()
            ),
        );
        write_exe(
            &bin.join("sudo"),
            &format!(
                "#!/bin/sh\necho \"sudo $*\" >>\"{}\"\nexec env \"$@\"\n",
                log.display()
            ),
        );
    }
    let out = Command::new(repo().join(".ci/prerequisites"))
        .env_clear()
        .env("PATH", &bin)
        .current_dir(repo())
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        std::fs::read_to_string(&log).unwrap_or_default(),
    )
}

/// The README's test command installs what the tests need, python3 included, with
/// apt-get (as root or through sudo), and says what it could not install.
#[test]
fn ci_installs_the_tests_prerequisites_with_apt_get_or_names_them() {
    let all = [
        "go",
        "python3",
        "chromium",
        "jq",
        "shellcheck",
        "cc",
        "make",
        "protoc",
        "initdb",
        "postgres",
        "java",
        "javac",
        "mvn",
    ];
    // Everything there: nothing installed.
    let (code, err, log) = prerequisites(&all, "go1.26.0", true, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(log, "", "apt-get ran with everything present");

    // Only python3 missing: installed with apt-get, then found.
    let without_python: Vec<&str> = all.iter().copied().filter(|p| *p != "python3").collect();
    let (code, err, log) = prerequisites(&without_python, "go1.26.0", true, &["python3"]);
    assert_eq!(code, Some(0), "{err}");
    let install = log
        .lines()
        .find(|l| l.contains("apt-get install"))
        .unwrap_or_else(|| panic!("no apt-get install: {log}"));
    assert!(
        install.ends_with("apt-get install -y -qq python3"),
        "{install}"
    );

    // Nothing there: every package asked for; what apt-get did not bring fails, named.
    let (code, err, log) = prerequisites(&[], "", true, &[]);
    assert_eq!(code, Some(1), "{err}");
    let install = log
        .lines()
        .find(|l| l.contains("apt-get install"))
        .unwrap_or_else(|| panic!("no apt-get install: {log}"));
    for pkg in [
        "golang-go",
        "chromium",
        "python3",
        "jq",
        "shellcheck",
        "build-essential",
        "default-jdk-headless",
        "maven",
        "protobuf-compiler",
    ] {
        assert!(install.split(' ').any(|w| w == pkg), "{pkg}: {install}");
    }
    assert!(err.contains("still missing after apt-get install"), "{err}");
    assert!(err.contains("python3"), "{err}");
    assert!(
        !err.contains("protobuf-compiler") || err.contains("only the native"),
        "protoc is never required: {err}"
    );

    // No apt-get: the missing ones are named and nothing is attempted.
    let (code, err, _) = prerequisites(&without_python, "go1.26.0", false, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("no apt-get here") && err.contains("python3"),
        "{err}"
    );

    // A Go that cannot fetch the toolchain tools/k6 asks for.
    let (code, err, _) = prerequisites(&all, "go1.19.8", true, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("Go 1.19.8 cannot build tools/k6"), "{err}");
}

/// The README's quick start tests with `.ci/run`, the script CI runs, which sets
/// GQLBENCH_CI=1 (a missing prerequisite fails) and runs the native gateways' test when
/// their builds are cached.
#[test]
fn the_readme_s_test_command_is_the_ci_script() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let quick = &readme[readme.find("## Quick start").unwrap()..];
    let quick = &quick[..3 + quick[3..].find("\n## ").unwrap()];
    let test_line = quick
        .lines()
        .find(|l| l.contains("# the tests"))
        .unwrap_or_else(|| panic!("no test command in the quick start:\n{quick}"));
    assert_eq!(
        test_line.split_whitespace().next(),
        Some(".ci/run"),
        "{test_line}"
    );
    assert!(
        quick.contains("apt-get") && quick.contains("sudo"),
        "{quick}"
    );
    let run = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    assert!(run.contains(".ci/prerequisites"));
    assert!(run.contains("GQLBENCH_CI=1"));
    assert!(run.contains("install --check"));
    assert!(run.contains("--test measured -- --ignored native_gateways"));
}

/// `require`, the one way a test skips for a missing prerequisite: a failure in CI.
#[test]
fn a_missing_prerequisite_fails_in_ci_and_is_skipped_elsewhere() {
    assert!(require_in(true, true, "present"));
    assert!(require_in(false, true, "present"));
    assert!(!require_in(false, false, "no python3 here"));
    let in_ci = std::panic::catch_unwind(|| require_in(true, false, "no python3 here"));
    let msg = in_ci.expect_err("passed in CI without its prerequisite");
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains("no python3 here") && msg.contains("GQLBENCH_CI=1"),
        "{msg}"
    );
}
