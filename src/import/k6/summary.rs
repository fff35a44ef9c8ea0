//! k6's end-of-test summary as JSON: the file of `k6 run --summary-export FILE` (metrics
//! with their figures at the top level, checks as an object) or the `data` of
//! `handleSummary` written with JSON.stringify (figures under `values`, checks as an array).
//! A summary covers the whole test, warm-up included, and holds percentiles, not a
//! histogram.
use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Result;
use gqlbench_engine::LatencySummary;
use serde_json::Value;

use crate::error::ResultsError;

pub struct Summary {
    /// `http_reqs` count and rate over the whole test.
    pub requests: u64,
    pub rate: f64,
    /// Requests k6 counted as failed (`http_req_failed`: status 0 or >= 400 by default).
    pub http_failed: Option<u64>,
    /// `http_req_duration` as k6 summarized it, µs (count = requests); the figures it
    /// lacked are listed as unmeasured.
    pub latency: LatencySummary,
    /// Statistics the summary lacked (its summaryTrendStats), by k6's name.
    pub missing: Vec<&'static str>,
    /// `dropped_iterations` over the whole test.
    pub dropped_iterations: u64,
    /// Check name -> (passes, fails).
    pub checks: BTreeMap<String, (u64, u64)>,
    /// "k6 summary (--summary-export)" or "k6 handleSummary data".
    pub format: &'static str,
}

/// Whether the JSON document looks like a k6 summary (an object with a `metrics` object).
pub fn sniff(v: &Value) -> bool {
    v.get("metrics").is_some_and(Value::is_object)
}

pub fn read(file: &Path, v: &Value) -> Result<Summary> {
    let bad = |message: String| -> anyhow::Error {
        ResultsError::Import {
            file: file.to_path_buf(),
            message,
        }
        .into()
    };
    let metrics = v
        .get("metrics")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("no `metrics` object: not a k6 summary".into()))?;
    // handleSummary's data nests each metric's figures under `values`.
    let nested = metrics.values().any(|m| m.get("values").is_some());
    let figures = |name: &str| -> Option<&Value> {
        let m = metrics.get(name)?;
        if nested {
            m.get("values")
        } else {
            Some(m)
        }
    };
    let reqs = figures("http_reqs").ok_or_else(|| {
        bad("field `metrics.http_reqs` is missing: the test made no HTTP request, or this is not k6's summary of an HTTP test".into())
    })?;
    let count_field = if nested {
        "metrics.http_reqs.values.count"
    } else {
        "metrics.http_reqs.count"
    };
    let requests = match reqs.get("count").and_then(Value::as_f64) {
        None => {
            return Err(bad(format!(
                "field `{count_field}` is missing or not a number"
            )))
        }
        // A negative or fractional count is no count of requests: the file is damaged.
        Some(c) if !(c.is_finite() && c >= 0.0 && c.fract() == 0.0) => {
            return Err(bad(format!(
                "field `{count_field}` is {c}, not a count of requests (a whole number, at least 0); export the summary again"
            )))
        }
        Some(c) => c as u64,
    };
    // The rate is the throughput: a summary without it has none to give (not 0 req/s).
    let field = if nested {
        "metrics.http_reqs.values.rate"
    } else {
        "metrics.http_reqs.rate"
    };
    let rate = match reqs.get("rate") {
        None => return Err(bad(format!("field `{field}` is missing: k6 writes it in every summary; export the summary again (k6 run --summary-export=FILE), or import the JSON lines (--out json)"))),
        Some(r) => r.as_f64().filter(|r| r.is_finite() && *r >= 0.0).ok_or_else(|| {
            bad(format!("field `{field}` is {r}, not a rate (requests per second, at least 0)"))
        })?,
    };
    if rate == 0.0 && requests > 0 {
        return Err(bad(format!(
            "field `{field}` is 0 while {requests} requests are counted: the file is damaged; export the summary again"
        )));
    }
    let dur = figures("http_req_duration")
        .ok_or_else(|| bad("field `metrics.http_req_duration` is missing".into()))?;
    let mut missing = Vec::new();
    let mut unmeasured = Vec::new();
    // k6's statistic, ms, or None (listed as missing, and its field as unmeasured).
    let mut ms = |key: &'static str, field: &str| -> Option<f64> {
        let v = dur.get(key).and_then(Value::as_f64);
        if v.is_none() {
            missing.push(key);
            unmeasured.push(field.to_string());
        }
        v
    };
    let us = |x: Option<f64>| x.map_or(0, |x| (x * 1000.0).round().max(0.0) as u64);
    let mean = ms("avg", "mean_us");
    let mut latency = LatencySummary {
        count: requests,
        mean_us: mean.unwrap_or(0.0) * 1000.0,
        min_us: us(ms("min", "min_us")),
        p50_us: us(ms("med", "p50_us")),
        p90_us: us(ms("p(90)", "p90_us")),
        p95_us: us(ms("p(95)", "p95_us")),
        p99_us: us(ms("p(99)", "p99_us")),
        p999_us: us(ms("p(99.9)", "p999_us")),
        max_us: us(ms("max", "max_us")),
        ..Default::default()
    };
    // k6's summary has no standard deviation.
    unmeasured.push("stdev_us".into());
    latency.unmeasured = unmeasured;
    let dropped_iterations = figures("dropped_iterations")
        .and_then(|d| d.get("count"))
        .and_then(Value::as_f64)
        .map_or(0, |n| n.max(0.0) as u64);
    // `http_req_failed` is a rate metric: its passes are the failed requests.
    let http_failed = figures("http_req_failed")
        .and_then(|f| f.get("passes"))
        .and_then(Value::as_u64);
    let mut checks = BTreeMap::new();
    match v.get("root_group").and_then(|g| g.get("checks")) {
        Some(Value::Object(m)) => {
            for (name, c) in m {
                checks.insert(name.clone(), counts(c));
            }
        }
        Some(Value::Array(a)) => {
            for c in a {
                let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
                checks.insert(name.to_string(), counts(c));
            }
        }
        _ => {}
    }
    Ok(Summary {
        requests,
        rate,
        http_failed,
        latency,
        missing,
        dropped_iterations,
        checks,
        format: if nested {
            "k6 handleSummary data"
        } else {
            "k6 summary (--summary-export)"
        },
    })
}

fn counts(c: &Value) -> (u64, u64) {
    let n = |k: &str| c.get(k).and_then(Value::as_u64).unwrap_or(0);
    (n("passes"), n("fails"))
}
