//! Mock subgraphs from SDL: deterministic values, agreement between subgraphs on a shared
//! entity, `_entities` by simple, compound and alternative keys, `@requires`, list lengths,
//! errors and warnings, and the `mock` command over HTTP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use gqlbench_subgraphs::mock::answer::Graph;
use gqlbench_subgraphs::mock::{MockConfig, MockSubgraph};
use serde_json::{json, Value};

const PRODUCTS: &str = r#"
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@shareable"])
type Query { topProducts(first: Int = 5): [Product] product(upc: String!): Product }
type Product @key(fields: "upc") { upc: String! name: String price: Int }
"#;

const REVIEWS: &str = r#"
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key"])
type Query { reviews: [Review] }
type Product @key(fields: "upc") { upc: String! reviews: [Review] }
type Review { id: ID! body: String product: Product }
"#;

const INVENTORY: &str = r#"
extend schema @link(url: "https://specs.apollo.dev/federation/v2.3", import: ["@key", "@external", "@requires"])
extend type Product @key(fields: "upc") {
  upc: String!
  weight: Int @external
  price: Int @external
  shippingEstimate: Int @requires(fields: "price weight")
}
"#;

const VARIANTS: &str = r#"
type Query { variants: [Variant] }
enum Color { RED GREEN BLUE }
type Variant @key(fields: "id sku") @key(fields: "ean") {
  id: ID! sku: String! ean: String! color: Color createdAt: String
}
"#;

/// Without nulls: these tests follow values by hand (tests/nulls_and_pages.rs has them).
fn mock(name: &str, sdl: &str) -> MockSubgraph {
    let config = MockConfig {
        null_every: 0,
        ..MockConfig::default()
    };
    MockSubgraph::new(name, &format!("{name}.graphql"), sdl, &config).unwrap()
}

async fn run(s: &MockSubgraph, query: &str, variables: Value) -> Value {
    let request = async_graphql::Request::new(query)
        .variables(async_graphql::Variables::from_json(variables));
    let response = s.execute(request).await;
    assert!(response.errors.is_empty(), "{:?}", response.errors);
    response.data.into_json().unwrap()
}

const ENTITIES: &str = "query($r: [_Any!]!) { _entities(representations: $r) { \
    ... on Product { upc name price } } }";

const VARIANT_ENTITIES: &str = "query($r: [_Any!]!) { _entities(representations: $r) { \
    ... on Variant { id sku ean color createdAt } } }";

#[tokio::test]
async fn same_request_same_answer_and_arguments_change_values() {
    let p = mock("products", PRODUCTS);
    let q = "{ topProducts { upc name price } }";
    let a = run(&p, q, json!({})).await;
    // A fresh instance: nothing cached or drawn at random carries the answer.
    let b = run(&mock("products", PRODUCTS), q, json!({})).await;
    assert_eq!(a, b);
    let list = a["topProducts"].as_array().unwrap();
    assert_eq!(
        list.len(),
        5,
        "the page argument's SDL default (first: Int = 5)"
    );
    assert_ne!(list[0], list[1], "list items differ by index");
    let one = run(&p, r#"{ product(upc: "1") { name } }"#, json!({})).await;
    let two = run(&p, r#"{ product(upc: "2") { name } }"#, json!({})).await;
    assert_ne!(one, two);
    // Arguments carrying the whole key name that very entity, as `_entities` does.
    let by_arg = run(
        &p,
        r#"{ product(upc: "u-7") { upc name price } }"#,
        json!({}),
    )
    .await;
    let rep = json!({ "r": [{ "__typename": "Product", "upc": "u-7" }] });
    let by_rep = run(&p, ENTITIES, rep).await;
    assert_eq!(by_arg["product"], by_rep["_entities"][0]);
    let other = run(&p, "{ topProducts(first: 2) { upc } }", json!({})).await;
    assert_ne!(other["topProducts"][0]["upc"], a["topProducts"][0]["upc"]);
}

#[tokio::test]
async fn subgraphs_agree_on_a_shared_entity() {
    let p = mock("products", PRODUCTS);
    let r = mock("reviews", REVIEWS);
    let reviews = run(&r, "{ reviews { id body product { upc } } }", json!({})).await;
    let upc = reviews["reviews"][0]["product"]["upc"].clone();
    assert!(upc.is_string(), "{reviews}");
    let rep = json!({ "r": [{ "__typename": "Product", "upc": upc }] });
    let first = run(&p, ENTITIES, rep.clone()).await;
    let again = run(&mock("products", PRODUCTS), ENTITIES, rep).await;
    assert_eq!(first, again);
    let product = &first["_entities"][0];
    assert_eq!(product["upc"], upc, "the key round-trips");
    assert!(product["name"].as_str().is_some_and(|n| !n.is_empty()));
    // Reviews reaching the product by _entities sees the reviews it derived itself.
    let rep = json!({ "r": [{ "__typename": "Product", "upc": upc }] });
    let q = "query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { reviews { id } } } }";
    let by_key = run(&r, q, rep).await;
    assert_eq!(
        by_key["_entities"][0]["reviews"].as_array().map(Vec::len),
        Some(3)
    );
    for (name, sdl, s) in [("products", PRODUCTS, &p), ("reviews", REVIEWS, &r)] {
        let got = run(s, "{ _service { sdl } }", json!({})).await;
        assert_eq!(got["_service"]["sdl"], json!(sdl), "{name}");
    }
}

#[tokio::test]
async fn compound_and_alternative_keys_resolve() {
    let v = mock("variants", VARIANTS);
    let listed = run(&v, "{ variants { id sku ean color } }", json!({})).await;
    let first = &listed["variants"][0];
    let rep = json!({ "r": [{ "__typename": "Variant", "id": first["id"], "sku": first["sku"] }] });
    let got = run(&v, VARIANT_ENTITIES, rep).await;
    let e = &got["_entities"][0];
    // By its first (compound) key: the very entity the list returned.
    for f in ["id", "sku", "ean", "color"] {
        assert_eq!(e[f], first[f], "{f}");
    }
    assert!(["RED", "GREEN", "BLUE"].contains(&e["color"].as_str().unwrap()));
    // By the other key: resolves, echoing that key; its seed is that key's values.
    let rep = json!({ "r": [{ "__typename": "Variant", "ean": "x-1" }] });
    let got = run(&v, VARIANT_ENTITIES, rep.clone()).await;
    assert_eq!(got["_entities"][0]["ean"], "x-1");
    assert!(got["_entities"][0]["sku"].is_string());
    assert_eq!(got, run(&v, VARIANT_ENTITIES, rep).await);
    let bad = json!({ "r": [{ "__typename": "Variant", "sku": "only-half" }] });
    let request = async_graphql::Request::new(VARIANT_ENTITIES)
        .variables(async_graphql::Variables::from_json(bad));
    let response = v.execute(request).await;
    assert!(
        format!("{:?}", response.errors).contains("carries none of its keys"),
        "{:?}",
        response.errors
    );
}

#[tokio::test]
async fn requires_reads_the_external_fields_of_the_representation() {
    let i = mock("inventory", INVENTORY);
    let q = "query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { shippingEstimate } } }";
    let estimate = |weight: i64| json!({ "r": [{ "__typename": "Product", "upc": "1", "price": 10, "weight": weight }] });
    let light = run(&i, q, estimate(1)).await;
    let heavy = run(&i, q, estimate(900)).await;
    assert!(
        light["_entities"][0]["shippingEstimate"].is_i64(),
        "{light}"
    );
    assert_ne!(light, heavy, "the required weight feeds the value");
    assert_eq!(light, run(&i, q, estimate(1)).await);
}

#[tokio::test]
async fn list_lengths_can_be_set_per_field_up_to_a_maximum() {
    let mut config = MockConfig::default();
    config.lists.insert("Query.topProducts".into(), 7);
    let p = MockSubgraph::new("products", "products.graphql", PRODUCTS, &config).unwrap();
    let got = run(&p, "{ topProducts { upc } }", json!({})).await;
    assert_eq!(got["topProducts"].as_array().map(Vec::len), Some(7));
    config.lists.insert("Query.topProducts".into(), 1001);
    let err = MockSubgraph::new("products", "products.graphql", PRODUCTS, &config)
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("Query.topProducts") && err.contains("1000"),
        "{err}"
    );
    // A length for a field no SDL file of the directory has is refused, naming it.
    let dir = std::env::temp_dir().join(format!("gqlbench-mock-lists-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("products.graphql"), PRODUCTS).unwrap();
    let mut config = MockConfig::default();
    config.lists.insert("Query.topProduct".into(), 2);
    let err = MockSubgraph::load_dir(&dir, &config)
        .err()
        .map(|e| e.to_string());
    config.lists.clear();
    config.lists.insert("Query.topProducts".into(), 2);
    let ok = MockSubgraph::load_dir(&dir, &config).map(|s| s.len());
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        err.as_ref()
            .is_some_and(|e| e.contains("Query.topProduct ")),
        "{err:?}"
    );
    assert_eq!(ok.ok(), Some(1));
}

#[test]
fn bad_sdl_is_an_error_with_file_and_position_and_unknown_directives_warn() {
    let bad = "type Query {\n  a: Int\n  b: \n}\n";
    let err = MockSubgraph::new("broken", "dir/broken.graphql", bad, &MockConfig::default())
        .err()
        .unwrap()
        .to_string();
    assert!(err.starts_with("dir/broken.graphql:4:1: "), "{err}");
    let sdl = "type Query { a: Int @cost(weight: 5) b: Int @deprecated c: I }
        interface I @key(fields: \"id\") { id: ID! }
        type J implements I { id: ID! }";
    // An entity interface is served (tests/identity.rs), so it warns no more.
    let s = mock("odd", sdl);
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    assert!(s.warnings[0].contains("Query.a") && s.warnings[0].contains("@cost"));
}

fn post(port: u16, body: &str) -> Value {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "POST /graphql HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
         content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(body).unwrap()
}

/// The shop's two SDL files in a fresh folder named by `tag`.
fn shop_folder(tag: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gqlbench-mock-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("products.graphql"), PRODUCTS).unwrap();
    std::fs::write(dir.join("reviews.graphql"), REVIEWS).unwrap();
    dir
}

/// `gqlbench-subgraphs mock` on `dir` with `--list Query.topProducts=2`, its ports (products,
/// reviews), and the first line it printed.
/// The `mock` command on `dir` with port 0 for each subgraph (any free one: no race with
/// other tests for a port picked in advance), and the ports its `ready` line names.
fn spawn_mock(dir: &std::path::Path) -> (std::process::Child, Vec<u16>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gqlbench-subgraphs"))
        .arg("mock")
        .arg("--dir")
        .arg(dir)
        .args(["--ports", "products=0,reviews=0"])
        .args(["--list", "Query.topProducts=2"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let ports: Vec<u16> = line
        .trim_end()
        .strip_prefix("ready ")
        .unwrap_or_else(|| panic!("no ports in the ready line: {line:?}"))
        .split(',')
        .zip(["products", "reviews"])
        .map(|(item, name)| {
            let (n, p) = item.split_once('=').unwrap();
            assert_eq!(n, name, "{line:?}");
            p.parse().unwrap()
        })
        .collect();
    assert_eq!(ports.len(), 2, "{line:?}");
    assert!(ports.iter().all(|p| *p != 0), "{line:?}");
    (child, ports, line)
}

/// Two processes serving one folder give the same answers, byte for byte, and equal to the
/// answers computed in-process: nothing in a value depends on the process.
#[test]
fn two_mock_processes_answer_alike_and_as_computed() {
    let dir = shop_folder("twice");
    let (mut a, pa, _) = spawn_mock(&dir);
    let (mut b, pb, _) = spawn_mock(&dir);
    let top = r#"{"query":"{ topProducts { upc name price } }"}"#;
    let reps = r#"{"query":"query($r:[_Any!]!){_entities(representations:$r){... on Product{upc reviews{id body}}}}","variables":{"r":[{"__typename":"Product","upc":"Product-7"}]}}"#;
    let answers: Vec<(Value, Value)> = [&pa, &pb]
        .iter()
        .map(|p| (post(p[0], top), post(p[1], reps)))
        .collect();
    for c in [&mut a, &mut b] {
        let _ = c.kill();
        let _ = c.wait();
    }
    let config = gqlbench_subgraphs::mock::MockConfig {
        lists: [("Query.topProducts".to_string(), 2)].into(),
        ..Default::default()
    };
    let computed = gqlbench_subgraphs::mock::answer::Graph::load_dir(&dir, &config)
        .unwrap()
        .expected(
            "{ topProducts { upc name price } }",
            None,
            &Default::default(),
        )
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0].0["data"], computed);
    assert!(
        answers[0].1["data"]["_entities"][0]["reviews"][0]["body"].is_string(),
        "{:?}",
        answers[0].1
    );
}

#[test]
fn mock_command_serves_the_sdl_files_of_a_directory() {
    let dir = shop_folder("serve");
    let (mut child, ports, line) = spawn_mock(&dir);
    let products = post(ports[0], r#"{"query":"{ topProducts { upc name } }"}"#);
    let reviews = post(ports[1], r#"{"query":"{ _service { sdl } }"}"#);
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        line,
        format!("ready products={},reviews={}\n", ports[0], ports[1])
    );
    assert_eq!(
        products["data"]["topProducts"].as_array().map(Vec::len),
        Some(2)
    );
    assert_eq!(reviews["data"]["_service"]["sdl"], json!(REVIEWS));
}

#[tokio::test]
async fn provided_fields_match_the_owners_and_interfaces_pick_an_object() {
    let sdl = r#"
type Query { reviews: [Review] media: [Media] }
interface Media { id: ID! }
type Book implements Media { id: ID! pages: Int }
type Film implements Media { id: ID! minutes: Int }
type Product @key(fields: "upc") { upc: String! name: String @external }
type Review { id: ID! product: Product @provides(fields: "name") }
"#;
    let r = mock("reviews", sdl);
    let got = run(&r, "{ reviews { product { upc name } } }", json!({})).await;
    let product = &got["reviews"][1]["product"];
    let rep = json!({ "r": [{ "__typename": "Product", "upc": product["upc"] }] });
    let owner = run(&mock("products", PRODUCTS), ENTITIES, rep).await;
    assert_eq!(owner["_entities"][0]["name"], product["name"], "{product}");
    let q = "{ media { __typename id ... on Book { pages } ... on Film { minutes } } }";
    let media = run(&r, q, json!({})).await;
    for m in media["media"].as_array().unwrap() {
        let typename = m["__typename"].as_str().unwrap();
        let own = match typename {
            "Book" => "pages",
            "Film" => "minutes",
            other => panic!("{other} does not implement Media"),
        };
        assert!(
            m["id"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{typename}-")),
            "{m}"
        );
        assert!(m[own].is_u64(), "{m}");
    }
}

/// async-graphql's dynamic schema leaves out a fragment on a union and makes an object
/// with no field selected null; the mocks answer both as the spec has it (`mock::conform`),
/// and as the computed answer does.
#[tokio::test]
async fn a_fragment_on_a_union_applies_to_its_members_and_an_empty_object_is_empty() {
    let sdl = r#"union Account = User | Admin
type User { id: ID name: String similar: [Account!]! }
type Admin { id: ID name: String similar: [Account!]! }
type Query { accounts: [Account!]! }"#;
    let s = mock("b", sdl);
    let q = "{ accounts { ...a ... on User { similar { ...a } } } }
        fragment a on Account { __typename ... on Admin { name } }";
    let served = run(&s, q, Value::Null).await;
    let accounts = served["accounts"].as_array().unwrap();
    assert!(!accounts.is_empty(), "{served}");
    for a in accounts {
        assert!(a["__typename"].is_string(), "{served}");
        assert_eq!(
            a.get("name").is_some(),
            a["__typename"] == "Admin",
            "{served}"
        );
        for s in a["similar"].as_array().into_iter().flatten() {
            assert!(s["__typename"].is_string(), "{served}");
        }
    }
    // Only a fragment on User selected: an Admin is {}, not null.
    let only = run(&s, "{ accounts { ... on User { id } } }", Value::Null).await;
    let graph = Graph::new(
        vec![("b".into(), "b.graphql".into(), sdl.into())],
        &MockConfig::default(),
    )
    .unwrap();
    // The fragment's @include/@skip go with what replaces it.
    let skipped = "{ accounts { ... on Account @include(if: false) { __typename } } }";
    let spread = "{ accounts { ...a @skip(if: true) } } fragment a on Account { __typename }";
    for query in [q, "{ accounts { ... on User { id } } }", skipped, spread] {
        let expected = graph
            .expected(query, None, &serde_json::Map::new())
            .unwrap();
        let got = run(&s, query, Value::Null).await;
        assert_eq!(got, expected, "{query}");
    }
    assert!(
        only["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a.is_object()),
        "{only}"
    );
    let kinds: Vec<&Value> = served["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["__typename"])
        .collect();
    assert!(
        kinds.contains(&&json!("Admin")) && kinds.contains(&&json!("User")),
        "{served}"
    );
    let none = run(&s, skipped, Value::Null).await;
    let none = none["accounts"].as_array().unwrap();
    assert!(none.iter().all(|a| a == &json!({})), "{none:?}");
}

/// A fragment on an interface inside a fragment on a union: under the members that do not
/// implement it, it is dropped (validation would refuse it there), and the answer is the
/// computed one; a union fragment spread inside itself is left for validation to refuse,
/// not expanded without end.
#[tokio::test]
async fn an_interface_fragment_inside_a_union_fragment_and_a_cyclic_spread() {
    let sdl = r#"interface Node { id: ID }
type Post implements Node { id: ID title: String }
type User { name: String similar: [Result!]! }
union Result = User | Post
type Query { search: [Result!]! }"#;
    let s = mock("r", sdl);
    let q = "{ search { ... on Result { __typename ... on Node { id } } } }";
    let graph = Graph::new(
        vec![("r".into(), "r.graphql".into(), sdl.into())],
        &MockConfig::default(),
    )
    .unwrap();
    let expected = graph.expected(q, None, &serde_json::Map::new()).unwrap();
    assert_eq!(run(&s, q, Value::Null).await, expected);
    let cyclic = "{ search { ...a } } fragment a on Result { ... on User { similar { ...a } } }";
    let r = s.execute(async_graphql::Request::new(cyclic)).await;
    assert!(
        !r.errors.is_empty(),
        "a fragment spread inside itself is refused"
    );
}

/// An implementation narrowing an interface field (`Book.similar: [Book]` for
/// `Similar.similar: [Similar]`), which async-graphql's schema builder refused: the mock
/// serves it, a selection of it on the interface and on the object, as computed.
#[tokio::test]
async fn a_covariant_interface_field_is_served_through_the_interface_and_the_object() {
    let sdl = r#"type Query { items: [Similar!]! book: Book }
interface Similar { id: ID! similar: [Similar] }
type Book implements Similar { id: ID! pages: Int similar: [Book] }
type Magazine implements Similar { id: ID! issue: Int similar: [Magazine!] }"#;
    let s = mock("p", sdl);
    let graph = Graph::new(
        vec![("p".into(), "p.graphql".into(), sdl.into())],
        &MockConfig {
            null_every: 0,
            ..MockConfig::default()
        },
    )
    .unwrap();
    for query in [
        "{ items { id similar { id __typename } } }",
        "{ items { ... on Similar { similar { ... on Book { pages } ... on Magazine { issue } } } } }",
        "{ book { similar { id pages similar { pages } } } }",
        "query($r: Boolean!) { items { similar @include(if: $r) { id } } }",
    ] {
        let vars = json!({ "r": true });
        let expected = graph
            .expected(query, None, vars.as_object().unwrap())
            .unwrap();
        let got = run(&s, query, vars).await;
        assert_eq!(got, expected, "{query}");
        assert!(!got.to_string().contains("null"), "{query}: {got}");
    }
    let narrowed = run(&s, "{ book { similar { pages } } }", Value::Null).await;
    assert!(
        narrowed["book"]["similar"][0]["pages"].is_i64(),
        "{narrowed}"
    );
}

/// async-graphql 7.2 does not apply an operation variable's default to `@include`/`@skip`
/// when the request leaves the variable out (as Apollo's gateway sends it); the mocks fill
/// the defaults in, and answer as computed.
#[tokio::test]
async fn a_variable_default_applies_to_include_and_skip() {
    let sdl = "type Query { a: Int b: Int c: Int }";
    let s = mock("p", sdl);
    let graph = Graph::new(
        vec![("p".into(), "p.graphql".into(), sdl.into())],
        &MockConfig::default(),
    )
    .unwrap();
    let q =
        "query($t: Boolean = true, $f: Boolean = true) { a @include(if: $t) b @skip(if: $f) c }";
    let got = run(&s, q, json!({})).await;
    let expected = graph.expected(q, None, &serde_json::Map::new()).unwrap();
    assert_eq!(got, expected);
    assert!(got["a"].is_i64() && got.get("b").is_none(), "{got}");
    // A value given wins over the default.
    let given = run(&s, q, json!({ "t": false, "f": false })).await;
    assert!(given.get("a").is_none() && given["b"].is_i64(), "{given}");
}
