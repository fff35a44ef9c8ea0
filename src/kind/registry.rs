//! The kinds' registry: what a kind is registered with (`KindDef`: its section, how it is
//! resolved from a scenario file, its report), what resolving has at hand (`ResolveCx`),
//! and resolving a scenario's kinds, base then decorators, from its sections.
use std::sync::Arc;

use anyhow::Result;

use super::Kind;
use crate::catalog::scenario::{ScenarioDef, ScenarioFile};
use crate::catalog::Catalog;
use crate::plan::load::Load;
use crate::plan::RunOptions;
use crate::results::ScenarioResult;
use crate::view::Table;

/// What resolving a scenario's kinds has at hand.
pub struct ResolveCx<'a> {
    pub cat: &'a Catalog,
    pub def: &'a ScenarioDef,
    pub args: &'a RunOptions,
    /// The profile in force (its name picks `[profiles.<name>.<section>]` overrides).
    pub profile: &'a str,
    pub load: &'a Load,
}

impl ResolveCx<'_> {
    /// The scenario's `[section]`, or its profile's override of it.
    pub fn section(&self, name: &str) -> Option<&toml::Value> {
        let f = &self.def.file;
        f.profiles
            .get(self.profile)
            .and_then(|p| p.sections.get(name))
            .or_else(|| f.sections.get(name))
    }

    /// A section deserialized into a kind's spec; the error names the file and section.
    pub fn spec<T: serde::de::DeserializeOwned>(&self, name: &str) -> Result<Option<T>> {
        let Some(v) = self.section(name) else {
            return Ok(None);
        };
        v.clone()
            .try_into()
            .map(Some)
            .map_err(|e| self.bad(format!("[{name}]: {e}")).into())
    }

    pub fn bad(&self, message: String) -> crate::error::CatalogError {
        crate::error::CatalogError::File {
            file: self.def.path.clone(),
            message,
        }
    }
}

/// Builds a kind from its section, if present; a decorator gets the kind it wraps.
pub type Resolver = fn(&ResolveCx<'_>, Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>>;

/// A registered kind: the section it reads, how it is built, and its report.
pub struct KindDef {
    /// The scenario-file section (or key) that asks for it.
    pub section: &'static str,
    /// Builds the kind when the section is present. A base kind gets None as `inner`; a
    /// decorator gets the kind it wraps.
    pub resolve: Resolver,
    /// Whether it wraps another kind (decorators are applied after the base kind).
    pub decorator: bool,
    /// Its report tables, from a saved result alone (reports are rebuilt from results.json).
    pub tables: fn(&ScenarioResult) -> Vec<Table>,
    /// Its chart files (name, CSV text).
    pub charts: fn(&ScenarioResult) -> Vec<(String, String)>,
    /// Its charts in report.html, from a saved result alone (beside those every throughput
    /// scenario has: `report::html::load`).
    pub html: fn(&ScenarioResult) -> Vec<crate::view::Figure>,
    /// `gqlbench list`'s load column: given the section and the column so far (the plain
    /// load), what to show instead.
    pub list: fn(&toml::Value, &ScenarioFile, String) -> String,
    /// `gqlbench check` leaves a scenario of this kind out: its run checks what it needs
    /// (no expected answers, refusals by design, the same operations served elsewhere).
    pub skip_in_check: fn(&ScenarioFile, &Catalog) -> bool,
    /// Why `gqlbench export k6` cannot reproduce a scenario of this kind; None when its
    /// measurement is a load on one endpoint that a k6 script reproduces.
    pub not_in_k6: Option<&'static str>,
    /// The kind sweeps connection counts, so `gqlbench export k6 -c N` exports one level of
    /// it (the one `-c` names) instead of refusing it.
    pub levels_by_connections: bool,
    /// The report's load line of a saved scenario of this kind, when the kind measures
    /// something other than a load ("5 fresh starts per target"); None keeps the plain
    /// load's line.
    pub load_line: fn(&ScenarioResult) -> Option<String>,
}

impl KindDef {
    /// A base kind reading `section`, with no tables, charts or figures of its own, the
    /// plain load's line in `list` and in reports, checked by `gqlbench check` and
    /// exportable to k6: a kind's `DEF` gives what differs and `..KindDef::base(..)`.
    pub const fn base(section: &'static str, resolve: Resolver) -> KindDef {
        KindDef {
            section,
            resolve,
            decorator: false,
            tables: no_tables,
            charts: no_charts,
            html: no_html,
            list: same_line,
            skip_in_check: never,
            not_in_k6: None,
            levels_by_connections: false,
            load_line: no_load_line,
        }
    }

    /// A decorating kind reading `section`, with the same defaults as `base`.
    pub const fn decorator(section: &'static str, resolve: Resolver) -> KindDef {
        KindDef {
            decorator: true,
            ..KindDef::base(section, resolve)
        }
    }
}

/// `KindDef::list` of the kinds that leave the plain load's column as it is.
pub fn same_line(_: &toml::Value, _: &ScenarioFile, line: String) -> String {
    line
}

/// The scenario's kind: its one base kind (plain load when no section asks for another),
/// wrapped by its decorators.
pub fn resolve(cx: &ResolveCx<'_>, registry: &[&KindDef]) -> Result<Arc<dyn Kind>> {
    let mut base: Option<(&str, Arc<dyn Kind>)> = None;
    for def in registry.iter().filter(|d| !d.decorator) {
        if let Some(k) = (def.resolve)(cx, None)? {
            if let Some((other, _)) = &base {
                return Err(cx
                    .bad(format!(
                        "a scenario has one kind, but this one has both `{other}` and `{}`; split it into two files",
                        def.section
                    ))
                    .into());
            }
            base = Some((def.section, k));
        }
    }
    let mut kind = base.map_or_else(|| Arc::new(super::load::Load) as Arc<dyn Kind>, |(_, k)| k);
    for def in registry.iter().filter(|d| d.decorator) {
        if let Some(k) = (def.resolve)(cx, Some(kind.clone()))? {
            kind = k;
        }
    }
    Ok(kind)
}

/// Refuses a section of the scenario file (or of one of its profiles) that no kind reads:
/// a typo would otherwise be silently ignored.
pub fn check_sections(def: &ScenarioDef, registry: &[&KindDef]) -> Result<()> {
    let f = &def.file;
    let known: Vec<&str> = registry.iter().map(|k| k.section).collect();
    let given = f
        .sections
        .keys()
        .chain(f.profiles.values().flat_map(|p| p.sections.keys()));
    for name in given {
        if !known.contains(&name.as_str()) {
            return Err(crate::error::CatalogError::File {
                file: def.path.clone(),
                message: format!(
                    "unknown field `{name}`; valid fields: description, optional, workload, targets, operations, load, limits, profiles, subgraphs, {}",
                    known.join(", ")
                ),
            }
            .into());
        }
    }
    Ok(())
}

/// `KindDef::skip_in_check` of the kinds `check` always leaves out, or never.
pub fn always(_: &ScenarioFile, _: &Catalog) -> bool {
    true
}

pub fn never(_: &ScenarioFile, _: &Catalog) -> bool {
    false
}

/// For kinds without tables or charts.
pub fn no_tables(_: &ScenarioResult) -> Vec<Table> {
    Vec::new()
}

pub fn no_charts(_: &ScenarioResult) -> Vec<(String, String)> {
    Vec::new()
}

/// `KindDef::load_line` of the kinds whose load line is the plain load's.
pub fn no_load_line(_: &ScenarioResult) -> Option<String> {
    None
}

pub fn no_html(_: &ScenarioResult) -> Vec<crate::view::Figure> {
    Vec::new()
}
