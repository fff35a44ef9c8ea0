//! `gqlbench import k6`: k6's output read into the one result model, one scenario with
//! one target and one trial, labelled as measured by k6. The JSON lines (`--out json`)
//! give the measured window (the `warmup` scenario left out), a latency histogram and a
//! series per second; a summary alone gives k6's own figures for the whole test. The
//! checks of `gqlbench export k6` (`status is 200`, `no errors`, `data as expected`) say
//! which responses were wrong, and how.
pub mod points;
pub mod summary;

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use gqlbench_engine::{encode_hist, summarize_hist, FailureKind, LoadResult, SecondSample};
use serde_json::Value;

use crate::catalog::TargetKind;
use crate::error::UserError;
use crate::export::plan::{Executor, ExportMetadata};
use crate::export::{CHECKS, METADATA_FILE};
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
    UserError::Manifest {
        file: file.to_path_buf(),
        message,
    }
    .into()
}

/// The format of one file, from its content.
fn sniff(file: &Path) -> Result<Input> {
    let f = std::fs::File::open(file).map_err(|e| bad(file, format!("cannot be read: {e}")))?;
    let mut first = String::new();
    for line in std::io::BufReader::new(f).lines() {
        let line = line.map_err(|e| bad(file, format!("cannot be read as text: {e}")))?;
        if !line.trim().is_empty() {
            first = line;
            break;
        }
    }
    if points::sniff(&first) {
        return Ok(Input::Points(file.to_path_buf()));
    }
    let text =
        std::fs::read_to_string(file).map_err(|e| bad(file, format!("cannot be read: {e}")))?;
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

/// Failed requests by kind from the export's three checks, each response counted once
/// under its first failure (as gqlbench does): a status other than 200, else errors, else
/// wrong data. Without those checks, by HTTP status alone (and any failed check).
fn failures(p: &points::Points) -> (BTreeMap<FailureKind, u64>, bool) {
    let fails = |name: &str| p.checks.get(name).map_or(0, |c| c.1);
    let ours = CHECKS.iter().all(|c| p.checks.contains_key(*c));
    let mut by = BTreeMap::new();
    let mut put = |k, n: u64| {
        if n > 0 {
            by.insert(k, n);
        }
    };
    put(FailureKind::Timeout, p.unanswered);
    if ours {
        let status = fails(CHECKS[0]).max(p.unanswered + p.non_200);
        let errors = fails(CHECKS[1]).max(status);
        let data = fails(CHECKS[2]).max(errors);
        put(FailureKind::HttpStatus, status - p.unanswered);
        put(FailureKind::GraphqlError, errors - status);
        put(FailureKind::WrongData, data - errors);
    } else {
        put(FailureKind::HttpStatus, p.non_200);
        let other = p.checks.values().map(|c| c.1).max().unwrap_or(0);
        put(
            FailureKind::WrongData,
            other.saturating_sub(p.non_200 + p.unanswered),
        );
    }
    (by, ours)
}

pub fn import(o: &Options) -> Result<RunResults> {
    let mut lines = Vec::new();
    let mut summaries = Vec::new();
    for f in &o.files {
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
    let meta = metadata(&o.files)?;
    let m = meta.as_ref().map(|(_, m)| m);
    let mut notes = Vec::new();
    let mut files: Vec<ImportedFile> = Vec::new();
    let mut problems = Vec::new();
    let (load, started) = if lines.is_empty() {
        let (f, s) = summary.as_ref().context("no input")?;
        files.push(ImportedFile {
            path: f.display().to_string(),
            format: s.format.into(),
        });
        notes.push("a summary alone: k6's figures over the whole test, warm-up included, and its own percentiles (no histogram to merge); import the JSON lines (--out json) for the measured window".into());
        if !s.missing.is_empty() {
            notes.push(format!(
                "the summary lacks {} of http_req_duration (k6's summaryTrendStats): shown as -",
                s.missing.join(", ")
            ));
        }
        (from_summary(s), None)
    } else {
        let refs: Vec<&Path> = lines.iter().map(PathBuf::as_path).collect();
        let p = points::read(&refs)?;
        for f in &lines {
            files.push(ImportedFile {
                path: f.display().to_string(),
                format: "k6 JSON lines (--out json)".into(),
            });
        }
        if let Some((f, s)) = &summary {
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
        let (l, ours) = from_points(&p, m);
        if !ours {
            notes.push("the responses were not checked with gqlbench's checks (`gqlbench export k6` writes them): failures counted from HTTP status and any failed k6 check".into());
            problems.push("answers not checked against expected data".to_string());
        }
        (l, p.first.map(|t| t.to_rfc3339()))
    };
    if load.requests + load.unanswered == 0 {
        problems
            .push("no measured request in the k6 output (did its `measured` scenario run?)".into());
    }
    if load.failed > 0 {
        problems.push(format!(
            "{} of {} requests failed their checks",
            load.failed,
            load.requests + load.unanswered
        ));
    }
    let valid = load.failed == 0 && load.requests > 0;
    let trial = TrialResult {
        valid,
        problems,
        ..TrialResult::of_load(1, started.clone().unwrap_or_default(), load)
    };
    let target_name = o
        .target
        .clone()
        .or_else(|| m.map(|m| crate::urls::authority(&m.url).to_string()))
        .unwrap_or_else(|| "k6-target".into());
    // k6 does not know what served its requests: no package, version or runtime.
    let mut target = TargetResult {
        trials: vec![trial],
        ..TargetResult::new(target_name, TargetKind::Server)
    };
    let mut summ = crate::summary::summarize(&target);
    if let Some(s) = &mut summ {
        // k6 measures none of these: "-" in the tables, not 0.
        s.cpu_avg_pct = None;
        s.rss_avg_bytes = None;
        s.rss_peak_bytes = None;
        s.gc = None;
        if target.trials[0].load.latency_hist.is_empty() {
            s.latency = target.trials[0].load.latency.clone();
        }
    }
    target.summary = summ;
    let load_info = LoadInfo {
        model: m.map_or("closed".into(), |m| m.model.clone()),
        connections: m.map_or(0, |m| executor_vus(&m.executor)),
        pipelining: 1,
        think_time_s: 0.0,
        rate: m.and_then(|m| match m.executor {
            Executor::ConstantArrivalRate { rate, .. } => Some(rate),
            Executor::RampingArrivalRate { start_rate, .. } => Some(start_rate),
            _ => None,
        }),
        stages: Vec::new(),
        timeout_s: 0.0,
        unique_request_header: false,
    };
    let suite = o
        .suite
        .clone()
        .or_else(|| m.map(|m| m.suite.clone()))
        .unwrap_or_else(|| "k6".into());
    let name = o
        .scenario
        .clone()
        .or_else(|| m.map(|m| m.scenario.clone()))
        .unwrap_or_else(|| "import".into());
    let duration_s = target.trials[0].load.elapsed_s;
    let scenario = ScenarioResult {
        description: match m {
            Some(m) => format!(
                "k6 run of `gqlbench export k6 {}/{}` against {}",
                m.suite, m.scenario, m.url
            ),
            None => "a k6 run".into(),
        },
        trials_planned: 1,
        warmup_s: m.map_or(0.0, |m| m.warmup_s),
        duration_s,
        targets: vec![target],
        ..ScenarioResult::new(suite, name, load_info)
    };
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
        verdict: None,
    })
}

fn executor_vus(e: &Executor) -> u32 {
    match e {
        Executor::ConstantVus { vus } => *vus,
        Executor::RampingVus { start_vus, .. } => *start_vus,
        Executor::ConstantArrivalRate { max_vus, .. }
        | Executor::RampingArrivalRate { max_vus, .. } => *max_vus,
    }
}

fn from_points(p: &points::Points, m: Option<&ExportMetadata>) -> (LoadResult, bool) {
    let (failures, ours) = failures(p);
    let failed: u64 = failures.values().sum();
    let answered = p.requests - p.unanswered;
    // The measured scenario's length when the export says it; else first to last request.
    let elapsed = m
        .map(|m| m.duration_s)
        .filter(|d| *d > 0.0)
        .unwrap_or_else(|| p.span_s())
        .max(1e-3);
    let data_fails = p.check_fails_by_second.get(CHECKS[2]);
    let series = p
        .seconds
        .iter()
        .map(|(t, s)| {
            let answered = s.requests - s.unanswered;
            let fails = data_fails
                .and_then(|d| d.get(t))
                .copied()
                .unwrap_or(0)
                .max(s.unanswered);
            SecondSample {
                t_s: *t,
                requests: answered,
                ok: s.requests.saturating_sub(fails),
                failures: fails,
                p50_us: s.hist.value_at_quantile(0.5),
                p99_us: s.hist.value_at_quantile(0.99),
            }
        })
        .collect();
    let ok = p.requests.saturating_sub(failed);
    let l = LoadResult {
        model: m.map_or("closed".into(), |m| m.model.clone()),
        requests: answered,
        ok,
        failed,
        unanswered: p.unanswered,
        failures,
        elapsed_s: elapsed,
        throughput_rps: answered as f64 / elapsed,
        ok_rps: ok as f64 / elapsed,
        latency: summarize_hist(&p.hist),
        latency_hist: encode_hist(&p.hist),
        series,
        warmup_requests: p.warmup_requests,
        ..Default::default()
    };
    (l, ours)
}

fn from_summary(s: &summary::Summary) -> LoadResult {
    let fails = |name: &str| s.checks.get(name).map_or(0, |c| c.1);
    let mut failures = BTreeMap::new();
    let status = fails(CHECKS[0]).max(s.http_failed.unwrap_or(0));
    let errors = fails(CHECKS[1]).max(status);
    let data = fails(CHECKS[2])
        .max(errors)
        .max(s.checks.values().map(|c| c.1).max().unwrap_or(0));
    for (k, n) in [
        (FailureKind::HttpStatus, status),
        (FailureKind::GraphqlError, errors - status),
        (FailureKind::WrongData, data - errors),
    ] {
        if n > 0 {
            failures.insert(k, n);
        }
    }
    let elapsed = if s.rate > 0.0 {
        s.requests as f64 / s.rate
    } else {
        0.0
    };
    LoadResult {
        model: "closed".into(),
        requests: s.requests,
        ok: s.requests.saturating_sub(data),
        failed: data,
        failures,
        elapsed_s: elapsed,
        throughput_rps: s.rate,
        ok_rps: if elapsed > 0.0 {
            s.requests.saturating_sub(data) as f64 / elapsed
        } else {
            0.0
        },
        latency: s.latency.clone(),
        ..Default::default()
    }
}
