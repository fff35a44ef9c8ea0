//! Servers in other languages (issue 40) install from their own registries into their own
//! folder; a machine without the toolchain gets the install's reason and its fix, not a
//! half-made environment; a run of servers in four languages names each one's toolchain,
//! reads its threads and groups the rows by language. (Their answers are checked with every
//! server's in tests/measured/servers.rs, `gqlbench check servers`.)

use crate::common::*;
use gqlbench::results::TargetStatus;

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
    let _turn = file_turn(module_path!());
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
    let _turn = file_turn(module_path!());
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

/// gqlgen (Go), async-graphql (Rust), Strawberry (Python) and Mercurius (Node) on the simple
/// query, two short rounds at 20 connections (at the scenario's 100, Strawberry's ~190 req/s
/// on one CPU leaves connections that complete nothing in a 1 s slice on a slow machine, and
/// the row is rightly flagged saturated; CI failed so on stop 54): every row valid, each runtime named with the version of the
/// toolchain that built or starts it, its threads read from /proc, and the report's
/// "servers by language" table with one row per language. (Spring for GraphQL, whose JVM
/// takes about 10 s to start on one CPU, is checked in tests/measured/servers.rs.)
#[test]
fn servers_in_four_languages_are_measured_named_and_grouped() {
    let _turn = file_turn(module_path!());
    let out_dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("servers")
        .root(repo())
        .scenarios("simple")
        .targets("mercurius,strawberry,gqlgen,async-graphql")
        .trials(2)
        .warmup("0s")
        .duration("1s")
        .args(["--slice", "1s", "--connections", "20"])
        .json()
        .out(out_dir.path())
        .go();
    let r = out.results();
    // Each row's verdict first: the JSON echoed above is too long for a CI log's excerpt.
    let rows: Vec<String> = r.scenarios[0]
        .targets
        .iter()
        .map(|t| {
            let s = t.summary.as_ref();
            format!(
                "{}: {:?} {:?} valid={:?} failures={:?} saturated={:?} caveats={:?}",
                t.name,
                t.status,
                t.problem,
                s.map(|s| s.valid),
                s.map(|s| s.failures),
                s.map(|s| s.saturated),
                s.map(|s| &s.caveats)
            )
        })
        .collect();
    assert!(out.success(), "{rows:#?}\n{}", out.stderr);
    for (name, runtime) in [
        ("mercurius", "node v"),
        ("strawberry", "python 3."),
        ("gqlgen", "go 1."),
        ("async-graphql", "rust 1."),
    ] {
        let t = target(&r, 0, name);
        assert_eq!(t.status, TargetStatus::Ok, "{name}: {:?}", t.problem);
        let s = t.summary.as_ref().expect("a summary");
        assert!(s.valid && s.failures == 0, "{name}: {s:?}");
        let rt = t.runtime.as_deref().unwrap_or_default();
        assert!(rt.starts_with(runtime), "{name}: runtime {rt}");
        assert!(s.threads_peak.is_some_and(|n| n >= 1), "{name}");
    }
    let md = std::fs::read_to_string(out_dir.path().join("report.md")).unwrap();
    assert!(md.contains("servers by language"), "{md}");
    for lang in ["| JavaScript |", "| Python |", "| Go |", "| Rust |"] {
        assert!(md.contains(lang), "{lang}: {md}");
    }
    assert!(md.contains("threads (peak)"), "{md}");
}
