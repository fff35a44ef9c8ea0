//! End-to-end: bad input gets a clear error naming the file, field or flag.
mod common;
use common::*;

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

#[test]
fn unknown_manifest_field_names_file_line_and_field() {
    let dir = fixture_copy();
    let manifest = dir.path().join("targets/fx-good/target.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text = text.replace("workloads =", "colour = \"blue\"\nworkloads =");
    std::fs::write(&manifest, text).unwrap();
    let out = run(bin().arg("--root").arg(dir.path()).arg("list"));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("fx-good/target.toml"), "{e}");
    assert!(e.contains("colour"), "{e}");
    assert!(e.contains("line 4"), "{e}");
}

#[test]
fn malformed_duration_in_manifest_is_explained() {
    let dir = fixture_copy();
    let manifest = dir.path().join("targets/fx-good/target.toml");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("ready_timeout = \"10s\"", "ready_timeout = \"soon\"");
    std::fs::write(&manifest, text).unwrap();
    let out = run(bin().arg("--root").arg(dir.path()).arg("list"));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(e.contains("'soon' is not a duration"), "{e}");
}

#[test]
fn unknown_target_and_scenario_list_the_valid_ones() {
    let out = run(bin()
        .arg("--root")
        .arg(fixtures())
        .args(["run", "e2e", "--targets", "nope"]));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
    assert!(
        e.contains("unknown target 'nope'") && e.contains("fx-good"),
        "{e}"
    );

    let out = run(bin()
        .arg("--root")
        .arg(fixtures())
        .args(["run", "e2e", "--scenarios", "nope"]));
    assert!(stderr(&out)
        .contains("unknown scenario 'nope'; valid scenarios: cold, cold-small, depth, hello"));

    let out = run(bin().arg("--root").arg(fixtures()).args(["run", "nosuite"]));
    assert!(
        stderr(&out).contains("unknown suite 'nosuite'; valid suites: e2e"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn load_refuses_a_remote_url_without_allow_remote() {
    let q = fixtures().join("scenarios/queries/fixture/hello.graphql");
    let out = run(bin()
        .args(["load", "http://192.0.2.1:4000/graphql", "-q"])
        .arg(&q)
        .args(["-d", "1s"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--allow-remote"), "{}", stderr(&out));
}

#[test]
fn bad_flags_are_named() {
    let q = fixtures().join("scenarios/queries/fixture/hello.graphql");
    let out = run(bin()
        .args(["load", "http://127.0.0.1:9/graphql", "-q"])
        .arg(&q)
        .args(["--variables", "{nope"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--variables"), "{}", stderr(&out));

    let out = run(bin()
        .args(["load", "http://127.0.0.1:9/graphql", "-q"])
        .arg(&q)
        .args(["-d", "ten"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("'ten' is not a duration"),
        "{}",
        stderr(&out)
    );

    let out =
        run(bin()
            .arg("--root")
            .arg(fixtures())
            .args(["run", "e2e", "--generator-cpus", "0-x"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--generator-cpus"),
        "{}",
        stderr(&out)
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
        let mut c = bin();
        c.arg("--root")
            .arg(fixtures())
            .args(["run", "e2e", "--scenarios", "hello", "--targets", "fx-good"])
            .arg("--out")
            .arg(out);
        c
    };
    let out = run(&mut fx_run(d));
    assert_eq!(out.status.code(), Some(2));
    let e = stderr(&out);
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

    let out = run(fx_run(d).arg("--force"));
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("results.json")).unwrap()).unwrap();
    assert_eq!(r["status"], "complete", "the new run's results");
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
    let out = run(&mut fx_run(&new));
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(new.join("results.json").exists());
}
