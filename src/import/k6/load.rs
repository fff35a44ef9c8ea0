//! The measured load of a k6 run in gqlbench's result model: requests, failures by kind
//! (from the export's checks), the window and its rate, latency and the per-second
//! series, from the JSON lines or from a summary alone.
use std::collections::BTreeMap;

use gqlbench_engine::{encode_hist, summarize_hist, FailureKind, LoadResult, SecondSample};

use super::{points, summary};
use crate::export::plan::ExportMetadata;
use crate::export::CHECKS;

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

/// A window shorter than this gives no rate worth the name (one request over a
/// millisecond reads as 1,000 req/s): the import refuses it.
pub const MIN_WINDOW_S: f64 = 1.0;

/// The measured window, seconds: the export's measured duration when its metadata is
/// there, else the first to the last measured request of the files.
pub fn window_s(p: &points::Points, m: Option<&ExportMetadata>) -> f64 {
    m.map(|m| m.duration_s)
        .filter(|d| *d > 0.0)
        .unwrap_or_else(|| p.span_s())
}

pub fn from_points(p: &points::Points, m: Option<&ExportMetadata>) -> (LoadResult, bool) {
    let (failures, ours) = failures(p);
    let failed: u64 = failures.values().sum();
    let answered = p.requests - p.unanswered;
    // The measured scenario's length when the export says it; else first to last request.
    let elapsed = window_s(p, m);
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
        model: m.map_or("closed".into(), |m| m.model.as_str().into()),
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

pub fn from_summary(s: &summary::Summary) -> LoadResult {
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
    // k6's rate is its count over the whole test's duration (summary::read refuses a
    // missing or negative rate, and 0 with requests counted).
    let elapsed = if s.rate > 0.0 {
        s.requests as f64 / s.rate
    } else {
        0.0
    };
    let per_s = |n: u64| {
        if elapsed > 0.0 {
            n as f64 / elapsed
        } else {
            0.0
        }
    };
    LoadResult {
        model: "closed".into(),
        requests: s.requests,
        ok: s.requests.saturating_sub(data),
        failed: data,
        failures,
        elapsed_s: elapsed,
        throughput_rps: s.rate,
        ok_rps: per_s(s.requests.saturating_sub(data)),
        latency: s.latency.clone(),
        ..Default::default()
    }
}
