//! The "target versions and settings" table under every scenario: each measured target's
//! kind, package, version, runtime, the most threads it had in a measured window,
//! fairness-relevant settings and start-up time.
use crate::results::ScenarioResult;
use crate::view::cells::not_installed;

pub const VERSIONS_HEADERS: [&str; 9] = [
    "target",
    "kind",
    "package",
    "version",
    "runtime",
    "threads (peak)",
    "settings",
    "notes",
    "ready (s)",
];

/// Each measured target's kind, package, version, fairness-relevant settings and start-up
/// time: the "target versions and settings" table under every scenario.
pub fn versions_rows(s: &ScenarioResult) -> Vec<[String; 9]> {
    s.targets
        .iter()
        .filter(|t| !not_installed(t))
        .map(|t| {
            [
                t.name.clone(),
                t.kind.label().to_string(),
                t.package.clone().unwrap_or_else(|| "-".into()),
                t.version.clone().unwrap_or_else(|| "-".into()),
                t.runtime.clone().unwrap_or_else(|| "-".into()),
                // Read, not configured: what the runtime started (workers, GC, JIT, pools).
                t.summary
                    .as_ref()
                    .and_then(|x| x.threads_peak)
                    .map_or_else(|| "-".into(), |n| n.to_string()),
                t.settings.summary(),
                t.settings.notes.clone(),
                t.ready_s
                    .map(|x| format!("{x:.2}"))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect()
}
