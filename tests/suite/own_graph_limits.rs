//! Never blame a gateway for the mock (issue 37): a shared field whose union has other
//! members in the other subgraph returns a member both have, checked on two gateways; an
//! operation whose answer goes through something the mock subgraphs cannot serve as every
//! correct gateway would see it (a shared union with no member in common) is left out at
//! `init graph` and at run time, named with the construct, while the other operations run
//! and are checked; a graph whose every operation is left out is refused (exit 2).
use crate::common;
use std::path::Path;

use common::*;

const LINK: &str = r#"extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])"#;

/// Two subgraphs whose `Query.media` returns a `Media` union with other members in each:
/// `Book | Song` and `Book | Movie` (`common`: Book in both), or `Song` and `Movie`.
fn union_graph(dir: &Path, common: bool) {
    std::fs::create_dir_all(dir).unwrap();
    let (a, b) = if common {
        ("Book | Song", "Book | Movie")
    } else {
        ("Song", "Movie")
    };
    std::fs::write(
        dir.join("a.graphql"),
        format!(
            "{LINK}\ntype Query {{ media: [Media] @shareable\n book: Book }}\nunion Media = {a}\ntype Book @shareable {{ title: String! }}\ntype Song @shareable {{ title: String! }}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("b.graphql"),
        format!(
            "{LINK}\ntype Query {{ media: [Media] @shareable }}\nunion Media = {b}\ntype Book @shareable {{ title: String! }}\ntype Movie @shareable {{ title: String! }}\n"
        ),
    )
    .unwrap();
}

fn operations(dir: &Path, which: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, doc) in which {
        std::fs::write(dir.join(format!("{name}.graphql")), doc).unwrap();
    }
}

fn init(tmp: &Path, ops: &Path, into: &str) -> Outcome {
    federation_tools();
    Gqlbench::new(["init", "graph"])
        .root(repo())
        .arg(tmp.join(into))
        .arg("--from")
        .arg(tmp.join("sdl"))
        .arg("--operations")
        .arg(ops)
        .go()
}

#[test]
fn an_operation_the_mocks_cannot_serve_consistently_is_left_out_and_the_rest_run() {
    let tmp = tempfile::tempdir().unwrap();
    union_graph(&tmp.path().join("sdl"), false);
    let ops = tmp.path().join("ops");
    operations(
        &ops,
        &[
            ("book", "query Book { book { title } }"),
            ("media", "query Media { media { ... on Song { title } } }"),
            ("deferred", "query D { book { ... @defer { title } } }"),
        ],
    );
    let o = init(tmp.path(), &ops, "g");
    assert!(o.success(), "{}", o.stderr);
    assert!(
        o.stderr.contains("g/deferred: LEFT OUT") && o.stderr.contains("incremental delivery"),
        "{}",
        o.stderr
    );
    assert!(
        o.stderr.contains("g/media: LEFT OUT")
            && o.stderr.contains("Query.media")
            && o.stderr.contains("Media = Song"),
        "{}",
        o.stderr
    );

    let out = tempfile::tempdir().unwrap();
    let r = run_graph_on_two_gateways(&tmp.path().join("g"), out.path());
    let s = &r.scenarios[0];
    assert!(
        s.description.contains("left out, not checked: g/deferred")
            && s.description.contains("g/media (at media: Query.media"),
        "{}",
        s.description
    );
    assert_eq!(
        s.operations
            .iter()
            .map(|o| o.name.as_str())
            .collect::<Vec<_>>(),
        ["g/book"]
    );
    assert_two_gateways_checked(&r, 1);
    assert_eq!(target(&r, 0, TWO_GATEWAYS[0]).checks[0].operation, "g/book");
    assert_no_process(&format!("mock --dir {}", tmp.path().join("g").display()));
}

#[test]
fn a_graph_whose_every_operation_is_left_out_is_refused_naming_why() {
    let tmp = tempfile::tempdir().unwrap();
    union_graph(&tmp.path().join("sdl"), false);
    let ops = tmp.path().join("ops");
    operations(
        &ops,
        &[("media", "query Media { media { ... on Song { title } } }")],
    );
    let o = init(tmp.path(), &ops, "g");
    o.assert_exit(2);
    assert!(
        o.stderr.contains("no operation can be checked")
            && o.stderr.contains("operations/media.graphql")
            && o.stderr.contains("Query.media"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_shared_union_with_other_members_in_each_subgraph_is_checked_on_two_gateways() {
    let tmp = tempfile::tempdir().unwrap();
    union_graph(&tmp.path().join("sdl"), true);
    let ops = tmp.path().join("ops");
    operations(
        &ops,
        &[(
            "media",
            "query Media { media { __typename ... on Book { title } ... on Song { title } } }",
        )],
    );
    let o = init(tmp.path(), &ops, "g");
    assert!(
        o.success() && !o.stderr.contains("LEFT OUT"),
        "{}",
        o.stderr
    );
    let out = tempfile::tempdir().unwrap();
    let r = run_graph_on_two_gateways(&tmp.path().join("g"), out.path());
    assert_two_gateways_checked(&r, 1);
    assert_no_process(&format!("mock --dir {}", tmp.path().join("g").display()));
}
