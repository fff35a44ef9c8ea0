use super::watch::describe_query;
use super::*;

const SUPERGRAPH: &str = "schema { query: Query }\n\ntype Query @join__type(graph: A) {\n  me: User\n}\n\ntype QueryPlan {\n  x: Int\n}\n";

#[test]
fn the_description_goes_on_the_query_type_and_replaces_the_last_one() {
    let once = describe_query(SUPERGRAPH, "gqlbench reload 1.1").unwrap();
    assert!(
        once.contains("\"\"\"gqlbench reload 1.1\"\"\"\ntype Query @join__type"),
        "{once}"
    );
    // Not on `type QueryPlan`, which only starts like it.
    assert_eq!(once.matches("\"\"\"").count(), 2, "{once}");
    let twice = describe_query(&once, "gqlbench reload 1.2").unwrap();
    assert!(!twice.contains("1.1"), "{twice}");
    assert_eq!(twice.matches("gqlbench reload").count(), 1, "{twice}");
    // Everything else is as it was.
    assert_eq!(
        twice.replace("\"\"\"gqlbench reload 1.2\"\"\"\n", ""),
        SUPERGRAPH
    );
}

#[test]
fn a_supergraph_without_a_query_type_or_with_its_own_description_is_refused() {
    let e = describe_query("type Queries { a: Int }", "gqlbench reload 1.1").unwrap_err();
    assert!(e.contains("type Query"), "{e}");
    let described = SUPERGRAPH.replace("type Query @", "\"\"\"The root\"\"\"\ntype Query @");
    let e = describe_query(&described, "gqlbench reload 1.1").unwrap_err();
    assert!(e.contains("already has a description"), "{e}");
}

#[test]
fn the_committed_supergraphs_take_a_description() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in [
        "scenarios/federation/supergraph.graphql",
        "scenarios/federation/wide/supergraph.graphql",
    ] {
        let text = std::fs::read_to_string(root.join(f)).unwrap();
        let out = describe_query(&text, "gqlbench reload 1.1").unwrap();
        assert_eq!(
            out.len(),
            text.len() + "\"\"\"gqlbench reload 1.1\"\"\"\n".len()
        );
    }
}

fn sample(reload: u32, reload_s: Option<f64>, problem: Option<&str>) -> ReloadSample {
    ReloadSample {
        reload,
        description: format!("gqlbench reload 1.{reload}"),
        reload_s,
        first_request_s: reload_s.map(|_| 0.004),
        second_request_s: reload_s.map(|_| 0.001),
        polls: 3,
        failed_requests: 1,
        problem: problem.map(String::from),
    }
}

#[test]
fn the_summary_counts_reloads_that_completed_and_every_failed_request() {
    let mut tr = TargetResult::default();
    let mut t = TrialResult::of_load(1, String::new(), Default::default());
    t.by_kind.set(
        &SAMPLES,
        &vec![
            sample(1, Some(0.2), None),
            sample(2, Some(0.6), None),
            sample(3, None, Some("not served")),
        ],
    );
    // A trial measured again is not counted.
    let mut excluded = t.clone();
    excluded.excluded = Some("interference".into());
    tr.trials = vec![excluded, t];
    let s = summarize(&tr).unwrap();
    assert_eq!((s.reloads, s.ok), (3, 2));
    assert_eq!(s.reload_s.n, 2);
    assert!((s.reload_s.max - 0.6).abs() < 1e-9);
    assert!((s.first_request_s.median - 0.004).abs() < 1e-9);
    assert_eq!(s.failed_requests, 3);
    assert!(summarize(&TargetResult::default()).is_none());
}

#[test]
fn the_pauses_before_rewrites_spread_over_the_interval() {
    let f: Vec<f64> = (1..=5).map(desync_fraction).collect();
    assert!(f.iter().all(|x| (0.0..1.0).contains(x)), "{f:?}");
    // Five reloads fall in five different fifths of a poll interval.
    let mut fifths: Vec<u32> = f.iter().map(|x| (x * 5.0) as u32).collect();
    fifths.sort();
    fifths.dedup();
    assert_eq!(fifths.len(), 5, "{f:?}");
}
