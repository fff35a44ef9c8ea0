//! End-to-end: bad input gets a clear error naming the file, field or flag.
use crate::common;
use common::*;
use gqlbench::results::RunStatus;

/// `list` on a copy of the fixture catalogue whose fx-good manifest is edited by `edit`.
fn list_with_manifest(edit: impl FnOnce(String) -> String) -> Outcome {
    let dir = fixture_copy();
    let manifest = dir.path().join("targets/fx-good/target.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, edit(text)).unwrap();
    Gqlbench::new(["list"]).root(dir.path()).go()
}

#[test]
fn unknown_manifest_field_names_file_line_and_field() {
    let out = list_with_manifest(|t| t.replace("workloads =", "colour = \"blue\"\nworkloads ="));
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(e.contains("fx-good/target.toml"), "{e}");
    assert!(e.contains("colour"), "{e}");
    assert!(e.contains("line 4"), "{e}");
}

#[test]
fn a_workload_both_served_and_unsupported_is_refused() {
    let out = list_with_manifest(|t| format!("{t}\n[unsupported]\nfixture = \"no\"\n"));
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        e.contains("fx-good/target.toml") && e.contains("'fixture'"),
        "{e}"
    );
    let out = list_with_manifest(|t| format!("{t}\n[unsupported]\nother = \" \"\n"));
    out.assert_exit(2);
    assert!(out.stderr.contains("say why"), "{}", out.stderr);
}

#[test]
fn an_unknown_runtime_is_refused_naming_the_known_ones() {
    let out = list_with_manifest(|t| t.replace("workloads =", "runtime = \"cobol\"\nworkloads ="));
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        // fx-good's or a variant's that inherits it, whichever is read first.
        e.contains("/target.toml: field `runtime` is 'cobol'"),
        "{e}"
    );
    assert!(e.contains("node, bun, deno, python, go, rust, java"), "{e}");
    // A known one is taken.
    let out = list_with_manifest(|t| t.replace("workloads =", "runtime = \"go\"\nworkloads ="));
    out.assert_exit(0);
}

#[test]
fn malformed_duration_in_manifest_is_explained() {
    let out =
        list_with_manifest(|t| t.replace("ready_timeout = \"10s\"", "ready_timeout = \"soon\""));
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(e.contains("'soon' is not a duration"), "{e}");
}

#[test]
fn unknown_target_and_scenario_list_the_valid_ones() {
    let e2e = || Gqlbench::run("e2e").root(fixtures());
    let out = e2e().targets("nope").go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        e.contains("unknown target 'nope'") && e.contains("fx-good"),
        "{e}"
    );

    let out = e2e().scenarios("nope").go();
    assert!(out
        .stderr
        .contains("unknown scenario 'nope'; valid scenarios: batching, cold, cold-small, defer, defer-sse, depth, distinct, documents, efficiency, hello"));

    let out = Gqlbench::run("nosuite").root(fixtures()).go();
    assert!(
        out.stderr
            .contains("unknown suite 'nosuite'; valid suites: e2e"),
        "{}",
        out.stderr
    );
}

fn hello_query() -> std::path::PathBuf {
    fixtures().join("scenarios/queries/fixture/hello.graphql")
}

#[test]
fn load_refuses_a_remote_url_without_allow_remote() {
    let out = Gqlbench::load("http://192.0.2.1:4000/graphql", hello_query())
        .args(["-d", "1s"])
        .go();
    out.assert_exit(2);
    assert!(out.stderr.contains("--allow-remote"), "{}", out.stderr);
}

#[test]
fn bad_flags_are_named() {
    let load = || Gqlbench::load("http://127.0.0.1:9/graphql", hello_query());
    let out = load().args(["--variables", "{nope"]).go();
    out.assert_exit(2);
    assert!(out.stderr.contains("--variables"), "{}", out.stderr);

    // No scheme, or one `load` does not speak: the message offers only what it takes.
    for url in ["127.0.0.1:9/graphql", "ftp://127.0.0.1:9/graphql"] {
        let out = Gqlbench::load(url, hello_query()).go();
        out.assert_exit(2);
        assert!(out.stderr.contains("give an http:// URL"), "{}", out.stderr);
        assert!(!out.stderr.contains("ws://"), "{}", out.stderr);
    }

    let out = load().args(["-d", "ten"]).go();
    out.assert_exit(2);
    assert!(
        out.stderr.contains("'ten' is not a duration"),
        "{}",
        out.stderr
    );

    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .args(["--generator-cpus", "0-x"])
        .go();
    out.assert_exit(2);
    assert!(out.stderr.contains("--generator-cpus"), "{}", out.stderr);

    // A connection count of 0 is the flag's, not the scenario file's.
    let out = Gqlbench::run("e2e").root(fixtures()).args(["-c", "0"]).go();
    out.assert_exit(2);
    assert!(out.stderr.contains("--connections"), "{}", out.stderr);
    assert!(!out.stderr.contains(".toml"), "{}", out.stderr);

    // A scenario no target serves is blamed on the flag that chose it, with the reason a
    // chosen target's target.toml gives.
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("batching")
        .go();
    out.assert_exit(2);
    assert!(
        out.stderr.contains("--scenarios")
            && !out.stderr.contains("--targets")
            && out
                .stderr
                .contains("batching: no target serves its workload"),
        "{}",
        out.stderr
    );
    let out = Gqlbench::run("servers")
        .root(repo())
        .scenarios("batching")
        .targets("graphql-jit")
        .go();
    out.assert_exit(2);
    assert!(
        out.stderr.contains("--targets")
            && out
                .stderr
                .contains("graphql-jit does not serve it (its hand-written"),
        "{}",
        out.stderr
    );

    // One of the named targets runs nowhere: refused, not left out in silence.
    let out = Gqlbench::run("servers")
        .root(repo())
        .scenarios("batching")
        .targets("apollo-server,graphql-jit")
        .go();
    out.assert_exit(2);
    assert!(
        out.stderr.contains("--targets")
            && out.stderr.contains("graphql-jit is in no chosen scenario")
            && out.stderr.contains("batching runs apollo-server"),
        "{}",
        out.stderr
    );

    // A sweep's level twice, or -c beside a sweep (which sets the connections itself).
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .args(["--connection-sweep", "5,5"])
        .go();
    out.assert_exit(2);
    assert!(
        out.stderr.contains("--connection-sweep") && out.stderr.contains("5 is given twice"),
        "{}",
        out.stderr
    );
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .args(["--connection-sweep", "2,4", "-c", "7"])
        .go();
    out.assert_exit(2);
    assert!(
        out.stderr.contains("--connection-sweep") && out.stderr.contains("--connections"),
        "{}",
        out.stderr
    );

    // -c on scenarios whose load is a rate would change nothing: refused, naming them.
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("rate-sweep")
        .args(["-c", "5"])
        .go();
    out.assert_exit(2);
    assert!(
        out.stderr.contains("--connections") && out.stderr.contains("rate-sweep"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_output_folder_holding_a_run_is_refused_unless_force() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An earlier run's files, and one of the user's own.
    std::fs::write(
        d.join("results.json"),
        r#"{"schema_version": 0, "old": true}"#,
    )
    .unwrap();
    std::fs::create_dir_all(d.join("logs")).unwrap();
    std::fs::write(d.join("logs/hello-fx-other.log"), "old log").unwrap();
    std::fs::write(d.join("notes.txt"), "mine").unwrap();
    let fx_run = |out: &std::path::Path| {
        Gqlbench::run("e2e")
            .root(fixtures())
            .scenarios("hello")
            .targets("fx-good")
            .out(out)
    };
    let out = fx_run(d).go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        e.contains("--out:") && e.contains("earlier run") && e.contains("--force"),
        "{e}"
    );
    assert!(
        std::fs::read_to_string(d.join("results.json"))
            .unwrap()
            .contains("\"old\""),
        "nothing was touched"
    );

    let out = fx_run(d).arg("--force").go();
    assert_ne!(out.code, Some(2), "{}", out.stderr);
    assert_eq!(
        read_results(d).status,
        RunStatus::Complete,
        "the new run's results"
    );
    assert!(
        !d.join("logs/hello-fx-other.log").exists(),
        "the old run's logs are gone, not mixed with the new ones"
    );
    assert!(d.join("logs/hello-fx-good.log").exists());
    assert_eq!(
        std::fs::read_to_string(d.join("notes.txt")).unwrap(),
        "mine"
    );

    // A folder that does not exist yet is made.
    let new = d.join("new/run");
    let out = fx_run(&new).go();
    assert_ne!(out.code, Some(2), "{}", out.stderr);
    assert!(new.join("results.json").exists());
}

#[test]
fn an_overhead_scenario_naming_a_trace_collector_that_is_not_one_is_refused_by_field() {
    let dir = fixture_copy();
    let root = dir.path();
    let variant = root.join("targets/fx-good-traced");
    std::fs::create_dir_all(&variant).unwrap();
    std::fs::write(
        variant.join("target.toml"),
        "name = \"fx-good-traced\"\nbase = \"fx-good\"\ndescription = \"a variant\"\n",
    )
    .unwrap();
    let scenario = root.join("scenarios/e2e/traced.toml");
    let write = |collector: &str| {
        std::fs::write(
            &scenario,
            format!(
                "workload = \"fixture\"\ntargets = [\"fx-good\", \"fx-good-traced\"]\n\
                 [[operations]]\nname = \"fixture/hello\"\n\
                 [overhead]\ntrace_collector = \"{collector}\"\n"
            ),
        )
        .unwrap()
    };
    for (collector, says) in [
        ("fx-good", "'fx-good' is not a target of kind \"collector\""),
        ("nope", "'nope' is not a target of kind \"collector\""),
    ] {
        write(collector);
        let out = Gqlbench::run("e2e").root(root).scenarios("traced").go();
        out.assert_exit(2);
        assert!(
            out.stderr.contains(says)
                && out.stderr.contains("traced.toml")
                && out.stderr.contains("collectors: none"),
            "{}",
            out.stderr
        );
    }
}

#[test]
fn a_profile_value_is_blamed_on_its_file_not_on_a_flag_never_passed() {
    let dir = fixture_copy();
    let hello = dir.path().join("scenarios/e2e/hello.toml");
    let text = std::fs::read_to_string(&hello).unwrap();
    std::fs::write(&hello, format!("{text}\n[profiles.quick]\ntrials = 0\n")).unwrap();
    let out = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("hello")
        .targets("fx-good")
        .go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        e.contains("hello.toml") && e.contains("[profiles.quick] `trials` must be at least 1"),
        "{e}"
    );
    assert!(!e.contains("--trials"), "{e}");
    // The flag, when it is the flag's value.
    let out = Gqlbench::run("e2e").root(dir.path()).trials(0).go();
    out.assert_exit(2);
    assert!(out.stderr.contains("--trials"), "{}", out.stderr);
}

#[test]
fn a_reload_scenario_without_reloads_is_refused_naming_its_file() {
    let dir = fixture_copy();
    let file = dir.path().join("scenarios/e2e/reload.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("reloads = 3"));
    std::fs::write(&file, text.replace("reloads = 3", "reloads = 0")).unwrap();
    let out = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("reload")
        .go();
    out.assert_exit(2);
    let e = &out.stderr;
    assert!(
        e.contains("reload.toml") && e.contains("[reload] `reloads` must be at least 1"),
        "{e}"
    );
    // An unbounded wait is refused too.
    let unbounded = text.replace(
        "reloads = 3\ntimeout = \"2s\"",
        "reloads = 3\ntimeout = \"1h\"",
    );
    assert_ne!(unbounded, text);
    std::fs::write(&file, unbounded).unwrap();
    let out = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("reload")
        .go();
    out.assert_exit(2);
    assert!(out.stderr.contains("at most 300s"), "{}", out.stderr);
}

#[test]
fn a_federation_operation_the_graph_cannot_answer_is_refused_naming_file_line_and_field() {
    let dir = fixture_copy();
    let root = dir.path();
    let scen = root.join("scenarios");
    std::fs::create_dir_all(scen.join("federation")).unwrap();
    std::fs::create_dir_all(scen.join("queries/federation")).unwrap();
    std::fs::create_dir_all(scen.join("expected/federation")).unwrap();
    std::fs::copy(
        repo().join("scenarios/federation/supergraph.graphql"),
        scen.join("federation/supergraph.graphql"),
    )
    .unwrap();
    std::fs::write(
        scen.join("queries/federation/typo.graphql"),
        "query Typo {\n  topProducts {\n    upc\n    nmae\n  }\n}\n",
    )
    .unwrap();
    std::fs::write(
        scen.join("expected/federation/typo.json"),
        r#"[{"data": {"topProducts": []}}]"#,
    )
    .unwrap();
    std::fs::write(
        scen.join("federation/typo.toml"),
        "description = \"a misspelled field\"\nworkload = \"federation\"\n\n[[operations]]\nname = \"federation/typo\"\n\n[subgraphs]\n",
    )
    .unwrap();
    let o = Gqlbench::run("federation")
        .root(root)
        .scenarios("typo")
        .go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    for want in [
        "typo.toml",
        "typo.graphql:4:5",
        "nmae",
        "supergraph.graphql",
    ] {
        assert!(o.stderr.contains(want), "{want}: {}", o.stderr);
    }
}
