//! Scenario kinds: what a scenario measures and how, one kind per file, as k6 keeps one
//! executor per file. A kind owns its section of the scenario file (parsed and validated
//! there), the trial it runs against a started target, what it derives after each trial,
//! and the report tables and charts of its results. What a kind is (the trait, its
//! contexts, its registration) is `crate::kind`; this module is the kinds and their
//! registry.
//!
//! Adding a kind: one file here, and one line in [`REGISTRY`].
pub mod ab;
pub mod batching;
pub mod cold_start;
pub mod connection_sweep;
pub mod database;
pub mod depth;
pub mod distinct;
pub mod efficiency;
pub mod incremental;
pub mod latency_at_rate;
pub mod long_run;
pub mod overhead;
pub mod persisted;
pub mod rate_sweep;
pub mod reload;
pub mod response_cache;
pub mod subscriptions;

use crate::catalog::scenario::ScenarioFile;
use crate::catalog::Catalog;
use crate::kind::KindDef;
use crate::results::ScenarioResult;
use crate::view::Table;

/// Every kind but plain load (the default base), base kinds first.
pub const REGISTRY: &[&KindDef] = &[
    &rate_sweep::DEF,
    &connection_sweep::DEF,
    &latency_at_rate::DEF,
    &efficiency::DEF,
    &subscriptions::DEF,
    &cold_start::DEF,
    &reload::DEF,
    &database::DEF,
    &depth::DEF,
    &batching::DEF,
    &incremental::DEF,
    &persisted::DEF,
    &distinct::DEF,
    &long_run::DEF,
    &overhead::DEF,
    &response_cache::DEF,
    &ab::DEF,
];

/// `gqlbench list`'s load column for a scenario file: the plain load as each kind present
/// rewrites it.
pub fn list_line(f: &ScenarioFile, plain: String) -> String {
    REGISTRY
        .iter()
        .fold(plain, |line, d| match f.sections.get(d.section) {
            Some(v) => (d.list)(v, f, line),
            None => line,
        })
}

/// Whether `gqlbench check` leaves this scenario file out.
pub fn skip_in_check(f: &ScenarioFile, cat: &Catalog) -> bool {
    REGISTRY
        .iter()
        .any(|d| f.sections.contains_key(d.section) && (d.skip_in_check)(f, cat))
}

/// Report tables of every kind, for a saved scenario.
pub fn tables(s: &ScenarioResult) -> Vec<Table> {
    REGISTRY.iter().flat_map(|d| (d.tables)(s)).collect()
}

/// Chart files of every kind, for a saved scenario.
pub fn charts(s: &ScenarioResult) -> Vec<(String, String)> {
    REGISTRY.iter().flat_map(|d| (d.charts)(s)).collect()
}

/// HTML charts of every kind, for a saved scenario.
pub fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    REGISTRY.iter().flat_map(|d| (d.html)(s)).collect()
}

/// The report's load line of a saved scenario when one of its kinds words it (cold starts,
/// subscriptions); None for the plain load's line.
pub fn load_line(s: &ScenarioResult) -> Option<String> {
    REGISTRY.iter().find_map(|d| (d.load_line)(s))
}
