//! The correctness matrix: per audit suite and gateway, what a short `run federation --graph`
//! of the suite found. One serde model (audit.json); report.md and report.html are made from
//! it (`render`). A cell is read from the run's results, never assumed: correct (every
//! operation checked and equal to the answer computed from the mocks), wrong (the first
//! operation and path that differed), refused (the gateway would not start on the graph,
//! with its message), the mocks' fault (every gateway agreed on an answer other than the
//! computed one), or not run (with why).
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::results::{RunResults, TargetStatus, NOT_SUPPORTED};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Matrix {
    pub schema_version: u32,
    pub command: String,
    pub source: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// gqlbench's settings for every suite's run (scenario, duration, connections).
    pub settings: String,
    /// The gateways in column order.
    pub gateways: Vec<String>,
    pub suites: Vec<SuiteRow>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct SuiteRow {
    pub suite: String,
    /// Operations checked on every gateway.
    pub operations: Vec<String>,
    /// Operations the mocks cannot serve consistently (init's `LEFT OUT`), with why.
    pub left_out: Vec<(String, String)>,
    /// Operations not taken from the suite (not GraphQL, a spliced value), with why.
    pub dropped: Vec<(String, String)>,
    /// Operations on which every gateway disagreed with the computed answer (the mocks'
    /// fault), set aside so the rest still judge the gateways, with the fault.
    #[serde(default)]
    pub set_aside: Vec<(String, String)>,
    /// Of those, the ones where every gateway answered with an error and the audit's
    /// test.ts expects one (`errors: true`): the gateways agree with the audit, and the
    /// mocks' data (which never errs) cannot be checked against it.
    #[serde(default)]
    pub erred_as_expected: Vec<(String, String)>,
    /// Why the suite did not run at all (init refused it, no operation left, ...).
    pub not_run: Option<String>,
    /// The suite's graph folder and run folder, relative to the audit folder.
    pub graph_dir: Option<String>,
    pub run_dir: Option<String>,
    /// By gateway name.
    pub cells: BTreeMap<String, Cell>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Cell {
    pub verdict: Verdict,
    /// The first differing operation and path, the gateway's message, or why not run.
    pub detail: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Correct,
    Wrong,
    Refused,
    MocksFault,
    /// Crashed, timed out, not installed, interrupted: no verdict on its answers.
    Failed,
    NotRun,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Correct => "correct",
            Verdict::Wrong => "wrong",
            Verdict::Refused => "refused by the gateway",
            Verdict::MocksFault => "the mocks' fault",
            Verdict::Failed => "failed",
            Verdict::NotRun => "not run",
        }
    }

    /// A finding against the gateway: the audit's exit code is 1 when any cell is one.
    pub fn against_gateway(self) -> bool {
        matches!(self, Verdict::Wrong | Verdict::Refused | Verdict::Failed)
    }
}

/// The cells of one suite's run: its federation scenario's targets.
pub fn cells(r: &RunResults) -> BTreeMap<String, Cell> {
    let mut out = BTreeMap::new();
    let Some(s) = r.scenarios.first() else {
        return out;
    };
    for n in s.by_kind.get(&NOT_SUPPORTED).unwrap_or_default() {
        out.insert(
            n.target,
            Cell {
                verdict: Verdict::NotRun,
                detail: Some(n.why),
            },
        );
    }
    for t in &s.targets {
        let problem = t.problem.as_deref().map(first_line);
        let cell = match (&s.catalogue_fault, t.status) {
            (Some(fault), _) => Cell {
                verdict: Verdict::MocksFault,
                detail: Some(first_line(fault)),
            },
            (None, TargetStatus::Ok) => Cell {
                verdict: Verdict::Correct,
                detail: None,
            },
            (None, TargetStatus::WrongAnswers) => Cell {
                verdict: Verdict::Wrong,
                detail: t
                    .checks
                    .iter()
                    .find(|c| !c.ok)
                    .map(|c| {
                        format!(
                            "{}: {}",
                            c.operation,
                            c.detail.as_deref().map(first_line).unwrap_or_default()
                        )
                    })
                    .or(problem),
            },
            // The mock subgraphs, not the gateway, failed to start: no verdict on it.
            (None, TargetStatus::StartFailed)
                if problem
                    .as_deref()
                    .is_some_and(|p| p.starts_with("subgraphs:")) =>
            {
                Cell {
                    verdict: Verdict::NotRun,
                    detail: problem,
                }
            }
            (None, TargetStatus::StartFailed | TargetStatus::NotReady | TargetStatus::Skipped) => {
                Cell {
                    verdict: Verdict::Refused,
                    detail: problem,
                }
            }
            (None, other) => Cell {
                verdict: Verdict::Failed,
                detail: Some(match problem {
                    Some(p) => format!("{}: {p}", other.label()),
                    None => other.label().to_string(),
                }),
            },
        };
        out.insert(t.name.clone(), cell);
    }
    out
}

/// A message's first line, at most 300 characters: a cell is no log.
fn first_line(s: &str) -> String {
    let line = s
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    if line.chars().count() > 300 {
        format!("{}…", line.chars().take(300).collect::<String>())
    } else {
        line.to_string()
    }
}

/// init's stderr lines `graph/NAME: LEFT OUT, not checked: why`, as (NAME, why).
pub fn left_out(init_stderr: &str) -> Vec<(String, String)> {
    init_stderr
        .lines()
        .filter_map(|l| {
            let (op, why) = l.trim().split_once(": LEFT OUT, not checked: ")?;
            let op = op.rsplit('/').next().unwrap_or(op);
            Some((op.to_string(), why.to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{CheckOutcome, ScenarioResult, TargetResult};

    fn target(name: &str, status: TargetStatus) -> TargetResult {
        let mut t = TargetResult::new(name.into(), Default::default());
        t.status = status;
        t
    }

    #[test]
    fn cells_follow_the_targets_status_and_a_catalogue_fault_covers_them_all() {
        let mut wrong = target("b", TargetStatus::WrongAnswers);
        wrong.checks.push(CheckOutcome {
            operation: "g/t2".into(),
            cases: 1,
            ok: false,
            detail: Some("wrong data: data.a: expected 1, got 2\nmore".into()),
            first_s: None,
            warm_s: None,
        });
        let mut refused = target("c", TargetStatus::StartFailed);
        refused.problem = Some("exited during start-up: composition failed".into());
        let mut s = ScenarioResult {
            targets: vec![
                target("a", TargetStatus::Ok),
                wrong,
                refused,
                target("d", TargetStatus::Crashed),
            ],
            ..Default::default()
        };
        let mut r: RunResults = crate::results::test_run(serde_json::json!({}));
        r.scenarios.push(s.clone());
        let c = cells(&r);
        assert_eq!(c["a"].verdict, Verdict::Correct);
        assert_eq!(c["b"].verdict, Verdict::Wrong);
        assert_eq!(
            c["b"].detail.as_deref(),
            Some("g/t2: wrong data: data.a: expected 1, got 2")
        );
        assert_eq!(c["c"].verdict, Verdict::Refused);
        assert_eq!(c["d"].verdict, Verdict::Failed);
        s.catalogue_fault = Some("all 4 targets agree".into());
        r.scenarios[0] = s;
        assert!(cells(&r).values().all(|c| c.verdict == Verdict::MocksFault));
    }

    #[test]
    fn left_out_operations_are_read_from_init() {
        let err = "g: 2 subgraphs (a, b), 1 operations:\n  g/t1: LEFT OUT, not checked: at media: Query.media is served by several\n";
        assert_eq!(
            left_out(err),
            vec![(
                "t1".to_string(),
                "at media: Query.media is served by several".to_string()
            )]
        );
    }
}
