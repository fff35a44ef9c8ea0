//! The "target versions and settings" table under every scenario: each measured target's
//! kind, package, version, runtime, fairness-relevant settings and start-up time.
use crate::results::ScenarioResult;
use crate::view::cells::not_installed;

pub const VERSIONS_HEADERS: [&str; 8] = [
    "target",
    "kind",
    "package",
    "version",
    "runtime",
    "settings",
    "notes",
    "ready (s)",
];

/// Each measured target's kind, package, version, fairness-relevant settings and start-up
/// time: the "target versions and settings" table under every scenario.
pub fn versions_rows(s: &ScenarioResult) -> Vec<[String; 8]> {
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
                t.settings.summary(),
                t.settings.notes.clone(),
                t.ready_s
                    .map(|x| format!("{x:.2}"))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect()
}
