//! `gqlbench import k6 FILE...`: k6's output into a results folder (results.json,
//! report.md, report.html) that `report` and `compare` read; exit 1 when the imported row
//! is invalid (failed checks), as a run's would be.
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::ImportK6Args;
use crate::report::cost::Priced;
use crate::report::{Dest, ExportManager, Html, Json, Markdown, Terminal};

pub fn k6(a: &ImportK6Args) -> Result<ExitCode> {
    let mut r = crate::import::k6::import(&crate::import::k6::Options {
        files: a.files.clone(),
        target: a.target.clone(),
        suite: a.suite.clone(),
        scenario: a.scenario.clone(),
        k6_version: a.k6_version.clone(),
        command: std::env::args().collect(),
    })?;
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("results").join(format!(
            "{}-k6-import",
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        ))
    });
    crate::measure::out_dir::prepare(&out, a.force)?;
    std::fs::create_dir_all(&out)?;
    let verdict = crate::results::RunVerdict {
        // `import k6` has no --ignore-failures: its verdict line does not offer it.
        ignorable: false,
        ..crate::verdict::judge(&r, false)
    };
    r.verdict = Some(verdict.clone());
    // The default prices: a saved import is priced again by `report --prices`.
    let pricing = crate::cost::Pricing::shipped()?;
    let folder = Dest::Dir(out.clone());
    ExportManager::new()
        .add(Json, folder.clone())
        .add(Priced::new(Markdown, pricing.clone()), folder.clone())
        .add(Priced::new(Html, pricing.clone()), folder)
        .write(&r)?;
    if a.json {
        ExportManager::new()
            .add(Priced::new(Terminal, pricing), Dest::Stderr)
            .add(Json, Dest::Stdout)
    } else {
        ExportManager::new().add(Priced::new(Terminal, pricing), Dest::Stdout)
    }
    .write(&r)?;
    eprintln!(
        "\nresults: {}\nreport:  {}",
        out.join("results.json").display(),
        out.join("report.md").display()
    );
    Ok(verdict.exit())
}
