//! The CSV exporter: the data behind charts, one file per chart, beside report.md:
//! `sweep-<scenario>.csv` for connection sweeps, `memory-<scenario>.csv` for long runs.
//! Each kind (`src/kinds/`) makes its own chart texts; this file gathers them.
use anyhow::Result;

use super::export::{Exporter, Output};
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
        out.extend(crate::kinds::charts(s));
    }
    out
}
