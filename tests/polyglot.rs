//! Servers in other languages (issue 40) install from their own registries into their own
//! folder; a machine without the toolchain gets the install's reason and its fix, not a
//! half-made environment. (Their answers are checked with every server's in
//! tests/servers.rs, `gqlbench check servers`.)
mod common;

use common::*;

/// The Strawberry target's folder copied into the fixture catalogue (its install writes
/// `.venv` beside it: never into this checkout).
fn catalogue_with_strawberry() -> tempfile::TempDir {
    let dir = fixture_copy();
    let to = dir.path().join("targets/strawberry");
    std::fs::create_dir_all(&to).unwrap();
    for f in [
        "target.toml",
        "install.sh",
        "requirements.txt",
        "server.py",
        "schema.py",
        "social.py",
    ] {
        std::fs::copy(repo().join("targets/strawberry").join(f), to.join(f)).unwrap();
    }
    dir
}

#[test]
fn a_python_too_old_or_missing_fails_the_install_naming_what_to_install() {
    let dir = catalogue_with_strawberry();
    let old = dir.path().join("python3.9");
    std::fs::write(&old, "#!/bin/sh\nexit 1\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o755)).unwrap();
    for python in [old.as_os_str(), "/nonexistent/python3".as_ref()] {
        let out = Gqlbench::new(["install", "strawberry"])
            .root(dir.path())
            .env("PYTHON", python)
            .go();
        let all = format!("{}\n{}", out.stdout, out.stderr);
        assert_eq!(out.code, Some(1), "{all}");
        assert!(all.contains("strawberry needs Python 3.11+"), "{all}");
        assert!(all.contains("python3-venv"), "{all}");
        assert!(
            !dir.path().join("targets/strawberry/.venv").exists(),
            "no half-made environment"
        );
    }
}

#[test]
fn install_without_names_leaves_a_server_needing_another_toolchain_to_its_runs() {
    let dir = catalogue_with_strawberry();
    let out = Gqlbench::new(["install"])
        .root(dir.path())
        .env("PYTHON", "/nonexistent/python3")
        .go();
    let all = format!("{}\n{}", out.stdout, out.stderr);
    assert!(
        all.contains("strawberry: installed with the runs that use it"),
        "{all}"
    );
    assert!(!all.contains("strawberry needs Python"), "{all}");
    assert!(!dir.path().join("targets/strawberry/.venv").exists());
}
