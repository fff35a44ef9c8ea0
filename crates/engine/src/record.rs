//! The per-worker recorder: plain counters and histograms owned by one thread (no atomics,
//! no locks), merged across workers once at the end. Percentiles are never averaged.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use std::sync::Arc;

use hdrhistogram::Histogram;

use crate::hist;
use crate::result::{ConnectionSpread, FailureExample, LoadResult, OperationCounts, SecondSample};
use crate::validate::FailureKind;
use crate::window::Window;

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
    /// Told when a connection completes the window's minimum (window extension).
    minimum: Option<Arc<Window>>,
}

fn micros(d: Duration) -> u64 {
    d.as_micros().min(u64::MAX as u128) as u64
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

    /// Answered requests and failures so far (for live progress).
    pub fn totals(&self) -> (u64, u64) {
        (self.requests, self.failures.iter().sum())
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

/// Merges the workers' records into the result.
pub fn finish(recs: Vec<Recorder>, facts: RunFacts) -> LoadResult {
    let open = facts.model == "open";
    let mut latency = hist::new_latency();
    let mut uncorrected = hist::new_latency();
    let mut lag = hist::new_latency();
    let mut r = LoadResult {
        model: facts.model.to_string(),
        threads: facts.threads,
        pinned_cpus: facts.pinned_cpus,
        interrupted: facts.interrupted,
        late_threshold_us: micros(LATE_THRESHOLD),
        ..LoadResult::default()
    };
    let mut failures = [0u64; FailureKind::COUNT];
    let mut per_op = vec![OperationCounts::default(); facts.op_names.len()];
    let mut seconds: Vec<Second> = Vec::new();
    let mut conn_p99s = Vec::new();
    let mut conn_counts = Vec::new();
    let mut examples: Vec<(FailureKind, usize, String)> = Vec::new();
    let mut established: Option<u64> = None;
    let mut unused = 0u64;
    for rec in recs {
        if let Some(n) = rec.established {
            *established.get_or_insert(0) += n;
        }
        // Auto-resizing histograms accept any other histogram.
        let _ = latency.add(&rec.latency);
        let _ = uncorrected.add(&rec.uncorrected);
        let _ = lag.add(&rec.lag);
        r.late += rec.late;
        r.requests += rec.requests;
        r.ok += rec.ok;
        r.unanswered += rec.unanswered;
        for (a, b) in failures.iter_mut().zip(rec.failures) {
            *a += b;
        }
        examples.extend(rec.examples);
        for (a, b) in per_op.iter_mut().zip(rec.per_op) {
            a.requests += b.requests;
            a.ok += b.ok;
            a.failures += b.failures;
        }
        if rec.seconds.len() > seconds.len() {
            seconds.resize_with(rec.seconds.len(), Second::default);
        }
        for (a, b) in seconds.iter_mut().zip(rec.seconds) {
            a.requests += b.requests;
            a.ok += b.ok;
            a.failures += b.failures;
            if let Some(h) = b.hist {
                match &mut a.hist {
                    Some(ah) => {
                        let _ = ah.add(&h);
                    }
                    None => a.hist = Some(h),
                }
            }
        }
        for c in rec.conns {
            if c.expected && c.requests == 0 {
                unused += 1;
            }
            if let (Some(h), true) = (c.hist, c.requests > 0) {
                conn_p99s.push(h.value_at_quantile(0.99));
                conn_counts.push(c.requests);
            }
        }
        r.bytes_received += rec.bytes_received;
        r.bytes_sent += rec.bytes_sent;
        r.warmup_requests += rec.warmup_requests;
        r.reconnects += rec.reconnects;
        r.unsent += rec.unsent;
        r.generator_cpu_s += rec.cpu_s;
    }
    // Keep the first `keep_examples` of each kind over all workers.
    let mut kept = [0usize; FailureKind::COUNT];
    for (kind, op, detail) in examples {
        if kept[kind.index()] < facts.keep_examples {
            kept[kind.index()] += 1;
            r.failure_examples.push(FailureExample {
                kind,
                operation: facts.op_names.get(op).cloned().unwrap_or_default(),
                detail,
            });
        }
    }
    r.failures = FailureKind::ALL
        .iter()
        .filter(|k| failures[k.index()] > 0)
        .map(|k| (*k, failures[k.index()]))
        .collect::<BTreeMap<_, _>>();
    r.failed = failures.iter().sum();
    r.per_operation = facts
        .op_names
        .iter()
        .cloned()
        .zip(per_op)
        .filter(|(_, c)| c.requests > 0)
        .collect();
    r.elapsed_s = facts.elapsed.as_secs_f64();
    if r.elapsed_s > 0.0 {
        r.throughput_rps = r.requests as f64 / r.elapsed_s;
        r.ok_rps = r.ok as f64 / r.elapsed_s;
    }
    r.latency = hist::summarize(&latency);
    r.latency_hist = hist::encode_hist(&latency);
    if open {
        r.uncorrected_latency = Some(hist::summarize(&uncorrected));
        r.uncorrected_latency_hist = Some(hist::encode_hist(&uncorrected));
        r.send_lag = Some(hist::summarize(&lag));
        r.send_lag_hist = Some(hist::encode_hist(&lag));
        // Sent (answered or not) plus never sent.
        r.intended_requests = r.requests + r.unanswered + r.unsent;
    }
    r.series = seconds
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
        established_at_start: established,
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
        let r = finish(vec![r1, r2], facts("open"));
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
