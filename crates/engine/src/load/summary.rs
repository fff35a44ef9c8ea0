//! Sums up the merged records of every worker of an HTTP load into its [`LoadResult`]:
//! counts by kind, the first few failure examples of each kind, histograms summarized and
//! encoded, the per-second series, the slices of a sliced run, the spread over
//! connections, and the closed model's rate from the requests' timing and count's step.

use std::time::Duration;

use super::record::{Recorder, LATE_THRESHOLD};
use crate::harness::merge::{by_kind, keep_first};
use crate::hist::{self, micros};
use crate::result::{ConnectionSpread, FailureExample, LoadResult, SecondSample};
use crate::validate::FailureKind;

/// Facts about the run that the recorders do not know.
#[derive(Debug, Clone)]
pub struct RunFacts {
    pub model: &'static str,
    pub op_names: Vec<String>,
    pub elapsed: Duration,
    pub threads: usize,
    pub pinned_cpus: Option<Vec<usize>>,
    pub interrupted: bool,
    pub keep_examples: usize,
    /// Connections the schedule asked for.
    pub planned: u64,
    /// Whether a connection that completed nothing is worth counting: a duration window
    /// that ran to its end (a spent request budget leaves connections idle by design).
    pub count_unused: bool,
    /// Closed model: requests each connection keeps in flight.
    pub pipelining: u64,
    /// Whether the rate from the requests' own timing stands for the run: a duration
    /// window (closed model) that ran to its end, not cut by an interrupt.
    pub timed: bool,
}

/// Sums up the merged records of every worker into the result.
pub fn finish(rec: Recorder, facts: RunFacts) -> LoadResult {
    let open = facts.model == "open";
    let mut r = LoadResult {
        model: facts.model.to_string(),
        threads: facts.threads,
        pinned_cpus: facts.pinned_cpus,
        interrupted: facts.interrupted,
        late_threshold_us: micros(LATE_THRESHOLD),
        late: rec.late,
        requests: rec.requests,
        ok: rec.ok,
        unanswered: rec.unanswered,
        bytes_received: rec.bytes_received,
        bytes_sent: rec.bytes_sent,
        warmup_requests: rec.warmup_requests,
        reconnects: rec.reconnects,
        unsent: rec.unsent,
        generator_cpu_s: rec.cpu_s,
        ..LoadResult::default()
    };
    let failures = rec.failures;
    let progress = rec.progress.filter(|_| facts.timed && !facts.interrupted);
    (r.slices, r.slice_profile) = rec.slices.finish(facts.elapsed);
    let mut conn_p99s = Vec::new();
    let mut conn_counts = Vec::new();
    let mut unused = 0u64;
    for c in rec.conns {
        if c.expected && c.requests == 0 {
            unused += 1;
        }
        if let (Some(h), true) = (c.hist, c.requests > 0) {
            conn_p99s.push(h.value_at_quantile(0.99));
            conn_counts.push(c.requests);
        }
    }
    // The first `keep_examples` of each kind over all workers.
    r.failure_examples = keep_first(rec.examples, facts.keep_examples, |e| e.0.index())
        .into_iter()
        .map(|(kind, op, detail)| FailureExample {
            kind,
            operation: facts.op_names.get(op).cloned().unwrap_or_default(),
            detail,
        })
        .collect();
    r.failures = by_kind(&FailureKind::ALL, &failures, |k| k.index());
    r.failed = failures.iter().sum();
    r.per_operation = facts
        .op_names
        .iter()
        .cloned()
        .zip(rec.per_op.into_iter().zip(rec.per_op_hists))
        .filter(|(_, (c, _))| c.requests > 0)
        .map(|(name, (mut c, h))| {
            c.latency = h.latency.as_ref().map(hist::summarize);
            c.first_part = h.first_part.as_ref().map(hist::summarize);
            (name, c)
        })
        .collect();
    r.elapsed_s = facts.elapsed.as_secs_f64();
    if r.elapsed_s > 0.0 {
        r.throughput_rps = r.requests as f64 / r.elapsed_s;
        r.ok_rps = r.ok as f64 / r.elapsed_s;
    }
    if let Some(p) = progress {
        let (shares, time) = p.finish(facts.elapsed, conn_counts.len());
        r.timed_rps = (time > 0.0).then(|| shares / time);
    }
    if !open {
        // The stretches whose edges may cut a request: the window, or each own slice that
        // counted time.
        let stretches = if r.slices.is_empty() {
            1
        } else {
            r.slices.iter().filter(|s| s.counted_ms > 0.0).count() as u64
        };
        let slots = conn_counts.len() as u64 * facts.pipelining.max(1);
        r.count_resolution = crate::result::count_resolution(slots, stretches, r.requests);
    }
    r.latency = hist::summarize(&rec.latency);
    r.latency_hist = hist::encode_hist(&rec.latency);
    r.persisted = rec
        .persisted
        .map(|[hits, misses]| crate::result::PersistedCounts { hits, misses });
    if !rec.first_part.is_empty() {
        r.first_part = Some(hist::summarize(&rec.first_part));
        r.first_part_hist = Some(hist::encode_hist(&rec.first_part));
    }
    if open {
        r.uncorrected_latency = Some(hist::summarize(&rec.uncorrected));
        r.uncorrected_latency_hist = Some(hist::encode_hist(&rec.uncorrected));
        r.send_lag = Some(hist::summarize(&rec.lag));
        r.send_lag_hist = Some(hist::encode_hist(&rec.lag));
        // Sent (answered or not) plus never sent.
        r.intended_requests = r.requests + r.unanswered + r.unsent;
    }
    r.series = rec
        .seconds
        .into_iter()
        .enumerate()
        .map(|(i, s)| SecondSample {
            t_s: i as u64,
            requests: s.requests,
            ok: s.ok,
            failures: s.failures,
            p50_us: s.hist.as_ref().map_or(0, |h| h.value_at_quantile(0.5)),
            p99_us: s.hist.as_ref().map_or(0, |h| h.value_at_quantile(0.99)),
        })
        .collect();
    conn_p99s.sort_unstable();
    r.connections = ConnectionSpread {
        planned: facts.planned,
        established_at_start: rec.established,
        primed: rec.primed,
        unused: if facts.count_unused && !facts.interrupted {
            unused
        } else {
            0
        },
        connections_used: conn_counts.len() as u64,
        slowest_connection_p99_us: conn_p99s.last().copied().unwrap_or(0),
        median_connection_p99_us: conn_p99s.get(conn_p99s.len() / 2).copied().unwrap_or(0),
        min_connection_requests: conn_counts.iter().copied().min().unwrap_or(0),
        max_connection_requests: conn_counts.iter().copied().max().unwrap_or(0),
    };
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::merge_all;
    use crate::load::record::Sample;
    use std::time::Instant;

    fn facts(model: &'static str) -> RunFacts {
        RunFacts {
            model,
            op_names: vec!["a".into(), "b".into()],
            elapsed: Duration::from_secs(2),
            threads: 2,
            pinned_cpus: None,
            interrupted: false,
            keep_examples: 1,
            planned: 4,
            count_unused: true,
            pipelining: 1,
            timed: model == "closed",
        }
    }

    #[test]
    fn merge_of_two_workers() {
        let t0 = Instant::now();
        let mut r1 = Recorder::new(t0, true, 2, 2, 1);
        let mut r2 = Recorder::new(t0, true, 2, 2, 1);
        let ms = Duration::from_millis;
        let s = |conn, op, i: u64, lag: u64, lat: u64| Sample {
            conn,
            op,
            intended: Some(t0 + ms(i)),
            sent: t0 + ms(i + lag),
            done: t0 + ms(i + lag + lat),
            first_part: None,
            persisted: None,
            bytes_in: 10,
            bytes_out: 5,
        };
        r1.record(&s(0, 0, 0, 0, 1), Ok(()));
        r1.record(&s(1, 1, 1500, 5, 1), Err((FailureKind::WrongData, "x")));
        r2.record(&s(0, 0, 10, 0, 2), Err((FailureKind::WrongData, "y")));
        r2.record(&s(0, 1, 20, 0, 3), Ok(()));
        let merged = merge_all(vec![r1, r2]).expect("two recorders");
        let r = finish(merged, facts("open"));
        assert_eq!((r.requests, r.ok, r.failed), (4, 2, 2));
        assert_eq!(r.failures.get(&FailureKind::WrongData), Some(&2));
        assert_eq!(r.failure_examples.len(), 1);
        assert_eq!(r.failure_examples[0].detail, "x");
        assert_eq!(r.failure_examples[0].operation, "b");
        assert_eq!(r.per_operation["a"].requests, 2);
        assert_eq!(r.late, 1);
        assert_eq!(r.series.len(), 2);
        assert_eq!(r.series[0].requests, 3);
        assert_eq!(r.series[1].failures, 1);
        assert_eq!(r.connections.connections_used, 3);
        assert_eq!(r.connections.max_connection_requests, 2);
        assert_eq!(r.connections.min_connection_requests, 1);
        assert_eq!(r.throughput_rps, 2.0);
        assert_eq!(r.bytes_received, 40);
        let sl = r.send_lag.unwrap();
        assert!(sl.max_us >= 4990 && sl.max_us <= 5010, "{sl:?}");
        // Corrected latency includes the lag, uncorrected does not.
        assert!(r.latency.max_us >= 5990);
        assert!(r.uncorrected_latency.unwrap().max_us <= 3010);
        let json = serde_json::to_string(&r.failures).unwrap();
        assert_eq!(json, r#"{"wrong_data":2}"#);
    }
}
