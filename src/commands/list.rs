//! `gqlbench list`: the catalogue, generated from the files (nothing listed by hand), and
//! whether the shared cache holds a current build of each native target.
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::Table;

use crate::catalog::Catalog;

pub fn run(root: &Path) -> Result<ExitCode> {
    print!("{}", render(&Catalog::load(root)?)?);
    Ok(ExitCode::SUCCESS)
}

pub fn render(cat: &Catalog) -> Result<String> {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED).set_header([
        "target",
        "kind",
        "package",
        "version",
        "workloads",
        "settings",
        "description",
    ]);
    for x in &cat.targets {
        t.add_row([
            x.name.clone(),
            x.kind.label().to_string(),
            x.package.clone().unwrap_or_else(|| "-".into()),
            x.package_version().unwrap_or_else(|| "-".into()),
            x.workloads.join(", "),
            x.settings.summary(),
            x.description.clone(),
        ]);
    }
    let mut out = format!("Targets ({})\n{t}\n", cat.targets.len());
    // Declared in each target's [install] requires; what this machine would need first.
    let missing: Vec<String> = cat
        .targets
        .iter()
        .flat_map(|x| {
            crate::measure::install::missing_requirements(x)
                .into_iter()
                .map(move |r| format!("  {}: `{}` (get it: {})\n", x.name, r.program, r.hint))
        })
        .collect();
    if !missing.is_empty() {
        out.push_str("Programs missing on this machine, needed to install these targets:\n");
        out.extend(missing);
    }
    out.push_str(&native_builds(cat));
    for suite in cat.suites() {
        let mut s = Table::new();
        s.load_preset(UTF8_FULL_CONDENSED).set_header([
            "scenario",
            "operations",
            "load",
            "targets",
            "description",
        ]);
        for name in cat.scenario_names(&suite)? {
            let d = cat.scenario(&suite, &name)?;
            let f = &d.file;
            let plain = match f.load.model {
                Some(crate::catalog::scenario::Model::Open) => {
                    format!("open {} req/s", f.load.rate.unwrap_or(0.0))
                }
                _ => format!(
                    "closed {} conn{}",
                    f.load.connections.unwrap_or(100),
                    f.load
                        .pipelining
                        .filter(|p| *p > 1)
                        .map(|p| format!(", -p {p}"))
                        .unwrap_or_default()
                ),
            };
            crate::kind::check_sections(&d, crate::kinds::REGISTRY)?;
            let load = crate::kinds::list_line(f, plain);
            s.add_row([
                if f.optional {
                    format!("{suite}/{name} (optional)")
                } else {
                    format!("{suite}/{name}")
                },
                f.operations
                    .iter()
                    .map(|o| {
                        if f.operations.len() > 1 {
                            format!("{} ×{}", o.name, o.weight)
                        } else {
                            o.name.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
                load,
                f.targets
                    .as_ref()
                    .map(|v| v.join(", "))
                    .unwrap_or_else(|| format!("all implementing '{}'", f.workload)),
                f.description.clone(),
            ]);
        }
        out.push_str(&format!("\nSuite {suite}\n{s}\n"));
    }
    Ok(out)
}

/// One line per target built into the cache (the native gateways): where its current build
/// is, or why there is none and the command that builds it.
fn native_builds(cat: &Catalog) -> String {
    use crate::measure::install::{self, State};
    use crate::measure::install_record as record;
    let native: Vec<_> = cat
        .targets
        .iter()
        .filter(|t| install::is_cache_build(t))
        .collect();
    if native.is_empty() {
        return String::new();
    }
    let node = crate::sys::machine::node_version().unwrap_or_default();
    let mut out = format!(
        "Native builds (cache: {}, $GQLBENCH_CACHE):\n",
        record::tilde(&crate::catalog::vars::cache_dir())
    );
    for t in native {
        let dir = record::build_dir(t)
            .map(|d| record::tilde(&d))
            .unwrap_or_default();
        let line = match install::state(t, &node) {
            Ok(State::Current(Some(rec))) => {
                let tools: Vec<&str> = rec.toolchain.values().map(String::as_str).collect();
                format!(
                    "built in {dir} ({}{})",
                    rec.describe(),
                    if tools.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", tools.join(", "))
                    }
                )
            }
            Ok(State::Legacy { stamp }) => format!(
                "built in {dir} by an older gqlbench (its stamp {} matches); recorded in the cache by the next `gqlbench install {}` or run",
                record::tilde(&stamp),
                t.name
            ),
            Ok(State::NotCurrent(why)) => install::not_installed_message(t, &why),
            Ok(State::Current(None) | State::Nothing) => "installed".into(),
            Err(e) => format!("{e:#}"),
        };
        out.push_str(&format!("  {}: {line}\n", t.name));
    }
    out
}
