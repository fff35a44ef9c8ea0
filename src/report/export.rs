//! The exporter seam. Every output gqlbench writes about a result (the terminal tables,
//! report.md, results.json and `--json`, the chart CSVs) is one `Exporter` (a format) of one
//! `Document` (a run, a comparison, an ad hoc load, a calibration), and an `ExportManager`
//! writes each to where it goes: stdout, stderr or a run folder. A format is one file of
//! `report/` implementing `Exporter` for the documents it can show; a new one (HTML) needs
//! nothing else here.
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;

use super::{Json, Terminal};
use crate::compare::Comparison;
use crate::results::RunResults;

/// Something gqlbench exports. Serializable, so that JSON is a format like the others.
pub trait Document: Serialize {
    /// The stem of the files named after the document rather than the format
    /// ("results" → results.json).
    const STEM: &'static str;
}

impl Document for RunResults {
    const STEM: &'static str = "results";
}

impl Document for Comparison {
    const STEM: &'static str = "comparison";
}

/// One piece of output: a file's name (used when written to a folder) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    pub file: String,
    pub text: String,
}

/// A format of one kind of document.
pub trait Exporter<D: ?Sized> {
    /// The document in this format: one output for most formats; CSV gives one per chart,
    /// and none when the document has nothing to chart.
    fn export(&self, doc: &D) -> Result<Vec<Output>>;
}

/// Where an exporter's outputs go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dest {
    Stdout,
    /// For the human text while stdout carries a machine-readable document.
    Stderr,
    /// Each output as a file of its name in this folder, which must exist.
    Dir(PathBuf),
}

/// The exporters requested for one document, each with its destination.
pub struct ExportManager<D: ?Sized> {
    exports: Vec<(Box<dyn Exporter<D>>, Dest)>,
}

impl<D: ?Sized> Default for ExportManager<D> {
    fn default() -> Self {
        Self {
            exports: Vec::new(),
        }
    }
}

impl<D: ?Sized> ExportManager<D> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn add(mut self, exporter: impl Exporter<D> + 'static, to: Dest) -> Self {
        self.exports.push((Box::new(exporter), to));
        self
    }

    /// Writes every export in the order added and returns the files written to folders.
    /// Every export is attempted even when one fails, so that a full disk costing
    /// report.md does not also cost the table on the terminal; the errors are returned
    /// together afterwards.
    pub fn write(&self, doc: &D) -> Result<Vec<PathBuf>> {
        let mut written = Vec::new();
        let mut errors = Vec::new();
        for (exporter, to) in &self.exports {
            let outputs = match exporter.export(doc) {
                Ok(o) => o,
                Err(e) => {
                    errors.push(format!("{e:#}"));
                    continue;
                }
            };
            for o in outputs {
                match write_one(&o, to) {
                    Ok(Some(p)) => written.push(p),
                    Ok(None) => {}
                    Err(e) => errors.push(format!("{e:#}")),
                }
            }
        }
        if errors.is_empty() {
            Ok(written)
        } else {
            Err(anyhow::anyhow!(errors.join("; ")))
        }
    }
}

impl<D: Document> ExportManager<D>
where
    Terminal: Exporter<D>,
{
    /// What every command prints: the terminal text on stdout; with `--json`, the JSON
    /// document on stdout instead (so a script reads exactly one document) and the text on
    /// stderr, where a person still sees it.
    pub fn console(json: bool) -> Self {
        if json {
            Self::new()
                .add(Terminal, Dest::Stderr)
                .add(Json, Dest::Stdout)
        } else {
            Self::new().add(Terminal, Dest::Stdout)
        }
    }
}

fn write_one(o: &Output, to: &Dest) -> Result<Option<PathBuf>> {
    match to {
        Dest::Stdout => to_stream(&mut std::io::stdout().lock(), &o.text).map(|_| None),
        Dest::Stderr => to_stream(&mut std::io::stderr().lock(), &o.text).map(|_| None),
        Dest::Dir(dir) => write_atomic(dir, &o.file, o.text.as_bytes()).map(Some),
    }
}

/// A stream gets the text ended by a newline (as `println!` did for JSON, whose files have
/// none).
pub(super) fn to_stream(w: &mut impl Write, text: &str) -> Result<()> {
    let what = "writing to the terminal or pipe";
    w.write_all(text.as_bytes()).context(what)?;
    if !text.ends_with('\n') {
        w.write_all(b"\n").context(what)?;
    }
    w.flush().context(what)
}

/// Writes a temporary file, then renames it over `dir/file`, so that a run interrupted
/// while writing never leaves a half-written file (as `RunResults::save` does for the
/// runner's checkpoints of results.json).
pub fn write_atomic(dir: &Path, file: &str, bytes: &[u8]) -> Result<PathBuf> {
    let path = dir.join(file);
    let tmp = dir.join(format!(".{file}.tmp"));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}
