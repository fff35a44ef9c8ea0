//! The audit command's reading of its child's messages: which operation a fault, an init
//! refusal or a left-out list names.
use super::*;

fn suite(ops: &[&str]) -> suite::Suite {
    suite::Suite {
        name: "s".into(),
        subgraphs: Vec::new(),
        operations: ops
            .iter()
            .map(|o| (o.to_string(), "{ a }".into()))
            .collect(),
        dropped: Vec::new(),
        expects_errors: vec!["t1".into()],
    }
}

#[test]
fn the_operation_a_fault_or_an_init_error_names_is_found() {
    let s = suite(&["t1", "t10", "t2"]);
    let fault = "all 4 targets answer operation graph/t10 with errors (graphql_error: x)";
    assert_eq!(faulted(fault, &s), Some(1));
    assert_eq!(
        faulted(
            "all 2 targets agree with each other on operation graph/t1 and not",
            &s
        ),
        Some(0)
    );
    assert_eq!(faulted("something else", &s), None);
    // t1 expects an error (errors: true in test.ts): every gateway erring agrees with it;
    // agreeing on data other than the computed answer, or t10 erring, is the mocks' fault.
    let erred = "all 4 targets answer operation graph/t1 with errors (http_status: HTTP 500)";
    assert!(erred_as_expected(&s, "t1", erred));
    assert!(!erred_as_expected(&s, "t10", fault));
    let agreed = "all 2 targets agree with each other on operation graph/t1 and not with the computed answer";
    assert!(!erred_as_expected(&s, "t1", agreed));
    let init = "error: /x/graph/operations/t2.graphql: does not fit the graph's supergraph";
    assert_eq!(refused_operation(init, &s), Some(2));
    let all = "error: /x/operations: no operation can be checked: the mock subgraphs cannot serve any of them consistently, so a gateway's answer could not be judged (operations/t1.graphql: at a: why one; operations/t2.graphql: why two). Add an operation that stays clear of these";
    assert_eq!(all_left_out_why(all, "t1"), "at a: why one");
    assert_eq!(all_left_out_why(all, "t2"), "why two");
    assert_eq!(
        last_error("line\nerror: no compose:\n- reason a\n- reason b\n"),
        "error: no compose: - reason a - reason b"
    );
    // A composition error's reasons come after its query, several lines down.
    let long = "error: no compose:\n- [X] query:\n{\n  a {\n    r\n  }\n}\ncannot be satisfied:\n- from \"b\": no\n";
    assert!(last_error(long).ends_with("cannot be satisfied: - from \"b\": no"));
}
