//! k6's JSON lines output (`k6 run --out json=FILE`, gzipped or not): one `Metric`
//! declaration or `Point` sample per line. Read as a stream (a run writes ~15 lines per
//! request). Samples of the warm-up scenario are left out; every request's latency goes
//! into one HDR histogram (as gqlbench's engine records it), and per second of the measured
//! window into another. Per file: the k6-operator pods whose samples it holds (their
//! `instance_id` tag) and its first and last measured request, for the check that the
//! files are one run's every pod.
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::Result;
use chrono::{DateTime, FixedOffset};
use hdrhistogram::Histogram;
use serde::Deserialize;

use crate::error::ResultsError;
use crate::export::WARMUP_SCENARIO;

#[derive(Deserialize)]
struct Line {
    #[serde(rename = "type")]
    kind: String,
    metric: String,
    #[serde(default)]
    data: Data,
}

#[derive(Deserialize, Default)]
struct Data {
    time: Option<String>,
    value: Option<f64>,
    #[serde(default)]
    tags: Option<BTreeMap<String, String>>,
}

/// One measured second: requests, failed checks, and its latency.
pub struct Second {
    pub requests: u64,
    /// Responses that got no status (k6's status 0: no response).
    pub unanswered: u64,
    pub hist: Histogram<u64>,
}

/// What one file holds, for the check that the files are one run's every pod.
pub struct FileInfo {
    pub path: PathBuf,
    /// Values of the `instance_id` tag (the k6-operator's runner index, 1 to N); none
    /// for k6 run outside the operator.
    pub instances: BTreeSet<String>,
    /// First and last measured request of this file.
    pub first: Option<DateTime<FixedOffset>>,
    pub last: Option<DateTime<FixedOffset>>,
}

/// What the JSON lines of one or more files hold.
pub struct Points {
    /// Requests of the measured scenario(s), answered or not.
    pub requests: u64,
    /// Requests k6 recorded with status 0 (connect error, timeout, reset).
    pub unanswered: u64,
    /// Requests with another status than 200 (status 0 excluded).
    pub non_200: u64,
    /// Every request of the files, warm-up included (to match a summary of the same run).
    pub all_requests: u64,
    pub warmup_requests: u64,
    /// Latency of the measured requests, µs.
    pub hist: Histogram<u64>,
    /// Check name -> (passes, fails), measured scenario only.
    pub checks: BTreeMap<String, (u64, u64)>,
    /// Per check name, the fails in each second of the window.
    pub check_fails_by_second: BTreeMap<String, BTreeMap<u64, u64>>,
    pub seconds: BTreeMap<u64, Second>,
    /// Time of the first and the last measured request.
    pub first: Option<DateTime<FixedOffset>>,
    pub last: Option<DateTime<FixedOffset>>,
    /// Values of the `case` tag seen, with their request counts.
    pub cases: BTreeMap<String, u64>,
    pub scenarios: BTreeMap<String, u64>,
    /// Iterations k6 dropped in the measured scenario: an arrival-rate executor had no free
    /// VU when one was due (k6's `dropped_iterations`), so k6 sent less than the schedule.
    pub dropped_iterations: u64,
    pub files: Vec<FileInfo>,
}

impl Points {
    fn new() -> Points {
        Points {
            requests: 0,
            unanswered: 0,
            non_200: 0,
            all_requests: 0,
            warmup_requests: 0,
            hist: gqlbench_engine::new_latency(),
            checks: BTreeMap::new(),
            check_fails_by_second: BTreeMap::new(),
            seconds: BTreeMap::new(),
            first: None,
            last: None,
            cases: BTreeMap::new(),
            scenarios: BTreeMap::new(),
            dropped_iterations: 0,
            files: Vec::new(),
        }
    }

    /// Elapsed time of the measured requests, first to last, seconds.
    pub fn span_s(&self) -> f64 {
        match (self.first, self.last) {
            (Some(a), Some(b)) => (b - a).num_microseconds().unwrap_or(0) as f64 / 1e6,
            _ => 0.0,
        }
    }
}

/// Whether the first non-empty line of the text looks like k6's JSON lines.
pub fn sniff(first_line: &str) -> bool {
    serde_json::from_str::<Line>(first_line)
        .is_ok_and(|l| (l.kind == "Metric" || l.kind == "Point") && !l.metric.is_empty())
}

/// A sample's time, in microseconds since the epoch.
fn micros(t: &DateTime<FixedOffset>) -> i64 {
    t.timestamp_micros()
}

/// Reads every file (each a k6 JSON lines output; several pods of one run are merged).
pub fn read(files: &[&Path]) -> Result<Points> {
    // Samples are bucketed by second from the first measured request of all files, which
    // needs that time first: one pass to find it, one to read.
    let mut start: Option<DateTime<FixedOffset>> = None;
    for f in files {
        each(f, |line, lineno| {
            if line.kind == "Point" && line.metric == "http_req_duration" {
                let t = time(f, lineno, &line)?;
                if !is_warmup(&line) && start.is_none_or(|s| t < s) {
                    start = Some(t);
                }
            }
            Ok(())
        })?;
    }
    let mut p = Points::new();
    let t0 = start.map(|s| micros(&s)).unwrap_or(0);
    let second = |t: &DateTime<FixedOffset>| ((micros(t) - t0).max(0) / 1_000_000) as u64;
    for f in files {
        let mut info = FileInfo {
            path: f.to_path_buf(),
            instances: BTreeSet::new(),
            first: None,
            last: None,
        };
        each(f, |line, lineno| {
            if line.kind != "Point" {
                return Ok(());
            }
            let warm = is_warmup(&line);
            let tags = line.data.tags.as_ref();
            if let Some(i) = tags.and_then(|t| t.get("instance_id")) {
                if !info.instances.contains(i) {
                    info.instances.insert(i.clone());
                }
            }
            match line.metric.as_str() {
                "http_reqs" => {
                    p.all_requests += 1;
                    if warm {
                        p.warmup_requests += 1;
                        return Ok(());
                    }
                    let t = time(f, lineno, &line)?;
                    let status = tags.and_then(|t| t.get("status")).map(String::as_str);
                    p.requests += 1;
                    match status {
                        Some("0") | None => p.unanswered += 1,
                        Some("200") => {}
                        Some(_) => p.non_200 += 1,
                    }
                    if let Some(c) = tags.and_then(|t| t.get("case")) {
                        *p.cases.entry(c.clone()).or_default() += 1;
                    }
                    if let Some(s) = tags.and_then(|t| t.get("scenario")) {
                        *p.scenarios.entry(s.clone()).or_default() += 1;
                    }
                    let s = p.seconds.entry(second(&t)).or_insert_with(|| Second {
                        requests: 0,
                        unanswered: 0,
                        hist: gqlbench_engine::new_latency(),
                    });
                    s.requests += 1;
                    if matches!(status, Some("0") | None) {
                        s.unanswered += 1;
                    }
                    p.first = Some(p.first.map_or(t, |x| x.min(t)));
                    p.last = Some(p.last.map_or(t, |x| x.max(t)));
                    info.first = Some(info.first.map_or(t, |x| x.min(t)));
                    info.last = Some(info.last.map_or(t, |x| x.max(t)));
                }
                "http_req_duration" if !warm => {
                    let t = time(f, lineno, &line)?;
                    let ms = value(f, lineno, &line)?;
                    // A request without a response adds no latency sample (as in gqlbench).
                    if tags.and_then(|t| t.get("status")).is_some_and(|s| s == "0") {
                        return Ok(());
                    }
                    let us = ((ms * 1000.0).round() as u64).max(1);
                    let _ = p.hist.record(us);
                    if let Some(s) = p.seconds.get_mut(&second(&t)) {
                        let _ = s.hist.record(us);
                    } else {
                        let mut h = gqlbench_engine::new_latency();
                        let _ = h.record(us);
                        p.seconds.insert(
                            second(&t),
                            Second {
                                requests: 0,
                                unanswered: 0,
                                hist: h,
                            },
                        );
                    }
                }
                "checks" if !warm => {
                    let name = tags
                        .and_then(|t| t.get("check"))
                        .cloned()
                        .unwrap_or_default();
                    let ok = value(f, lineno, &line)? > 0.0;
                    let e = p.checks.entry(name.clone()).or_default();
                    if ok {
                        e.0 += 1;
                    } else {
                        e.1 += 1;
                        let t = time(f, lineno, &line)?;
                        *p.check_fails_by_second
                            .entry(name)
                            .or_default()
                            .entry(second(&t))
                            .or_default() += 1;
                    }
                }
                "dropped_iterations" if !warm => {
                    p.dropped_iterations += value(f, lineno, &line)?.max(0.0) as u64;
                }
                _ => {}
            }
            Ok(())
        })?;
        p.files.push(info);
    }
    Ok(p)
}

fn is_warmup(line: &Line) -> bool {
    line.data
        .tags
        .as_ref()
        .and_then(|t| t.get("scenario"))
        .is_some_and(|s| s == WARMUP_SCENARIO)
}

fn bad(file: &Path, lineno: usize, message: String) -> anyhow::Error {
    ResultsError::Import {
        file: file.to_path_buf(),
        message: format!("line {lineno}: {message}"),
    }
    .into()
}

fn time(file: &Path, lineno: usize, line: &Line) -> Result<DateTime<FixedOffset>> {
    let t = line.data.time.as_deref().ok_or_else(|| {
        bad(
            file,
            lineno,
            format!("a `{}` Point has no data.time", line.metric),
        )
    })?;
    DateTime::parse_from_rfc3339(t).map_err(|e| {
        bad(
            file,
            lineno,
            format!("data.time '{t}' is not an RFC 3339 time ({e})"),
        )
    })
}

fn value(file: &Path, lineno: usize, line: &Line) -> Result<f64> {
    line.data.value.filter(|v| v.is_finite()).ok_or_else(|| {
        bad(
            file,
            lineno,
            format!("a `{}` Point has no numeric data.value", line.metric),
        )
    })
}

/// Calls `f` with every line of the file; a line that is not one of k6's is bad input
/// naming the file and the line.
fn each(file: &Path, mut f: impl FnMut(Line, usize) -> Result<()>) -> Result<()> {
    let r = super::input::open(file)?;
    for (i, text) in r.lines().enumerate() {
        let text = text.map_err(|e| super::input::read_error(file, e))?;
        if text.trim().is_empty() {
            continue;
        }
        let line: Line = serde_json::from_str(&text).map_err(|e| {
            bad(
                file,
                i + 1,
                format!(
                    "not one of k6's JSON lines ({e}); expected {{\"type\": \"Metric\" or \"Point\", \"metric\": ..., \"data\": ...}} (k6 run --out json=FILE)"
                ),
            )
        })?;
        f(line, i + 1)?;
    }
    Ok(())
}
