//! The lines that name targets skipped because their native build is not installed, and the lines that name
//! them in reports.
use crate::results::{RunResults, ScenarioResult};
use crate::view::cells::not_installed;

/// "X: not installed (...); ... `gqlbench install X` builds it", once per target per report.
pub fn not_installed_lines(r: &RunResults) -> Vec<String> {
    let mut seen = std::collections::BTreeSet::new();
    r.scenarios
        .iter()
        .flat_map(|s| s.targets.iter())
        .filter(|t| not_installed(t) && seen.insert(t.name.clone()))
        .map(|t| {
            format!(
                "skipped {}: {}",
                t.name,
                t.problem.as_deref().unwrap_or("not installed")
            )
        })
        .collect()
}

/// "not run: cosmo-router (not installed, see above)" for a scenario that includes targets
/// whose build is not installed.
pub fn not_run_line(s: &ScenarioResult) -> Option<String> {
    let names: Vec<&str> = s
        .targets
        .iter()
        .filter(|t| not_installed(t))
        .map(|t| t.name.as_str())
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "not run: {} (not installed; see the top of the report)",
            names.join(", ")
        )
    })
}
