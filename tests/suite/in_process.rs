//! In process, without the binary (as oha tests its engine): the library logic that the
//! end-to-end tests reach through `report`, `compare` and `load --expect` — which files are
//! read as results, and what an `--expect` file becomes.
use std::path::Path;

use gqlbench::commands::load::cases_from_file;
use gqlbench::results::{RunResults, OLDEST_READABLE, SCHEMA_VERSION};
use serde_json::{json, Value};

/// The error of reading `text` as a results file, in words.
fn load_error(dir: &Path, text: &str) -> String {
    let file = dir.join("results.json");
    std::fs::write(&file, text).unwrap();
    let e = RunResults::load(&file).expect_err("not a readable results file");
    format!("{e:#}")
}

#[test]
fn only_a_results_file_of_a_readable_schema_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let e = load_error(dir.path(), r#"{"hello": 1}"#);
    assert!(
        e.contains("no schema_version: not a gqlbench results file"),
        "{e}"
    );
    let newer = SCHEMA_VERSION + 1;
    let e = load_error(dir.path(), &format!(r#"{{"schema_version": {newer}}}"#));
    assert!(
        e.contains(&format!(
            "schema_version {newer}; this gqlbench reads versions {OLDEST_READABLE} to {SCHEMA_VERSION}"
        )),
        "{e}"
    );
    let e = load_error(dir.path(), "not json");
    assert!(e.contains("is not JSON"), "{e}");
    // A readable version, but not the model: named as such.
    let e = load_error(
        dir.path(),
        &format!(r#"{{"schema_version": {SCHEMA_VERSION}, "scenarios": []}}"#),
    );
    assert!(e.contains("not a gqlbench results file"), "{e}");

    // A folder is read through its results.json, and one without is named as such.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = format!("{:#}", RunResults::load(&empty).unwrap_err());
    assert!(
        e.contains(&empty.join("results.json").display().to_string())
            && e.contains("a run folder holds results.json"),
        "{e}"
    );
}

/// What `load --expect` makes of a file holding `text`, with `--variables`.
fn cases(text: &str, variables: Option<Value>) -> anyhow::Result<gqlbench::commands::load::Cases> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("expect.json");
    std::fs::write(&file, text).unwrap();
    cases_from_file(&file, variables.as_ref())
}

#[test]
fn an_expect_file_is_a_response_the_data_itself_or_a_list_of_cases() {
    let world = json!({"hello": "world"});
    // A whole response, or its data: one case, with the variables given.
    let case = vec![(None, Some(world.clone()), None)];
    assert_eq!(
        cases(r#"{"data": {"hello": "world"}}"#, None).unwrap(),
        case
    );
    assert_eq!(cases(r#"{"hello": "world"}"#, None).unwrap(), case);
    let id = json!({"id": "1"});
    assert_eq!(
        cases(r#"{"data": {"hello": "world"}}"#, Some(id.clone())).unwrap(),
        [(Some(id.clone()), Some(world.clone()), None)]
    );

    // The catalogue's own answer files: a list of cases, every one sent in turn ...
    let hello = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/scenarios/expected/fixture/hello.json");
    assert_eq!(cases_from_file(&hello, None).unwrap(), case);
    let list = r#"[{"variables": {"id": "1"}, "data": {"n": 1}},
                   {"variables": {"id": "2"}, "data": {"n": 2}}]"#;
    assert_eq!(
        cases(list, None).unwrap(),
        [
            (Some(id.clone()), Some(json!({"n": 1})), None),
            (Some(json!({"id": "2"})), Some(json!({"n": 2})), None)
        ]
    );
    // ... unless --variables picks one.
    assert_eq!(
        cases(list, Some(json!({"id": "2"}))).unwrap(),
        [(Some(json!({"id": "2"})), Some(json!({"n": 2})), None)]
    );
    // A case's unique variable comes along, and one that is not an integer is refused.
    let unique = r#"[{"variables": {"n": 3}, "unique": "n", "data": {"hello": "world"}}]"#;
    assert_eq!(
        cases(unique, None).unwrap(),
        [(
            Some(json!({"n": 3})),
            Some(world.clone()),
            Some("n".to_string())
        )]
    );
    let e = cases(
        r#"[{"variables": {"n": "x"}, "unique": "n", "data": {}}]"#,
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("expect.json") && e.contains("case 0"), "{e}");
    // One that no case has is refused, listing the cases' variables.
    let e = cases(list, Some(json!({"id": "nope"})))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--expect")
            && e.contains("no case has the --variables given")
            && e.contains(r#"{"id":"1"}, {"id":"2"}"#),
        "{e}"
    );

    // What cannot be an expected answer is refused, naming the file and why.
    for (text, says) in [
        ("[]", "an empty list of cases"),
        ("[1, 2]", "a list, but not of cases"),
        ("{nope", "not JSON"),
    ] {
        let e = cases(text, None).unwrap_err().to_string();
        assert!(e.contains("expect.json") && e.contains(says), "{text}: {e}");
    }
}

/// Every run committed under docs/runs stays readable, and its reports can be written
/// again, after the model changed (e.g. vitals that became nullable: an old file's numbers
/// read as measured figures).
#[test]
fn every_committed_run_is_read_and_reported() {
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/runs");
    let mut read = 0;
    for entry in std::fs::read_dir(&runs).unwrap() {
        let file = entry.unwrap().path().join("results.json");
        if !file.exists() {
            continue;
        }
        let r = RunResults::load(&file).unwrap_or_else(|e| panic!("{e:#}"));
        // compare's damaged-input check never refuses what gqlbench wrote.
        assert_eq!(
            gqlbench::results::damaged_throughput(&r),
            None,
            "{}",
            file.display()
        );
        let md = gqlbench::report::Exporter::export(&gqlbench::report::Markdown, &r)
            .unwrap_or_else(|e| panic!("{}: {e:#}", file.display()));
        assert!(!md.is_empty(), "{}", file.display());
        read += 1;
    }
    assert!(
        read >= 10,
        "only {read} committed runs found under {}",
        runs.display()
    );
}
