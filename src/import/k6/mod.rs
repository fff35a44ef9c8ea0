//! `gqlbench import k6`: k6's output read into the one result model, one scenario with
//! one target and one trial, labelled as measured by k6. The JSON lines (`--out json`,
//! gzipped or not; one file per k6-operator pod, every pod's needed) give the measured
//! window (the `warmup` scenario left out), a latency histogram and a series per second; a
//! summary alone gives k6's own figures for the whole test. The checks of `gqlbench export
//! k6` (`status is 200`, `no errors`, `data as expected`) say which responses were wrong,
//! and how; iterations k6 dropped flag the row (k6 fell behind its schedule). A file given
//! twice, a pod's file missing, a window too short to give a rate are refused.
pub mod input;
pub mod load;
pub mod pods;
pub mod points;
mod row;
pub mod summary;

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gqlbench_engine::LoadResult;
use serde_json::Value;

use crate::error::ResultsError;
use crate::export::plan::ExportMetadata;
use crate::export::METADATA_FILE;
use crate::results::*;

/// What gqlbench measures and k6 does not.
pub const UNMEASURED: [&str; 6] = [
    "target CPU",
    "target memory",
    "GC pauses",
    "load generator CPU (saturation)",
    "connection spread",
    "machine noise",
];

/// The flags of `gqlbench import k6`, resolved.
pub struct Options {
    pub files: Vec<PathBuf>,
    pub target: Option<String>,
    pub suite: Option<String>,
    pub scenario: Option<String>,
    pub k6_version: Option<String>,
    pub command: Vec<String>,
}

enum Input {
    Points(PathBuf),
    Summary(PathBuf, Value),
}

fn bad(file: &Path, message: String) -> anyhow::Error {
    ResultsError::Import {
        file: file.to_path_buf(),
        message,
    }
    .into()
}

/// The format of one file, from its content.
fn sniff(file: &Path) -> Result<Input> {
    let mut first = String::new();
    for line in input::open(file)?.lines() {
        let line = line.map_err(|e| input::read_error(file, e))?;
        if !line.trim().is_empty() {
            first = line;
            break;
        }
    }
    if points::sniff(&first) {
        return Ok(Input::Points(file.to_path_buf()));
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut input::open(file)?, &mut text)
        .map_err(|e| input::read_error(file, e))?;
    let expected = "expected k6's JSON lines (k6 run --out json=FILE: each line {\"type\": \"Metric\" or \"Point\", ...}) or its summary (k6 run --summary-export=FILE: an object with `metrics`)";
    let v: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return Err(bad(file, format!("is neither ({e}); {expected}"))),
    };
    if summary::sniff(&v) {
        return Ok(Input::Summary(file.to_path_buf(), v));
    }
    if v.get("schema_version").is_some() {
        return Err(bad(
            file,
            "is a gqlbench results file, not k6 output: `gqlbench report` and `compare` read it as it is".into(),
        ));
    }
    Err(bad(
        file,
        format!("is JSON without a `metrics` object; {expected}"),
    ))
}

/// `gqlbench-export.json` beside the first input file that has one.
fn metadata(files: &[PathBuf]) -> Result<Option<(PathBuf, ExportMetadata)>> {
    for f in files {
        let dir = f
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let m = dir.join(METADATA_FILE);
        if m.is_file() {
            let text =
                std::fs::read_to_string(&m).with_context(|| format!("reading {}", m.display()))?;
            let meta: ExportMetadata = serde_json::from_str(&text).map_err(|e| {
                bad(&m, format!("{e}; it is written by `gqlbench export k6` (write it again, or move it away and name the scenario with --suite/--scenario)"))
            })?;
            return Ok(Some((m, meta)));
        }
    }
    Ok(None)
}

/// What the files say of the measured load, before it becomes a row.
struct Measured {
    load: LoadResult,
    started: Option<String>,
    notes: Vec<String>,
    problems: Vec<String>,
    saturation: Vec<SaturationFlag>,
    files: Vec<ImportedFile>,
}

/// A flag for iterations k6 dropped: it had no free VU when one was due, so it sent less
/// than the schedule and the figures describe k6, not the target.
fn dropped(n: u64, over: &str) -> Option<SaturationFlag> {
    (n > 0).then(|| SaturationFlag {
        kind: crate::results::FlagKind::DroppedIterations,
        detail: format!(
            "k6 dropped {n} iterations {over} (k6's dropped_iterations: no free VU when one was due): the load generator fell behind the schedule, so the figures are k6's; raise maxVUs or add pods"
        ),
    })
}

/// The measured window (`how` it was told) must be long enough to give a rate; `also` is
/// a further way out, said after "run k6 for longer".
fn check_window(file: &Path, window_s: f64, how: &str, also: &str) -> Result<()> {
    if window_s < load::MIN_WINDOW_S {
        return Err(bad(
            file,
            format!(
                "{how} is {window_s:.3} s: too short to measure a rate (at least {} s); run k6 for longer{also}",
                load::MIN_WINDOW_S
            ),
        ));
    }
    Ok(())
}

fn from_lines(
    lines: &[PathBuf],
    summary: Option<&(PathBuf, summary::Summary)>,
    meta: Option<&(PathBuf, ExportMetadata)>,
) -> Result<Measured> {
    let m = meta.map(|(_, m)| m);
    let refs: Vec<&Path> = lines.iter().map(PathBuf::as_path).collect();
    let p = points::read(&refs)?;
    let mut notes = Vec::new();
    let mut problems = Vec::new();
    if let Some(n) = pods::check(&p.files, meta.map(|(f, m)| (f.as_path(), m)))? {
        notes.push(n);
    }
    let mut files: Vec<ImportedFile> = lines
        .iter()
        .map(|f| ImportedFile {
            path: f.display().to_string(),
            format: "k6 JSON lines (--out json)".into(),
        })
        .collect();
    if let Some((f, s)) = summary {
        files.push(ImportedFile {
            path: f.display().to_string(),
            format: s.format.into(),
        });
        // Both must describe one run: every request of the lines is in the summary.
        if s.requests != p.all_requests {
            return Err(bad(f, format!(
                "counts {} requests (metrics.http_reqs.count) but the JSON lines hold {}: not the same k6 run",
                s.requests, p.all_requests
            )));
        }
    }
    if p.warmup_requests > 0 {
        notes.push(format!(
            "{} warm-up requests (k6 scenario `{}`) left out",
            p.warmup_requests,
            crate::export::WARMUP_SCENARIO
        ));
    }
    if p.requests > 0 {
        let window = load::window_s(&p, m);
        match meta {
            Some((f, _)) => check_window(f, window, "the measured window (duration_s)", "")?,
            None => check_window(
                &lines[0],
                window,
                "the first to the last measured request",
                &format!(", or put {METADATA_FILE} (which says the window) beside the file"),
            )?,
        }
    }
    let (l, ours) = load::from_points(&p, m);
    if !ours {
        notes.push("the responses were not checked with gqlbench's checks (`gqlbench export k6` writes them): failures counted from HTTP status and any failed k6 check".into());
        problems.push("answers not checked against expected data".to_string());
    }
    Ok(Measured {
        load: l,
        started: p.first.map(|t| t.to_rfc3339()),
        notes,
        problems,
        saturation: dropped(p.dropped_iterations, "in the measured window")
            .into_iter()
            .collect(),
        files,
    })
}

fn from_summary(f: &Path, s: &summary::Summary) -> Result<Measured> {
    let mut notes = vec!["a summary alone: k6's figures over the whole test, warm-up included, and its own percentiles (no histogram to merge); import the JSON lines (--out json) for the measured window".to_string()];
    if !s.missing.is_empty() {
        notes.push(format!(
            "the summary lacks {} of http_req_duration (k6's summaryTrendStats): shown as -",
            s.missing.join(", ")
        ));
    }
    let l = load::from_summary(s);
    if l.requests > 0 {
        check_window(
            f,
            l.elapsed_s,
            "the test's duration (metrics.http_reqs count / rate)",
            "",
        )?;
    }
    Ok(Measured {
        load: l,
        started: None,
        notes,
        problems: Vec::new(),
        saturation: dropped(s.dropped_iterations, "over the whole test")
            .into_iter()
            .collect(),
        files: vec![ImportedFile {
            path: f.display().to_string(),
            format: s.format.into(),
        }],
    })
}

/// A summary file and what was read from it.
type ReadSummary = (PathBuf, summary::Summary);

/// The files sorted: JSON lines (any number, one per pod) and at most one summary, read.
fn inputs(files: &[PathBuf]) -> Result<(Vec<PathBuf>, Option<ReadSummary>)> {
    let mut lines = Vec::new();
    let mut summaries = Vec::new();
    for f in files {
        match sniff(f)? {
            Input::Points(p) => lines.push(p),
            Input::Summary(p, v) => summaries.push((p, v)),
        }
    }
    if summaries.len() > 1 {
        return Err(bad(
            &summaries[1].0,
            "a second summary: summaries of several k6 processes cannot be merged into percentiles; import their JSON lines (--out json) instead".into(),
        ));
    }
    let summary = match summaries.first() {
        Some((f, v)) => Some((f.clone(), summary::read(f, v)?)),
        None => None,
    };
    Ok((lines, summary))
}

pub fn import(o: &Options) -> Result<RunResults> {
    input::check_distinct(&o.files)?;
    let (lines, summary) = inputs(&o.files)?;
    let meta = metadata(&o.files)?;
    let m = meta.as_ref().map(|(_, m)| m);
    let Measured {
        load,
        started,
        mut notes,
        mut problems,
        saturation,
        files,
    } = if lines.is_empty() {
        let (f, s) = summary.as_ref().context("no input")?;
        from_summary(f, s)?
    } else {
        from_lines(&lines, summary.as_ref(), meta.as_ref())?
    };
    // Nothing measured is not a run of a target (a latency without its request, or only
    // the warm-up's requests): refused, not a row of NaN req/s.
    if load.requests + load.unanswered == 0 {
        return Err(bad(
            &o.files[0],
            format!(
                "no measured request in {}: every request is the `{}` scenario's (or there is none); import the output of a k6 run whose measured scenario ran (gqlbench export k6 writes one)",
                if o.files.len() > 1 { "these files" } else { "the file" },
                crate::export::WARMUP_SCENARIO
            ),
        ));
    }
    if load.failed > 0 {
        problems.push(format!(
            "{} of {} requests failed their checks",
            load.failed,
            load.requests + load.unanswered
        ));
    }
    let target = row::target(o, m, load, started.clone(), problems, saturation);
    if m.is_none() {
        notes.push("no gqlbench-export.json beside the files: the load's model, connections and warm-up are the k6 script's own, not recorded".into());
    }
    let scenario = row::scenario(o, m, target);
    if let Some((f, _)) = &meta {
        notes.push(format!("scenario from {}", f.display()));
    }
    let now = now_rfc3339();
    Ok(RunResults {
        schema_version: SCHEMA_VERSION,
        tool: ToolInfo {
            name: "gqlbench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            git_commit: None,
        },
        engine: match &o.k6_version {
            Some(v) => format!("k6 {v}"),
            None => "k6".into(),
        },
        import: Some(ImportInfo {
            files,
            unmeasured: UNMEASURED.iter().map(|s| s.to_string()).collect(),
            notes,
        }),
        suite: scenario.suite.clone(),
        profile: m.map_or(String::new(), |m| m.profile.clone()),
        command: o.command.clone(),
        started_at: started.unwrap_or_else(|| now.clone()),
        finished_at: Some(now),
        status: RunStatus::Complete,
        machine: MachineInfo::default(),
        isolation: IsolationInfo::default(),
        runtimes: BTreeMap::new(),
        target_env: BTreeMap::new(),
        scenarios: vec![scenario],
        budget: None,
        machine_probe: None,
        left_out: None,
        verdict: None,
    })
}
