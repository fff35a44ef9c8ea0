//! Matching the rows (scenario × target) of two runs: the baseline's rows in its order, each
//! with the same row of the candidate if it has one, then the rows only the candidate has.
use crate::results::{RunResults, ScenarioResult, TargetResult};

/// A row to compare: the scenario it is named after, the same scenario in the other run,
/// and the target in the baseline and in the candidate.
pub(super) type RowSpec<'a> = (
    &'a ScenarioResult,
    Option<&'a ScenarioResult>,
    Option<&'a TargetResult>,
    Option<&'a TargetResult>,
);

/// Every row of either run, paired with the same row of the other: baseline rows first, in
/// the baseline's order (a missing row shows where it was), then the rows only the
/// candidate has.
pub(super) fn pairs<'a>(a: &'a RunResults, b: &'a RunResults) -> Vec<RowSpec<'a>> {
    let mut specs: Vec<RowSpec> = Vec::new();
    for sa in &a.scenarios {
        let sb = find_scenario(b, sa);
        for ta in &sa.targets {
            specs.push((sa, sb, Some(ta), find_target(sb, &ta.name)));
        }
    }
    for sb in &b.scenarios {
        let sa = find_scenario(a, sb);
        for tb in &sb.targets {
            if find_target(sa, &tb.name).is_none() {
                specs.push((sb, sa, None, Some(tb)));
            }
        }
    }
    specs
}

fn find_scenario<'a>(r: &'a RunResults, s: &ScenarioResult) -> Option<&'a ScenarioResult> {
    r.scenarios
        .iter()
        .find(|x| x.suite == s.suite && x.name == s.name)
}

fn find_target<'a>(s: Option<&'a ScenarioResult>, name: &str) -> Option<&'a TargetResult> {
    s.and_then(|s| s.targets.iter().find(|t| t.name == name))
}
