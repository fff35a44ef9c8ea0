//! The per-worker recorder of an HTTP load: plain counters and histograms owned by one
//! thread (no atomics, no locks), merged across workers once at the end by the harness
//! (`Merge`), then summed up into the [`LoadResult`]. Percentiles are never averaged.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use super::live::{FAILURES, LIVE_COUNTERS, REQUESTS};
use super::window::Window;
use crate::harness::merge::{by_kind, keep_first};
use crate::harness::{Merge, Record};
use crate::hist::{self, micros};
use crate::result::{ConnectionSpread, FailureExample, LoadResult, OperationCounts, SecondSample};
use crate::validate::FailureKind;

/// Send lag above which an open-model request counts as late. 1 ms: above the scheduling
/// noise of a loaded machine, below anything a user would call "on time" for a 1 kHz+ rate.
pub const LATE_THRESHOLD: Duration = Duration::from_millis(1);

/// Timing of one finished request of the measured window.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// Worker-local connection slot.
    pub conn: usize,
    pub op: usize,
    /// Open model: when the schedule wanted it sent.
    pub intended: Option<Instant>,
    pub sent: Instant,
    pub done: Instant,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

#[derive(Debug, Default)]
struct ConnStat {
    requests: u64,
    hist: Option<Histogram<u32>>,
    /// Meant to be active at some time in the window (closed model).
    expected: bool,
}

#[derive(Debug, Default)]
struct Second {
    requests: u64,
    ok: u64,
    failures: u64,
    hist: Option<Histogram<u32>>,
}

/// One worker's records.
#[derive(Debug)]
pub struct Recorder {
    window_start: Instant,
    open: bool,
    keep_examples: usize,
    latency: Histogram<u64>,
    uncorrected: Histogram<u64>,
    lag: Histogram<u64>,
    late: u64,
    requests: u64,
    ok: u64,
    failures: [u64; FailureKind::COUNT],
    /// Failed requests that got no response (subset of `failures`).
    unanswered: u64,
    examples: Vec<(FailureKind, usize, String)>,
    per_op: Vec<OperationCounts>,
    seconds: Vec<Second>,
    conns: Vec<ConnStat>,
    bytes_received: u64,
    bytes_sent: u64,
    /// Requests finished during warm-up (discarded).
    pub warmup_requests: u64,
    /// Connections reopened.
    pub reconnects: u64,
    /// Open model: due sends of the window that were never sent.
    pub unsent: u64,
    /// Latest completion of a window request (end of a request-count window).
    pub last_done: Option<Instant>,
    /// Thread CPU time during the window, seconds.
    pub cpu_s: f64,
    /// Closed model: connections open when the load began.
    pub established: Option<u64>,
    pub primed: Option<u64>,
    /// The request-count window's budget was spent (merged: by every worker).
    pub budget_exhausted: bool,
    /// Told when a connection completes the window's minimum (window extension).
    minimum: Option<Arc<Window>>,
}

impl Recorder {
    pub fn new(
        window_start: Instant,
        open: bool,
        ops: usize,
        conns: usize,
        keep_examples: usize,
    ) -> Recorder {
        Recorder {
            window_start,
            open,
            keep_examples,
            latency: hist::new_latency(),
            uncorrected: hist::new_latency(),
            lag: hist::new_latency(),
            late: 0,
            requests: 0,
            ok: 0,
            failures: [0; FailureKind::COUNT],
            unanswered: 0,
            examples: Vec::new(),
            per_op: vec![OperationCounts::default(); ops],
            seconds: Vec::new(),
            conns: (0..conns).map(|_| ConnStat::default()).collect(),
            bytes_received: 0,
            bytes_sent: 0,
            warmup_requests: 0,
            reconnects: 0,
            unsent: 0,
            last_done: None,
            cpu_s: 0.0,
            established: None,
            primed: None,
            budget_exhausted: false,
            minimum: None,
        }
    }

    /// Tells `window` whenever a connection completes its minimum of window requests.
    pub fn report_minimum(&mut self, window: Arc<Window>) {
        self.minimum = Some(window);
    }

    /// Marks the slots meant to be active in the window, so those that completed nothing
    /// can be counted.
    pub fn expect_slots(&mut self, expected: &[bool]) {
        for (c, e) in self.conns.iter_mut().zip(expected) {
            c.expected = *e;
        }
    }

    /// Records one request of the window. `detail` is asked for only while examples of
    /// its kind are still wanted, so failures cost no formatting once enough are kept.
    /// A request that got no response (connect failure, timeout, closed connection) is
    /// counted by kind only: it adds no latency sample, no throughput and no bytes.
    pub fn record(&mut self, s: &Sample, outcome: Result<(), (FailureKind, &str)>) {
        let start = s.intended.unwrap_or(s.sent);
        self.last_done = Some(self.last_done.map_or(s.done, |t| t.max(s.done)));
        let sec = start.saturating_duration_since(self.window_start).as_secs() as usize;
        if sec >= self.seconds.len() {
            self.seconds.resize_with(sec + 1, Second::default);
        }
        let op = &mut self.per_op[s.op];
        if let Err((kind, detail)) = outcome {
            op.failures += 1;
            self.failures[kind.index()] += 1;
            self.seconds[sec].failures += 1;
            if self.failures[kind.index()] as usize <= self.keep_examples {
                self.examples.push((kind, s.op, detail.to_string()));
            }
            if !kind.answered() {
                self.unanswered += 1;
                return;
            }
        }
        let ok = outcome.is_ok();
        op.requests += 1;
        if ok {
            op.ok += 1;
            self.ok += 1;
        }
        let lat = micros(s.done.saturating_duration_since(start));
        hist::record(&mut self.latency, lat);
        if self.open {
            hist::record(
                &mut self.uncorrected,
                micros(s.done.saturating_duration_since(s.sent)),
            );
            let lag = s.sent.saturating_duration_since(start);
            hist::record(&mut self.lag, micros(lag));
            if lag > LATE_THRESHOLD {
                self.late += 1;
            }
        }
        self.requests += 1;
        self.bytes_received += s.bytes_in;
        self.bytes_sent += s.bytes_out;
        let b = &mut self.seconds[sec];
        b.requests += 1;
        if ok {
            b.ok += 1;
        }
        hist::record(b.hist.get_or_insert_with(|| hist::new_small(2)), lat);
        if let Some(c) = self.conns.get_mut(s.conn) {
            c.requests += 1;
            hist::record(c.hist.get_or_insert_with(|| hist::new_small(1)), lat);
            if let Some(w) = self
                .minimum
                .as_ref()
                .filter(|w| c.requests == w.min_per_connection)
            {
                w.connection_satisfied();
            }
        }
    }
}

impl Merge for Second {
    fn merge(&mut self, o: Second) {
        self.requests += o.requests;
        self.ok += o.ok;
        self.failures += o.failures;
        self.hist.merge(o.hist);
    }
}

impl Merge for OperationCounts {
    fn merge(&mut self, o: OperationCounts) {
        self.requests += o.requests;
        self.ok += o.ok;
        self.failures += o.failures;
    }
}

impl Merge for Recorder {
    /// Another worker's records: its connections are appended (they are other slots).
    fn merge(&mut self, o: Recorder) {
        self.latency.merge(o.latency);
        self.uncorrected.merge(o.uncorrected);
        self.lag.merge(o.lag);
        self.late += o.late;
        self.requests += o.requests;
        self.ok += o.ok;
        self.failures.merge(o.failures);
        self.unanswered += o.unanswered;
        self.examples.extend(o.examples);
        self.per_op.merge(o.per_op);
        self.seconds.merge(o.seconds);
        self.conns.extend(o.conns);
        self.bytes_received += o.bytes_received;
        self.bytes_sent += o.bytes_sent;
        self.warmup_requests += o.warmup_requests;
        self.reconnects += o.reconnects;
        self.unsent += o.unsent;
        self.last_done = self.last_done.max(o.last_done);
        self.cpu_s += o.cpu_s;
        if let Some(n) = o.primed {
            *self.primed.get_or_insert(0) += n;
        }
        if let Some(n) = o.established {
            *self.established.get_or_insert(0) += n;
        }
        self.budget_exhausted &= o.budget_exhausted;
    }
}

impl Record<LIVE_COUNTERS> for Recorder {
    /// Answered requests and failures so far.
    fn progress(&self) -> [i64; LIVE_COUNTERS] {
        let mut p = [0; LIVE_COUNTERS];
        p[REQUESTS] = self.requests as i64;
        p[FAILURES] = self.failures.iter().sum::<u64>() as i64;
        p
    }

    fn set_cpu(&mut self, cpu_s: f64) {
        self.cpu_s = cpu_s;
    }
}

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
        .zip(rec.per_op)
        .filter(|(_, c)| c.requests > 0)
        .collect();
    r.elapsed_s = facts.elapsed.as_secs_f64();
    if r.elapsed_s > 0.0 {
        r.throughput_rps = r.requests as f64 / r.elapsed_s;
        r.ok_rps = r.ok as f64 / r.elapsed_s;
    }
    r.latency = hist::summarize(&rec.latency);
    r.latency_hist = hist::encode_hist(&rec.latency);
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
