//! The lines that name targets skipped because their native build is not installed, and the lines that name
//! them in reports.
use crate::results::{RunResults, ScenarioResult, NOT_SUPPORTED};
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
/// whose build is not installed, and "not supported: X (why)" for targets that say they
/// cannot serve its workload.
pub fn not_run_line(s: &ScenarioResult) -> Option<String> {
    let names: Vec<&str> = s
        .targets
        .iter()
        .filter(|t| not_installed(t))
        .map(|t| t.name.as_str())
        .collect();
    let mut parts = Vec::new();
    if !names.is_empty() {
        parts.push(format!(
            "not run: {} (not installed; see the top of the report)",
            names.join(", ")
        ));
    }
    for n in s.by_kind.get(&NOT_SUPPORTED).unwrap_or_default() {
        parts.push(format!("not supported: {}: {}", n.target, n.why));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
