//! Readiness and correctness: a target is ready when it answers `{ __typename }` with
//! data; before any load every case of every operation is checked once.
use std::time::{Duration, Instant};

use bytes::Bytes;
use gqlbench_engine::{check_with_headers, Endpoint, Variant, Verdict};

use crate::catalog::OperationDef;
use crate::results::CheckOutcome;
use crate::sys::process::TargetProcess;

pub enum Readiness {
    Ready {
        after: Duration,
    },
    Exited {
        status: String,
    },
    /// Not ready in time: the last probe's problem, how long that probe waited, and
    /// whether it went unanswered (its own timeout, not a refusal or a wrong answer).
    TimedOut {
        last_problem: String,
        probe_timeout: Duration,
        unanswered: bool,
    },
    Interrupted,
}

/// How long the first readiness probe waits for its answer. A probe that goes unanswered
/// waits twice as long the next time, up to what is left of the target's
/// `start.ready_timeout`: a target that answers slowly is found ready when that timeout is
/// raised, instead of every probe giving up after the same second.
pub const FIRST_PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// The correctness check's timeout per request (every case of every operation, once).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// The timeout of the next readiness probe: the last one's doubled when it went unanswered,
/// never more than what is left (nor less than a poll's worth, so a probe is still made).
pub fn next_probe_timeout(last: Duration, unanswered: bool, left: Duration) -> Duration {
    let want = if unanswered { last * 2 } else { last };
    want.min(left).max(Duration::from_millis(100))
}

pub fn typename_variant() -> Variant {
    Variant {
        body: Bytes::from_static(br#"{"query":"{ __typename }"}"#),
        expected_data: None,
        unique: None,
        batch: None,
        incremental: None,
        persisted: None,
    }
}

/// The problem a verdict reports, or None when the response was right.
pub fn problem(v: &Verdict) -> Option<String> {
    v.failure
        .map(|kind| format!("{}: {}", crate::results::kind_name(kind), v.detail))
}

/// Waits until a helper process (a coprocessor, the trace collector) answers `GET path`
/// with 200: Err says why not (it exited, it timed out, the run was interrupted), with the
/// end of its log, and the process is stopped.
pub fn wait_http_ok(
    what: &str,
    process: &mut TargetProcess,
    port: u16,
    path: &str,
    timeout: Duration,
    cancelled: &dyn Fn() -> bool,
) -> anyhow::Result<()> {
    wait_http(what, process, port, path, 200, timeout, cancelled)
}

/// As [`wait_http_ok`], for a helper whose readiness is another status (an OTLP receiver
/// answers a GET of its export path with 405: it listens, but takes only POST).
pub fn wait_http(
    what: &str,
    process: &mut TargetProcess,
    port: u16,
    path: &str,
    status: u16,
    timeout: Duration,
    cancelled: &dyn Fn() -> bool,
) -> anyhow::Result<()> {
    let start = Instant::now();
    loop {
        let why = if cancelled() {
            "interrupted".to_string()
        } else if let Some(st) = process.exited() {
            format!("{what} exited during start-up ({st})")
        } else {
            let answer = super::loopback::get(port, path).and_then(|(s, _)| match s == status {
                true => Ok(()),
                false => Err(anyhow::anyhow!("HTTP {s}, waiting for {status}")),
            });
            match answer {
                Ok(_) => return Ok(()),
                Err(e) if start.elapsed() >= timeout => format!(
                    "{what} not ready after {} (GET {path}: {e:#})",
                    humantime::format_duration(timeout)
                ),
                Err(_) => {
                    std::thread::sleep(READY_POLL);
                    continue;
                }
            }
        };
        process.stop(Duration::from_secs(1));
        anyhow::bail!("{why}:\n{}", super::install::indent(&process.log_tail(15)));
    }
}

/// Why a target was not ready in time, with the cause the probes measured: a listening
/// target that answered none of them within their timeout is slow to answer (raising
/// `start.ready_timeout` lets the probes wait longer), not one that did not come up.
pub fn not_ready_problem(
    ready_timeout: Duration,
    last_problem: &str,
    probe_timeout: Duration,
    unanswered: bool,
) -> String {
    let within = humantime::format_duration(ready_timeout);
    if unanswered {
        format!(
            "not ready after {within}: the readiness query {{ __typename }} got no answer within the probe's own timeout ({} for the last probe; each unanswered probe waits twice as long, up to what is left of start.ready_timeout): the target is listening but answers slower than that; raise start.ready_timeout in its target.toml above the time it takes to answer",
            // Whole milliseconds: the last probe's timeout is what was left, to the ns.
            humantime::format_duration(Duration::from_millis(probe_timeout.as_millis() as u64))
        )
    } else {
        format!(
            "not ready after {within} (last answer: {last_problem}); raise start.ready_timeout in its target.toml if it is just slow to start"
        )
    }
}

/// Poll interval of readiness checks; cold-start measurements poll faster.
pub const READY_POLL: Duration = Duration::from_millis(50);

pub fn wait_ready(
    proc_: &mut TargetProcess,
    endpoint: &Endpoint,
    headers: &[(String, String)],
    timeout: Duration,
    poll: Duration,
    cancelled: &dyn Fn() -> bool,
) -> Readiness {
    let start = Instant::now();
    let probe = typename_variant();
    let mut probe_timeout = FIRST_PROBE_TIMEOUT.min(timeout.max(Duration::from_millis(100)));
    loop {
        if cancelled() {
            return Readiness::Interrupted;
        }
        if let Some(st) = proc_.exited() {
            return Readiness::Exited {
                status: st.to_string(),
            };
        }
        let v = check_with_headers(endpoint, &probe, headers, probe_timeout);
        let Some(last) = problem(&v) else {
            return Readiness::Ready {
                after: start.elapsed(),
            };
        };
        let unanswered = v.failure == Some(gqlbench_engine::FailureKind::Timeout);
        let left = timeout.saturating_sub(start.elapsed());
        if left.is_zero() {
            return Readiness::TimedOut {
                last_problem: last,
                probe_timeout,
                unanswered,
            };
        }
        probe_timeout = next_probe_timeout(probe_timeout, unanswered, left);
        if !unanswered {
            std::thread::sleep(poll);
        }
    }
}

/// " (variables {...})" of case `i` when the `n` requests checked are the operation's
/// cases (not batches or copies), so a wrong answer says which variables it was for.
fn case_variables(op: &OperationDef, i: usize, n: usize) -> String {
    let Some(v) = op.cases.get(i).and_then(|c| c.variables.as_ref()) else {
        return String::new();
    };
    if n != op.cases.len() {
        return String::new();
    }
    let mut text = v.to_string();
    if text.len() > 200 {
        let cut = (0..=200)
            .rev()
            .find(|&k| text.is_char_boundary(k))
            .unwrap_or(0);
        text.truncate(cut);
        text.push('…');
    }
    format!(" (variables {text})")
}

/// Repeats of an operation's first case after its first request, for the warm figure.
const WARM_REPEATS: usize = 5;

/// Check every case of every operation once, timing each operation's first request
/// against repeats of it (see [`CheckOutcome::first_s`]).
pub fn check_operations(
    endpoint: &Endpoint,
    ops: &[(OperationDef, u32)],
    headers: &[(String, String)],
    timeout: Duration,
) -> Vec<CheckOutcome> {
    ops.iter()
        .map(|(op, _)| {
            let engine_op = op.to_engine(1);
            let mut first_s = None;
            let detail = engine_op.variants.iter().enumerate().find_map(|(i, v)| {
                let verdict = check_with_headers(endpoint, v, headers, timeout);
                if i == 0 {
                    first_s = Some(verdict.latency.as_secs_f64());
                }
                problem(&verdict).map(|p| {
                    if engine_op.variants.len() > 1 {
                        let n = engine_op.variants.len();
                        format!("case {} of {n}: {p}{}", i + 1, case_variables(op, i, n))
                    } else {
                        p
                    }
                })
            });
            let warm_s = match (&detail, engine_op.variants.first()) {
                (None, Some(v)) => warm_latency(endpoint, v, headers, timeout),
                _ => None,
            };
            CheckOutcome {
                operation: op.name.clone(),
                cases: op.cases.len(),
                ok: detail.is_none(),
                detail,
                first_s: first_s.filter(|_| warm_s.is_some()),
                warm_s,
            }
        })
        .collect()
}

/// The median latency of `variant` sent [`WARM_REPEATS`] times, one at a time; None when
/// any repeat fails (a figure of errors would mean nothing).
fn warm_latency(
    endpoint: &Endpoint,
    variant: &Variant,
    headers: &[(String, String)],
    timeout: Duration,
) -> Option<f64> {
    let mut all = Vec::with_capacity(WARM_REPEATS);
    for _ in 0..WARM_REPEATS {
        let v = check_with_headers(endpoint, variant, headers, timeout);
        if problem(&v).is_some() {
            return None;
        }
        all.push(v.latency.as_secs_f64());
    }
    all.sort_by(f64::total_cmp);
    all.get(all.len() / 2).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unanswered_probe_waits_longer_up_to_what_is_left() {
        let s = Duration::from_secs;
        // Unanswered: twice as long, so a target answering in 1.5 s is found ready.
        assert_eq!(next_probe_timeout(s(1), true, s(9)), s(2));
        assert_eq!(next_probe_timeout(s(4), true, s(5)), s(5));
        // Refused or wrong (not listening yet): the same short probe again.
        assert_eq!(next_probe_timeout(s(1), false, s(9)), s(1));
        assert_eq!(
            next_probe_timeout(s(1), true, Duration::ZERO),
            Duration::from_millis(100)
        );
    }

    #[test]
    fn not_ready_names_the_cause_the_probes_measured() {
        let s = Duration::from_secs;
        let slow = not_ready_problem(s(10), "timeout: no response within 2s", s(2), true);
        assert!(
            slow.contains("got no answer within the probe's own timeout (2s for the last probe")
                && slow.contains("answers slower than that"),
            "{slow}"
        );
        let down = not_ready_problem(s(10), "connect: refused", s(1), false);
        assert!(down.contains("(last answer: connect: refused)"), "{down}");
    }

    #[test]
    fn a_failed_case_names_its_variables_when_requests_are_the_cases() {
        let case = |v: serde_json::Value| crate::catalog::OperationCase {
            variables: Some(v),
            data: serde_json::Value::Null,
            unique: None,
        };
        let op = OperationDef {
            name: "g/op".into(),
            document: "query($a: Int) { x(a: $a) }".into(),
            document_path: "op.graphql".into(),
            expected_path: "graph.toml".into(),
            cases: vec![
                case(serde_json::json!({"a": 1})),
                case(serde_json::json!({"a": 2})),
            ],
            incremental: false,
            form: Default::default(),
        };
        assert_eq!(case_variables(&op, 1, 2), r#" (variables {"a":2})"#);
        // Batches or copies: request i is not case i.
        assert_eq!(case_variables(&op, 1, 4), "");
        let long = OperationDef {
            cases: vec![case(serde_json::json!({"s": "é".repeat(300)}))],
            ..op
        };
        let text = case_variables(&long, 0, 1);
        assert!(text.ends_with("…)") && text.len() < 220, "{text}");
    }
}
