//! The CSV exporter: the data behind charts, one file per chart, beside report.md:
//! `sweep-<scenario>.csv` for connection sweeps, `memory-<scenario>.csv` for long runs.
//! The texts come from `extras` (the tables they chart); this file names them.
use anyhow::Result;

use super::export::{Exporter, Output};
use super::extras;
use crate::results::RunResults;

/// Chart data of a run.
pub struct Csv;

impl Exporter<RunResults> for Csv {
    fn export(&self, r: &RunResults) -> Result<Vec<Output>> {
        Ok(chart_files(r)
            .into_iter()
            .map(|(file, text)| Output { file, text })
            .collect())
    }
}

/// Files with the data behind charts (CSV), generated from the model: (file name, text).
pub fn chart_files(r: &RunResults) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in &r.scenarios {
        if let Some(csv) = extras::connection_sweep_csv(s) {
            out.push((format!("sweep-{}.csv", s.name), csv));
        }
        if let Some(csv) = extras::memory_csv(s) {
            out.push((format!("memory-{}.csv", s.name), csv));
        }
    }
    out
}
