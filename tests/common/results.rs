//! Reading what a run wrote, through the library's own result model.
use std::path::Path;

use gqlbench::results::{RunResults, TargetResult};

/// The run saved in `dir` (its results.json), read as `report` and `compare` read it.
pub fn read_results(dir: &Path) -> RunResults {
    RunResults::load(dir).unwrap_or_else(|e| panic!("{e:#}"))
}

/// The row of target `name` in the `scenario`-th scenario.
pub fn target<'a>(results: &'a RunResults, scenario: usize, name: &str) -> &'a TargetResult {
    results.scenarios[scenario]
        .targets
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("target {name} missing"))
}
