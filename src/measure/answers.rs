//! Telling a fault of the catalogue from faults of the targets. When every target checked
//! gets one operation wrong, and alike (the same data, or all refusing it with a GraphQL
//! error), the expected answer or the query is what is wrong: the run reports that file
//! (exit 2) instead of calling every server broken. One target alone proves nothing either
//! way, so it takes at least two.
use crate::catalog::OperationDef;
use crate::results::CheckOutcome;

/// The problem of a failed check without its "case k of n: " prefix.
fn problem(c: &CheckOutcome) -> &str {
    let d = c.detail.as_deref().unwrap_or("");
    match d.split_once(": ") {
        Some((head, rest)) if head.starts_with("case ") && head.contains(" of ") => rest,
        _ => d,
    }
}

/// The failure kind a check's problem starts with ("wrong_data", "graphql_error", ...).
fn kind(p: &str) -> &str {
    p.split_once(':').map_or(p, |(k, _)| k)
}

/// The failure kind of a failed check, as results.json names it ("timeout", "wrong_data",
/// ...); "" for a check that passed.
pub fn failure_kind(c: &CheckOutcome) -> &str {
    if c.ok {
        ""
    } else {
        kind(problem(c))
    }
}

/// Why a target's answers could not be checked, when a check got no answer within its
/// `timeout`: a timeout, not a wrong answer (the target is too slow to be checked, so it is
/// not measured). None when every check got an answer, right or wrong.
pub fn timed_out(checks: &[CheckOutcome], timeout: std::time::Duration) -> Option<String> {
    let slow = checks.iter().find(|c| failure_kind(c) == "timeout")?;
    Some(format!(
        "operation {}: no answer within the correctness check's {} timeout ({}): too slow to be checked, so not measured",
        slow.operation,
        humantime::format_duration(timeout),
        slow.detail.as_deref().unwrap_or_default()
    ))
}

/// The catalogue fault shown by the answer checks of `checked` targets (each a list of its
/// checks), if any.
pub fn catalogue_fault(ops: &[(OperationDef, u32)], checked: &[&[CheckOutcome]]) -> Option<String> {
    if checked.len() < 2 {
        return None;
    }
    for (op, _) in ops {
        let fails: Vec<&str> = checked
            .iter()
            .filter_map(|checks| checks.iter().find(|c| c.operation == op.name))
            .filter(|c| !c.ok)
            .map(problem)
            .collect();
        if fails.len() < checked.len() {
            continue;
        }
        let first = fails[0];
        let alike = match kind(first) {
            "wrong_data" => fails.iter().all(|p| *p == first),
            "graphql_error" => fails.iter().all(|p| kind(p) == "graphql_error"),
            _ => false,
        };
        // Every gateway refusing an operation of a user's graph with errors (in a 200 or
        // not) where data was computed: the graph cannot serve it the way gqlbench thought.
        let refusal = |p: &&str| matches!(kind(p), "graphql_error" | "http_status");
        if op.answers_computed() && !alike && fails.iter().all(refusal) {
            return Some(format!(
                "all {} targets answer operation {} with errors ({first}) where gqlbench computed data from the mock subgraphs: the graph likely cannot serve this operation and gqlbench's checks missed it, not a fault of the gateways; please report it with the graph (docs/own-graph.md)",
                checked.len(),
                op.name
            ));
        }
        // On a user's graph the expected answer is computed from the mocks: gateways that
        // agree with each other and not with it point at the mocks or that computation.
        if alike && op.answers_computed() {
            return Some(format!(
                "all {} targets agree with each other on operation {} and not with the answer gqlbench computed from the mock subgraphs ({first}): the mocks or that computation are likely wrong, not the gateways; please report it with the graph (docs/own-graph.md)",
                checked.len(),
                op.name
            ));
        }
        if alike {
            return Some(format!(
                "all {} targets answered operation {} alike and not as expected ({first}): the expected answer {} or the query {} is likely wrong",
                checked.len(),
                op.name,
                op.expected_path.display(),
                op.document_path.display()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn op(name: &str) -> (OperationDef, u32) {
        (
            OperationDef {
                name: name.into(),
                document: "{ a }".into(),
                document_path: PathBuf::from(format!("queries/{name}.graphql")),
                expected_path: PathBuf::from(format!("expected/{name}.json")),
                cases: Vec::new(),
                incremental: false,
                form: Default::default(),
            },
            1,
        )
    }

    fn check(op: &str, detail: Option<&str>) -> CheckOutcome {
        CheckOutcome {
            operation: op.into(),
            cases: 1,
            ok: detail.is_none(),
            detail: detail.map(String::from),
            first_s: None,
            warm_s: None,
        }
    }

    #[test]
    fn a_check_names_its_failure_kind() {
        assert_eq!(failure_kind(&check("x/a", None)), "");
        let slow = check("x/a", Some("case 2 of 3: timeout: no response within 10s"));
        assert_eq!(failure_kind(&slow), "timeout");
        let wrong = check("x/a", Some("wrong_data: data.a: expected 1, got 2"));
        assert_eq!(failure_kind(&wrong), "wrong_data");
        // A wrong answer is one; a timeout is named as a timeout.
        let ten = std::time::Duration::from_secs(10);
        assert_eq!(timed_out(&[check("x/a", None), wrong.clone()], ten), None);
        let p = timed_out(&[wrong, slow], ten).unwrap();
        assert_eq!(
            p,
            "operation x/a: no answer within the correctness check's 10s timeout (case 2 of 3: timeout: no response within 10s): too slow to be checked, so not measured"
        );
    }

    #[test]
    fn alike_wrong_answers_from_every_target_blame_the_file() {
        let ops = [op("x/a"), op("x/b")];
        let wrong = "wrong_data: data.a: expected 1, got 2";
        let t1 = [check("x/a", None), check("x/b", Some(wrong))];
        let t2 = [
            check("x/a", None),
            check("x/b", Some(&format!("case 1 of 2: {wrong}"))),
        ];
        let f = catalogue_fault(&ops, &[&t1, &t2]).expect("a fault");
        assert!(
            f.contains("expected/x/b.json") && f.contains("all 2 targets"),
            "{f}"
        );
        // Every target refusing the query: the query does not fit the schema.
        let e1 = [check(
            "x/a",
            Some("graphql_error: errors: Cannot query field \"zz\""),
        )];
        let e2 = [check(
            "x/a",
            Some("graphql_error: errors: Unknown field zz"),
        )];
        assert!(catalogue_fault(&ops[..1], &[&e1, &e2]).is_some());
    }

    #[test]
    fn gateways_agreeing_against_a_computed_answer_blame_the_mocks() {
        let (mut computed, w) = op("g/a");
        computed.expected_path = PathBuf::from("my-graph/graph.toml");
        assert!(computed.answers_computed() && !op("x/a").0.answers_computed());
        let ops = [(computed, w)];
        let wrong = "wrong_data: data.a: expected 1, got 2";
        let t1 = [check("g/a", Some(wrong))];
        let t2 = [check("g/a", Some(wrong))];
        let f = catalogue_fault(&ops, &[&t1, &t2]).expect("a fault");
        assert!(
            f.contains("agree with each other")
                && f.contains("computed from the mock subgraphs")
                && f.contains("data.a")
                && !f.contains("graph.toml"),
            "{f}"
        );
        // Every gateway refusing it with errors, in whatever form: the graph cannot serve it.
        let t1 = [check("g/a", Some("graphql_error: errors: cannot plan"))];
        let t2 = [check("g/a", Some("http_status: HTTP 500: {\"errors\":[]}"))];
        let f = catalogue_fault(&ops, &[&t1, &t2]).expect("a fault");
        assert!(f.contains("answer operation g/a with errors"), "{f}");
        // One gateway answering: its peers' errors are their own.
        let t3 = [check("g/a", None)];
        assert!(catalogue_fault(&ops, &[&t1, &t2, &t3]).is_none());
        // On a catalogue operation (expected answer written down), mixed errors are not it.
        let x1 = [check("x/a", Some("graphql_error: errors: cannot plan"))];
        let x2 = [check("x/a", Some("http_status: HTTP 500: {\"errors\":[]}"))];
        assert!(catalogue_fault(&[op("x/a")], &[&x1, &x2]).is_none());
    }

    #[test]
    fn targets_that_differ_or_stand_alone_are_their_own_fault() {
        let ops = [op("x/a")];
        let w1 = [check("x/a", Some("wrong_data: data.a: expected 1, got 2"))];
        let w2 = [check("x/a", Some("wrong_data: data.a: expected 1, got 3"))];
        let ok = [check("x/a", None)];
        let err = [check("x/a", Some("graphql_error: errors: boom"))];
        assert!(
            catalogue_fault(&ops, &[&w1, &w2]).is_none(),
            "different answers"
        );
        assert!(
            catalogue_fault(&ops, &[&w1, &ok]).is_none(),
            "one target right"
        );
        assert!(
            catalogue_fault(&ops, &[&w1, &err]).is_none(),
            "different kinds"
        );
        assert!(catalogue_fault(&ops, &[&w1]).is_none(), "one target alone");
    }
}
