//! End-to-end: a graph of the user's own (issue 27). `gqlbench init graph` makes its folder
//! from a folder of subgraph SDL and one of operations; `gqlbench run federation --graph`
//! puts the npm gateways in front of mock subgraphs serving it, every answer checked
//! against the answers gqlbench computed from the mocks' data; a gateway that cannot read
//! Federation v2 SDL is skipped saying why. Bad input (SDL that does not compose, an
//! operation naming a field the graph lacks, a bad graph.toml, a list that would make an
//! answer too big, --graph with another suite) exits 2 naming the file.
use std::path::{Path, PathBuf};

use crate::common::*;
use gqlbench::results::TargetStatus;

/// Tests that start gateways look for leftover processes: run them one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `init graph DIR --from <shop SDL> --operations <shop operations>`, plus `extra` args.
fn init(dir: &Path, extra: &[&str]) -> Outcome {
    federation_tools();
    Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(dir)
        .arg("--from")
        .arg(fixtures().join("graphs/shop"))
        .arg("--operations")
        .arg(fixtures().join("graphs/shop-operations"))
        .args(extra)
        .go()
}

/// `run federation --graph DIR`.
fn run_graph(dir: &Path) -> Gqlbench {
    Gqlbench::run("federation")
        .root(repo())
        .arg("--graph")
        .arg(dir)
}

fn shop(tmp: &tempfile::TempDir) -> PathBuf {
    let dir = tmp.path().join("shop");
    let o = init(&dir, &[]);
    assert!(o.success(), "{}", o.stderr);
    dir
}

#[test]
fn init_then_run_puts_the_gateways_in_front_of_mock_subgraphs_with_computed_answers() {
    let _turn = file_turn(module_path!());
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop(&tmp);
    let sg = std::fs::read_to_string(dir.join("supergraph.graphql")).unwrap();
    assert!(
        sg.starts_with("# gqlbench: composed from subgraphs/ with SHA-256 "),
        "{sg}"
    );
    assert!(sg.contains("http://127.0.0.1:4402/graphql"), "{sg}");
    let toml = std::fs::read_to_string(dir.join("graph.toml")).unwrap();
    // TopProducts declares $first: a sample value is written for it.
    assert!(toml.contains("[operations.top-products]"), "{toml}");

    let out_dir = tempfile::tempdir().unwrap();
    let out = run_graph(&dir)
        .scenarios("constant")
        .targets("hive-gateway,apollo-gateway,mercurius-gateway")
        .warmup("0s")
        .duration("1s")
        .connections(4)
        .trials(1)
        .json()
        .out(out_dir.path())
        .go();
    assert!(out.success(), "{}", out.stderr);
    let r = out.results();
    let s = &r.scenarios[0];
    assert!(
        s.description.contains("2 mock subgraphs"),
        "{}",
        s.description
    );
    for name in ["hive-gateway", "apollo-gateway"] {
        let t = target(&r, 0, name);
        assert_eq!(
            t.status,
            TargetStatus::Ok,
            "{name}: {:?} {:?}",
            t.problem,
            t.log_tail
        );
        // Each operation's answer equals the computed one, at the check and under load.
        assert_eq!(t.checks.len(), 2, "{name}: {:?}", t.checks);
        assert!(t.checks.iter().all(|c| c.ok), "{name}: {:?}", t.checks);
        let trial = &t.trials[0];
        assert_eq!(trial.load.failed, 0, "{name}");
        assert!(trial.load.ok > 0, "{name}");
        let up = trial.upstream.as_ref().expect("upstream calls counted");
        assert_eq!(up.calls.len(), 2, "{name}: {:?}", up.calls);
        assert!(up.calls.values().all(|n| *n > 0), "{name}: {:?}", up.calls);
    }
    let m = target(&r, 0, "mercurius-gateway");
    assert_eq!(m.status, TargetStatus::Skipped, "{:?}", m.problem);
    assert!(
        m.problem
            .as_deref()
            .is_some_and(|p| p.contains("Federation v1")),
        "{:?}",
        m.problem
    );
    assert_no_process("subgraphs mock");
}

#[test]
fn a_graph_that_does_not_compose_or_an_operation_it_cannot_answer_is_refused() {
    let _turn = file_turn(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    // Two subgraphs disagreeing about a field's type.
    let bad = tmp.path().join("bad-sdl");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(bad.join("alpha.graphql"), "type Query { total: Int }\n").unwrap();
    std::fs::write(bad.join("beta.graphql"), "type Query { total: String }\n").unwrap();
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(tmp.path().join("g1"))
        .arg("--from")
        .arg(&bad)
        .go();
    o.assert_exit(2);
    assert!(
        o.stderr.contains("do not compose") && o.stderr.contains("Query.total"),
        "{}",
        o.stderr
    );
    // Composed apart from the folder: nothing of it is left behind.
    assert!(!tmp.path().join("g1").exists(), "{}", o.stderr);

    // An SDL that does not parse: named with its line and column, before anything is
    // written (a new folder is not made; a graph folder keeps its subgraphs, --force or not).
    let unparsed = tmp.path().join("unparsed-sdl");
    std::fs::create_dir(&unparsed).unwrap();
    for f in ["products.graphql", "reviews.graphql"] {
        std::fs::copy(fixtures().join("graphs/shop").join(f), unparsed.join(f)).unwrap();
    }
    std::fs::write(
        unparsed.join("stock.graphql"),
        "type Query {\n  a: Int\n  b: : String\n}\n",
    )
    .unwrap();
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(tmp.path().join("g0"))
        .arg("--from")
        .arg(&unparsed)
        .go();
    o.assert_exit(2);
    assert!(
        o.stderr
            .contains("stock.graphql:3:6: the subgraph SDL does not parse")
            && o.stderr.contains("`b: : String`")
            && !o.stderr.contains("compose"),
        "{}",
        o.stderr
    );
    assert!(!tmp.path().join("g0").exists(), "{}", o.stderr);

    // An operation naming a field the graph does not have: refused at init, naming the
    // file, line and column.
    let dir = shop(&tmp);
    let before = std::fs::read_to_string(dir.join("supergraph.graphql")).unwrap();
    for from in [&unparsed, &bad] {
        let o = Gqlbench::new(["init", "graph"])
            .root(repo())
            .arg(&dir)
            .arg("--from")
            .arg(from)
            .arg("--force")
            .go();
        o.assert_exit(2);
        let mut left: Vec<String> = std::fs::read_dir(dir.join("subgraphs"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["products.graphql", "reviews.graphql"],
            "{}",
            o.stderr
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("supergraph.graphql")).unwrap(),
            before
        );
    }
    std::fs::write(
        dir.join("operations/typo.graphql"),
        "{\n  topProducts {\n    upc\n    nmae\n  }\n}\n",
    )
    .unwrap();
    let o = Gqlbench::new(["init", "graph"]).root(repo()).arg(&dir).go();
    o.assert_exit(2);
    assert!(
        o.stderr.contains("typo.graphql:4:5") && o.stderr.contains("nmae"),
        "{}",
        o.stderr
    );
    // The run refuses it the same way, before anything starts.
    let o = run_graph(&dir).go();
    o.assert_exit(2);
    assert!(o.stderr.contains("typo.graphql:4:5"), "{}", o.stderr);
    std::fs::remove_file(dir.join("operations/typo.graphql")).unwrap();

    // --graph is for the federation suite.
    let o = Gqlbench::run("servers")
        .root(repo())
        .arg("--graph")
        .arg(&dir)
        .go();
    o.assert_exit(2);
    assert!(o.stderr.contains("--graph"), "{}", o.stderr);
}

#[test]
fn bad_graph_settings_are_refused_naming_the_file_and_field() {
    let _turn = file_turn(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop(&tmp);
    let check = |toml: &str, says: &str| {
        std::fs::write(dir.join("graph.toml"), toml).unwrap();
        let o = Gqlbench::new(["init", "graph"]).root(repo()).arg(&dir).go();
        o.assert_exit(2);
        assert!(
            o.stderr.contains("graph.toml") && o.stderr.contains(says),
            "{toml}: {}",
            o.stderr
        );
    };
    check("[lists]\n\"Query.nothing\" = 4\n", "Query.nothing");
    check("[delays]\nnobody = \"5ms\"\n", "nobody");
    check(
        "[operations.missing]\nweight = 2\n",
        "operations/missing.graphql",
    );
    check("colour = 1\n", "colour");
    check(
        "[operations.top-products]\nvariables = []\n",
        "the list is empty",
    );
    // Lists that multiply into an answer over 64 MiB.
    check(
        "[lists]\n\"Query.topProducts\" = 1000\n\"Product.reviews\" = 1000\n",
        "64 MiB",
    );
    // A subgraph edited after composing: the supergraph is stale.
    std::fs::write(dir.join("graph.toml"), "").unwrap();
    let sdl = dir.join("subgraphs/products.graphql");
    let text = std::fs::read_to_string(&sdl).unwrap();
    std::fs::write(
        &sdl,
        text.replace("price: Int", "price: Int\n  weight: Int"),
    )
    .unwrap();
    let o = run_graph(&dir).go();
    o.assert_exit(2);
    assert!(o.stderr.contains("compose again"), "{}", o.stderr);
}

/// `init graph DIR` writes into a new folder, an empty one or a graph folder, never among
/// other files; a file is no folder. Refused before anything is written (no composition
/// library needed).
#[test]
fn init_refuses_a_file_or_a_folder_of_other_files() {
    let _turn = file_turn(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let notes = tmp.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    std::fs::write(notes.join("notes.txt"), "mine").unwrap();
    for force in [false, true] {
        let o = Gqlbench::new(["init", "graph"])
            .root(repo())
            .arg(&notes)
            .arg("--from")
            .arg(fixtures().join("graphs/shop"))
            .args(force.then_some("--force"))
            .go();
        o.assert_exit(2);
        assert!(
            o.stderr
                .contains("notes: already holds files ('notes.txt')")
                && o.stderr.contains("not a graph folder")
                && o.stderr.contains("give a new or empty folder"),
            "{}",
            o.stderr
        );
        let held: Vec<_> = std::fs::read_dir(&notes).unwrap().collect();
        assert_eq!(held.len(), 1, "only notes.txt: {}", o.stderr);
    }
    let file = tmp.path().join("afile");
    std::fs::write(&file, "x").unwrap();
    for dir in [file.clone(), file.join("below")] {
        let o = Gqlbench::new(["init", "graph"])
            .root(repo())
            .arg(&dir)
            .arg("--from")
            .arg(fixtures().join("graphs/shop"))
            .go();
        o.assert_exit(2);
        assert!(
            o.stderr.contains("afile: is a file, not a folder") && !o.stderr.contains("os error"),
            "{}",
            o.stderr
        );
    }
}

/// A run on a graph of one's own whose chosen gateways all cannot run on one is refused
/// before anything is installed, naming each and its target.toml's reason.
#[test]
fn a_run_whose_every_gateway_cannot_run_on_the_graph_is_refused_before_installing() {
    let _turn = file_turn(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let dir = shop(&tmp);
    let out = tmp.path().join("out");
    let o = run_graph(&dir)
        .targets("mercurius-gateway,yoga-stitching")
        .out(&out)
        .go();
    o.assert_exit(2);
    let e = &o.stderr;
    assert!(
        e.contains("--targets: no chosen target can run on a graph of your own")
            && e.contains("mercurius-gateway: it reads Federation v1 subgraph SDL")
            && e.contains("yoga-stitching: it reads Federation v1")
            && e.contains("mercurius-gateway/target.toml")
            && e.contains("hive-gateway"),
        "{e}"
    );
    assert!(!e.contains("install"), "nothing installed: {e}");
    assert!(!out.exists(), "nothing started: {e}");
}

/// The other inputs `init graph` takes: a supergraph (its subgraphs extracted) and a
/// persisted-operations manifest (one file per document, named by its operation); a file
/// that is no supergraph and a manifest that is no manifest are refused.
#[test]
fn init_takes_a_supergraph_and_a_manifest_and_refuses_what_they_are_not() {
    let _turn = file_turn(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let first = shop(&tmp);
    let manifest = tmp.path().join("manifest.json");
    let top =
        std::fs::read_to_string(fixtures().join("graphs/shop-operations/top-products.graphql"))
            .unwrap();
    let body = serde_json::json!({
        "format": "apollo-persisted-query-manifest",
        "version": 1,
        "operations": [
            {"id": "a1", "name": "TopProducts", "type": "query", "body": top},
            {"id": "b2", "name": "Latest", "type": "query", "body": "query Latest { latestReviews { id product { name } } }"}
        ]
    });
    std::fs::write(&manifest, body.to_string()).unwrap();
    let second = tmp.path().join("second");
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(&second)
        .arg("--from")
        .arg(first.join("supergraph.graphql"))
        .arg("--operations")
        .arg(&manifest)
        .go();
    assert!(o.success(), "{}", o.stderr);
    for f in [
        "subgraphs/products.graphql",
        "subgraphs/reviews.graphql",
        "operations/TopProducts.graphql",
        "operations/Latest.graphql",
    ] {
        assert!(second.join(f).is_file(), "{f} missing: {}", o.stderr);
    }
    assert!(o.stderr.contains("second/Latest"), "{}", o.stderr);

    let not_supergraph = tmp.path().join("plain.graphql");
    std::fs::write(&not_supergraph, "type Query { a: Int }\n").unwrap();
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(tmp.path().join("third"))
        .arg("--from")
        .arg(&not_supergraph)
        .go();
    o.assert_exit(2);
    assert!(
        o.stderr.contains("plain.graphql") && o.stderr.contains("extracted"),
        "{}",
        o.stderr
    );

    // A manifest whose document is not GraphQL is refused before anything is written, so
    // the folder takes the right one afterwards.
    std::fs::write(&manifest, r#"{"hello": "world"}"#).unwrap();
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(&second)
        .arg("--operations")
        .arg(&manifest)
        .go();
    o.assert_exit(2);
    assert!(
        o.stderr.contains("manifest.json") && o.stderr.contains("\"hello\""),
        "{}",
        o.stderr
    );
    assert!(!second.join("operations/hello.graphql").exists());
    std::fs::write(&manifest, body.to_string()).unwrap();
    std::fs::write(second.join("operations/Stale.graphql"), "query Stale { x }").unwrap();
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(&second)
        .arg("--operations")
        .arg(&manifest)
        .arg("--force")
        .go();
    assert!(o.success(), "{}", o.stderr);
    // --force replaces the operations whole.
    assert!(!second.join("operations/Stale.graphql").exists());
    assert!(second.join("operations/Latest.graphql").is_file());

    std::fs::write(&manifest, "[1, 2]").unwrap();
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(&first)
        .arg("--operations")
        .arg(&manifest)
        .go();
    o.assert_exit(2);
    assert!(
        o.stderr.contains("manifest.json") && o.stderr.contains("manifest"),
        "{}",
        o.stderr
    );
}

#[test]
fn federation_1_style_sdl_is_accepted_and_said_to_be_upgraded() {
    let _turn = file_turn(module_path!());
    let tmp = tempfile::tempdir().unwrap();
    let sdl = tmp.path().join("fed1");
    std::fs::create_dir(&sdl).unwrap();
    // Federation 1 style: no @link, the other subgraph's entity extended with `extend type`.
    std::fs::write(
        sdl.join("products.graphql"),
        "type Query { products: [Product] }\ntype Product @key(fields: \"upc\") { upc: String! name: String }\n",
    )
    .unwrap();
    std::fs::write(
        sdl.join("reviews.graphql"),
        "extend type Product @key(fields: \"upc\") { upc: String! @external\n reviews: [Review] }\ntype Review { body: String }\n",
    )
    .unwrap();
    let ops = tmp.path().join("ops");
    std::fs::create_dir(&ops).unwrap();
    std::fs::write(
        ops.join("products.graphql"),
        "query Products { products { name reviews { body } } }",
    )
    .unwrap();
    federation_tools();
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(tmp.path().join("g"))
        .arg("--from")
        .arg(&sdl)
        .arg("--operations")
        .arg(&ops)
        .go();
    assert!(o.success(), "{}", o.stderr);
    assert!(
        o.stderr.contains("Federation 1 SDL")
            && o.stderr.contains("products, reviews")
            && o.stderr.contains("upgraded to Federation 2"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("g/products (weight 1"), "{}", o.stderr);
}

#[test]
fn init_takes_a_supergraph_given_by_a_relative_path() {
    let _turn = file_turn(module_path!());
    // The extraction runs in the staging folder: the path must still name the file (it
    // failed with ENOENT). Tests run from the repository's root.
    let tmp = tempfile::tempdir().unwrap();
    federation_tools();
    let o = Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(tmp.path().join("g"))
        .arg("--from")
        .arg("examples/graphs/shop/supergraph.graphql")
        .arg("--operations")
        .arg("examples/graphs/shop/operations")
        .go();
    assert!(o.success(), "{}", o.stderr);
    assert!(o.stderr.contains("6 subgraphs"), "{}", o.stderr);
    assert!(!o.stderr.contains("Federation 1 SDL"), "{}", o.stderr);
}
