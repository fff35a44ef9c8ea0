//! `gqlbench load URL -q FILE`: an ad hoc benchmark of one endpoint, like oha or
//! autocannon, but validating every response.
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use gqlbench_engine::{Control, Endpoint, LoadResult, Operation, Stop, Variant};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::catalog::operation::numbered_body;
use crate::cli::LoadArgs;
use crate::error::PlanError;
use crate::plan::load::{Arrival, Load};
use crate::report::ExportManager;
use crate::results::{GeneratorUsage, LoadInfo, SaturationFlag};
use crate::sys::cpus::CpuSet;

/// What `load --json` prints (documented in docs/results.md).
#[derive(Serialize, Deserialize, Debug)]
pub struct LoadReport {
    pub url: String,
    pub load: LoadInfo,
    pub result: LoadResult,
    pub generator: GeneratorUsage,
    /// Completed requests per CPU-second of the generator's worker threads.
    pub requests_per_cpu_second: f64,
    pub saturation: Vec<SaturationFlag>,
    /// Whether responses were compared with an expected answer (--expect).
    pub expected_answer: bool,
}

fn parse_header(h: &str) -> Result<(String, String)> {
    let (k, v) = h.split_once(':').ok_or_else(|| PlanError::Flag {
        flag: "--header",
        message: format!("'{h}' is not \"name: value\""),
    })?;
    Ok((k.trim().to_string(), v.trim().to_string()))
}

/// The requests `load` sends: one per case, each with its variables, its expected data
/// and the variable made unique per request (a case's `unique`), if any.
pub type Cases = Vec<(Option<Value>, Option<Value>, Option<String>)>;

/// Reads `--expect`: a whole response (`{"data": ...}`), the data itself, or the project's
/// own answer files (`scenarios/expected/...`: a list of `{"variables", "data"}` cases).
/// With a list, every case is sent in turn, unless `--variables` picks one of them.
pub fn cases_from_file(path: &std::path::Path, variables: Option<&Value>) -> Result<Cases> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading --expect file {}", path.display()))?;
    let bad = |message: String| PlanError::Flag {
        flag: "--expect",
        message: format!("{}: {message}", path.display()),
    };
    let v: Value = serde_json::from_str(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let data = match v {
        Value::Array(items) => {
            let cases: Vec<crate::catalog::operation::OperationCase> =
                serde_json::from_value(Value::Array(items)).map_err(|e| {
                    bad(format!(
                        "a list, but not of cases {{\"variables\": ..., \"data\": ...}} ({e})"
                    ))
                })?;
            if cases.is_empty() {
                return Err(bad("an empty list of cases".into()).into());
            }
            for (i, c) in cases.iter().enumerate() {
                c.check_unique(i, path)?;
            }
            let null = Value::Null;
            let same = |a: Option<&Value>, b: Option<&Value>| {
                gqlbench_engine::canonical_eq(a.unwrap_or(&null), b.unwrap_or(&null))
            };
            let picked: Cases = cases
                .iter()
                .filter(|c| variables.is_none() || same(c.variables.as_ref(), variables))
                .map(|c| (c.variables.clone(), Some(c.data.clone()), c.unique.clone()))
                .collect();
            if picked.is_empty() {
                return Err(bad(format!(
                    "no case has the --variables given; its cases have variables {}",
                    cases
                        .iter()
                        .map(|c| c.variables.clone().unwrap_or(Value::Null).to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .into());
            }
            return Ok(picked);
        }
        // A whole response ({"data": ...}) or the data itself.
        Value::Object(mut m) if m.contains_key("data") && m.len() <= 2 => {
            m.remove("data").unwrap_or(Value::Null)
        }
        other => other,
    };
    Ok(vec![(variables.cloned(), Some(data), None)])
}

/// `ws://` and `wss://` name a subscription endpoint; `load` sends queries over HTTP POST,
/// which such an endpoint may accept on another path or not at all. Any other scheme, or
/// none, is refused here too: the engine's own message offers `ws://`, which `load` takes
/// no more than `ftp://`.
fn check_scheme(url: &str) -> Result<(), PlanError> {
    let lower = url.to_ascii_lowercase();
    let message = if lower.starts_with("ws://") || lower.starts_with("wss://") {
        format!(
            "{url} is a WebSocket URL; `load` sends queries as HTTP POSTs: give the http:// URL of the endpoint (subscriptions are measured by the suites' subscription scenarios)"
        )
    } else if !lower.starts_with("http://") && !lower.starts_with("https://") {
        format!("{url}: give an http:// URL, e.g. http://127.0.0.1:4000/graphql")
    } else {
        return Ok(());
    };
    Err(PlanError::Flag {
        flag: "URL",
        message,
    })
}

/// The URL as the engine's endpoint: http(s) only, and loopback unless --allow-remote.
fn endpoint(a: &LoadArgs) -> Result<Endpoint> {
    check_scheme(&a.url)?;
    let endpoint = Endpoint::from_url(&a.url).map_err(|e| PlanError::Flag {
        flag: "URL",
        message: e.to_string(),
    })?;
    if !endpoint.addr.ip().is_loopback() && !a.allow_remote {
        return Err(PlanError::Flag {
            flag: "URL",
            message: format!(
                "{} resolves to {}, which is not loopback (127.0.0.0/8, ::1); pass --allow-remote to load a remote host on purpose",
                a.url,
                endpoint.addr.ip()
            ),
        }
        .into());
    }
    Ok(endpoint)
}

/// The flags' values that cannot work, refused before anything is sent; `window` is the
/// stop's bound on the measured window.
fn check_flags(a: &LoadArgs, duration: Duration, window: Option<Duration>) -> Result<()> {
    for (bad, flag, message) in [
        (
            duration.is_zero(),
            "--duration",
            "must be above zero, e.g. 10s",
        ),
        (a.requests == Some(0), "--requests", "must be at least 1"),
        (a.connections == 0, "--connections", "must be at least 1"),
        (
            a.pipelining == 0,
            "--pipelining",
            "must be at least 1 (1 = no pipelining)",
        ),
        (
            a.rate.map(|r| !(r.is_finite() && r > 0.0)).unwrap_or(false),
            "--rate",
            "must be a positive number of requests per second",
        ),
        (a.threads == Some(0), "--threads", "must be at least 1"),
        (
            duration > gqlbench_engine::MAX_SPAN,
            "--duration",
            "is longer than 30 days; write e.g. 10s, 5m, 2h",
        ),
        (
            a.warmup > gqlbench_engine::MAX_SPAN,
            "--warmup",
            "is longer than 30 days; write e.g. 5s",
        ),
        (
            a.think_time > gqlbench_engine::MAX_SPAN,
            "--think-time",
            "is longer than 30 days; write e.g. 100ms",
        ),
        (
            a.timeout.is_zero() || a.timeout > gqlbench_engine::MAX_SPAN,
            "--timeout",
            "must be above zero and at most 30 days, e.g. 10s",
        ),
        (
            a.pipelining > gqlbench_engine::MAX_PIPELINING,
            "--pipelining",
            "must be at most 100000",
        ),
    ] {
        if bad {
            return Err(PlanError::Flag {
                flag,
                message: message.into(),
            }
            .into());
        }
    }
    // The open model sends its requests at (k + 1/2) / rate: with less than one request
    // due in the window nothing at all is sent, and a run that sends nothing measures
    // nothing. Refused, naming what would make it send.
    if let (Some(rate), Some(window)) = (a.rate, window) {
        let due = rate * window.as_secs_f64();
        if due < 1.0 {
            return Err(PlanError::Flag {
                flag: "--rate",
                message: format!(
                    "{rate} req/s over a {} window is {due:.2} requests: fewer than one, so nothing would be sent; raise --rate or -d/--duration (at {rate} req/s the window needs at least {:.3} s)",
                    humantime::format_duration(window),
                    1.0 / rate
                ),
            }
            .into());
        }
    }
    Ok(())
}

/// The one operation `load` sends: the query file's document with each case's variables
/// (numbered when a case asks for unique values) and its expected data.
fn operation(a: &LoadArgs, document: &str, cases: &Cases) -> Operation {
    let op = Operation {
        name: a
            .query
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("query")
            .to_string(),
        weight: 1,
        variants: cases
            .iter()
            .map(|(vars, data, unique)| {
                let (body, unique) = numbered_body(document, vars.as_ref(), unique.as_deref());
                Variant {
                    body: body.into(),
                    expected_data: data.clone(),
                    unique,
                    batch: None,
                    incremental: None,
                    persisted: None,
                }
            })
            .collect(),
    };
    op
}

/// The operation's cases: `--expect`'s file, or one case of `--variables` (a JSON object)
/// with no expected answer.
fn cases(a: &LoadArgs) -> Result<Cases> {
    let variables: Option<Value> = a
        .variables
        .as_deref()
        .map(|s| {
            serde_json::from_str::<Value>(s).map_err(|e| PlanError::Flag {
                flag: "--variables",
                message: format!("not JSON ({e}); write e.g. '{{\"id\": \"1\"}}'"),
            })
        })
        .transpose()?;
    if let Some(v) = &variables {
        if !v.is_object() {
            return Err(PlanError::Flag {
                flag: "--variables",
                message: "must be a JSON object, e.g. '{\"id\": \"1\"}'".into(),
            }
            .into());
        }
    }
    Ok(match &a.expect {
        Some(path) => cases_from_file(path, variables.as_ref())?,
        None => vec![(variables.clone(), None, None)],
    })
}

/// The load the flags describe: closed (connections, pipelining, think time) or, with
/// --rate, open.
fn load_of(a: &LoadArgs, headers: Vec<(String, String)>) -> Load {
    Load {
        arrival: match a.rate {
            Some(rate) => Arrival::Open {
                rate,
                max_connections: a.connections,
            },
            None => Arrival::Closed {
                connections: a.connections,
                pipelining: a.pipelining,
                think_time: a.think_time,
            },
        },
        stages: Vec::new(),
        timeout: a.timeout,
        unique_request_header: false,
        headers,
    }
}

/// What the load is, said before it starts.
fn opening_line(a: &LoadArgs, load: &Load, duration: Duration) -> String {
    format!(
        "gqlbench load {}: {} model, {} connections{}, {} measured{}",
        a.url,
        if load.is_open() { "open" } else { "closed" },
        a.connections,
        a.rate.map(|r| format!(", {r} req/s")).unwrap_or_default(),
        humantime::format_duration(duration),
        if a.warmup.is_zero() {
            String::new()
        } else {
            format!(" after {} warm-up", humantime::format_duration(a.warmup))
        }
    )
}

/// The load's report: its result with the generator's own CPU and saturation flags.
fn report(
    a: &LoadArgs,
    load: &Load,
    cases: &Cases,
    cpus: Option<&CpuSet>,
    result: gqlbench_engine::LoadResult,
) -> LoadReport {
    let cores = crate::sys::cpus::generator_cores(cpus, result.threads);
    let generator = GeneratorUsage::measure(result.generator_cpu_s, result.elapsed_s, cores);
    let saturation = crate::saturation::check(load, &result, &generator);
    LoadReport {
        url: a.url.clone(),
        requests_per_cpu_second: if result.generator_cpu_s > 0.0 {
            result.requests as f64 / result.generator_cpu_s
        } else {
            0.0
        },
        load: load.info(),
        generator,
        saturation,
        expected_answer: cases.iter().any(|(_, d, _)| d.is_some()),
        result,
    }
}

pub fn run(a: &LoadArgs) -> Result<ExitCode> {
    let endpoint = endpoint(a)?;
    let document = std::fs::read_to_string(&a.query)
        .with_context(|| format!("reading the query file {} (-q)", a.query.display()))?;
    crate::catalog::operation::check_document(&document, &a.query)?;
    let cases = cases(a)?;
    let headers = a
        .headers
        .iter()
        .map(|h| parse_header(h))
        .collect::<Result<Vec<_>>>()?;
    let cpus = a
        .generator_cpus
        .as_deref()
        .map(CpuSet::parse)
        .transpose()
        .map_err(|e| PlanError::Flag {
            flag: "--generator-cpus",
            message: e.to_string(),
        })?;
    // Held to the end of the load: a run started meanwhile is refused as by another run.
    let (_cpu_locks, shared) = crate::sys::lock::lock_for_load(cpus.as_ref())?;
    if let Some(w) = shared {
        eprintln!("gqlbench load: {w}");
    }
    let load = load_of(a, headers);
    let op = operation(a, &document, &cases);
    let duration = a.duration.unwrap_or(Duration::from_secs(10));
    let stop = Stop {
        duration: match (a.duration, a.requests) {
            // -n alone: the count decides; the bound only keeps the run finite.
            (None, Some(_)) => Some(Duration::from_secs(3600)),
            _ => Some(duration),
        },
        max_requests: a.requests,
        extend: None,
    };
    check_flags(a, duration, stop.duration)?;
    let mut plan = load.engine_plan(endpoint, vec![op], cpus.as_ref(), a.warmup, stop);
    if let Some(t) = a.threads {
        plan.threads = t.max(1);
    }
    let (nofile, note) = crate::sys::cpus::raise_nofile();
    if let Some(n) = note {
        if crate::sys::cpus::nofile_matters(nofile, a.connections.into()) {
            eprintln!("note: {n}");
        }
    }
    // What the flag checks above cannot know (this machine's files and ports, more threads
    // than the open model's pool): refused before the first request.
    plan.preflight().map_err(|e| PlanError::Flag {
        flag: "-c/--threads/--rate",
        message: e.to_string(),
    })?;
    let control = Control {
        cancel: super::cancel_flag(),
        live: Default::default(),
    };
    eprintln!("{}", opening_line(a, &load, duration));
    let mut progress = crate::progress::Progress::new((a.warmup + duration).as_secs_f64(), false);
    let result = progress.follow(
        "load",
        (a.warmup + duration).as_secs_f64(),
        &control.live,
        || gqlbench_engine::run(&plan, &control),
    );
    progress.finish();
    // What the checks above cannot know (e.g. more threads than the open model's pool).
    let result =
        result.map_err(|e| anyhow::anyhow!("{e} (check -c, --threads, --rate, -d, -n)"))?;
    let report = report(a, &load, &cases, cpus.as_ref(), result);
    ExportManager::console(a.json).write(&report)?;
    Ok(if report.result.interrupted {
        ExitCode::from(130)
    } else if report.result.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

mod render;
