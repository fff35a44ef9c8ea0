//! The per-worker recorder of an HTTP load: plain counters and histograms owned by one
//! thread (no atomics, no locks), merged across workers once at the end by the harness
//! (`Merge`), then summed up into the `LoadResult` by `summary`. Percentiles are never
//! averaged.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use super::progress::Progress;
use super::slices::SliceRecord;
use super::window::Window;
use crate::harness::{Merge, Record};
use crate::hist::{self, micros};
use crate::live::{FAILURES, LIVE_COUNTERS, REQUESTS};
use crate::result::OperationCounts;
use crate::slicing::Slicing;
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
    /// An incremental answer: when its first part had arrived.
    pub first_part: Option<Instant>,
    /// A persisted query: whether the server did not know it (a miss).
    pub persisted: Option<bool>,
    pub bytes_in: u64,
    pub bytes_out: u64,
}

#[derive(Debug, Default)]
pub(super) struct ConnStat {
    pub(super) requests: u64,
    pub(super) hist: Option<Histogram<u32>>,
    /// Meant to be active at some time in the window (closed model).
    pub(super) expected: bool,
}

/// One operation's histograms (made on its first sample).
#[derive(Debug, Default)]
pub(super) struct OpHists {
    pub(super) latency: Option<Histogram<u64>>,
    pub(super) first_part: Option<Histogram<u64>>,
}

impl Merge for OpHists {
    fn merge(&mut self, o: OpHists) {
        self.latency.merge(o.latency);
        self.first_part.merge(o.first_part);
    }
}

#[derive(Debug, Default)]
pub(super) struct Second {
    pub(super) requests: u64,
    pub(super) ok: u64,
    pub(super) failures: u64,
    pub(super) hist: Option<Histogram<u32>>,
}

/// One worker's records.
#[derive(Debug)]
pub struct Recorder {
    window_start: Instant,
    open: bool,
    keep_examples: usize,
    pub(super) latency: Histogram<u64>,
    /// Incremental answers that passed: time to the first part.
    pub(super) first_part: Histogram<u64>,
    /// Answered persisted queries the server knew, and did not know (registered).
    pub(super) persisted: Option<[u64; 2]>,
    pub(super) uncorrected: Histogram<u64>,
    pub(super) lag: Histogram<u64>,
    pub(super) late: u64,
    pub(super) requests: u64,
    pub(super) ok: u64,
    pub(super) failures: [u64; FailureKind::COUNT],
    /// Failed requests that got no response (subset of `failures`).
    pub(super) unanswered: u64,
    pub(super) examples: Vec<(FailureKind, usize, String)>,
    pub(super) per_op: Vec<OperationCounts>,
    /// Per operation, when there is more than one: latency, and time to the first part.
    pub(super) per_op_hists: Vec<OpHists>,
    pub(super) seconds: Vec<Second>,
    pub(super) conns: Vec<ConnStat>,
    pub(super) bytes_received: u64,
    pub(super) bytes_sent: u64,
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
    /// Sliced run: counts per own slice, and the profile within slices.
    pub(super) slices: SliceRecord,
    /// Closed model with a duration window: the requests' shares of the counted time.
    pub(super) progress: Option<Progress>,
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
            first_part: hist::new_latency(),
            persisted: None,
            uncorrected: hist::new_latency(),
            lag: hist::new_latency(),
            late: 0,
            requests: 0,
            ok: 0,
            failures: [0; FailureKind::COUNT],
            unanswered: 0,
            examples: Vec::new(),
            per_op: vec![OperationCounts::default(); ops],
            per_op_hists: (0..ops).map(|_| OpHists::default()).collect(),
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
            slices: SliceRecord::new(None, window_start, false),
            progress: None,
        }
    }

    /// Closed model with a duration window: sums each answered request's share of the
    /// counted time (see `progress`), for the rate from the requests' own timing. Call
    /// after `slice_by`.
    pub fn track_progress(&mut self, think_time: Duration) {
        let slicing = self.slices.slicing();
        self.progress = Some(Progress::new(slicing, self.window_start, think_time));
    }

    /// An answered request's span, counted or not (a warm-up's or a guard's reaches into
    /// the counted time too), with the window's end as it stands.
    pub fn answered_span(&mut self, sent: Instant, done: Instant, end_now: Option<Instant>) {
        if let (Some(p), Some(end)) = (self.progress.as_mut(), end_now) {
            p.add(sent, done, end);
        }
    }

    /// A connection idled by design from `from` to `to` (the end of its own slices), with
    /// the window's end as it stands: not time it worked (`progress`).
    pub fn drain_idle(&mut self, from: Instant, to: Instant, end_now: Option<Instant>) {
        if let (Some(p), Some(end)) = (self.progress.as_mut(), end_now) {
            p.idle(from, to, end);
        }
    }

    /// Records per own slice of `slicing` too.
    pub fn slice_by(&mut self, slicing: Option<Slicing>) {
        self.slices = SliceRecord::new(slicing, self.window_start, !self.open);
    }

    /// Closed model, sliced: a request that ended at `done`, counted in the slice its
    /// answer arrived in (sent in a guard too). `end_now`: the window's end as it stands.
    pub fn slice_answer(
        &mut self,
        done: Instant,
        end_now: Option<Instant>,
        answered: bool,
        ok: bool,
    ) {
        self.slices.answer(done, end_now, answered, ok);
    }

    /// An answer `SliceRecord::counts_answer` already found counted: added without asking
    /// again (the warm-up's answers are judged only once that is known).
    pub fn slice_counted(&mut self, done: Instant, answered: bool, ok: bool) {
        self.slices.add(done, answered, ok);
    }

    /// With slicing: an answer that passed validation, of a request sent `bin` profile
    /// bins into an own slice of the window, counted or not (guard).
    pub fn profile_ok(&mut self, bin: usize) {
        self.slices.profile_ok(bin);
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
        let answered = outcome
            .as_ref()
            .map_or_else(|(k, _)| k.answered(), |_| true);
        self.slices.count(start, answered, outcome.is_ok());
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
        if let Some(miss) = s.persisted {
            self.persisted.get_or_insert([0; 2])[usize::from(miss)] += 1;
        }
        let ok = outcome.is_ok();
        op.requests += 1;
        if ok {
            op.ok += 1;
            self.ok += 1;
            if let Some(first) = s.first_part {
                let t = micros(first.saturating_duration_since(start));
                hist::record(&mut self.first_part, t);
                let h = &mut self.per_op_hists[s.op].first_part;
                hist::record(h.get_or_insert_with(hist::new_latency), t);
            }
        }
        let lat = micros(s.done.saturating_duration_since(start));
        hist::record(&mut self.latency, lat);
        // One operation's latency is the whole run's: kept per operation only in a mix.
        if self.per_op_hists.len() > 1 || s.first_part.is_some() {
            let h = &mut self.per_op_hists[s.op].latency;
            hist::record(h.get_or_insert_with(hist::new_latency), lat);
        }
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
        self.first_part.merge(o.first_part);
        if let Some(o) = o.persisted {
            let p = self.persisted.get_or_insert([0; 2]);
            p[0] += o[0];
            p[1] += o[1];
        }
        self.uncorrected.merge(o.uncorrected);
        self.lag.merge(o.lag);
        self.late += o.late;
        self.requests += o.requests;
        self.ok += o.ok;
        self.failures.merge(o.failures);
        self.unanswered += o.unanswered;
        self.examples.extend(o.examples);
        self.per_op.merge(o.per_op);
        self.per_op_hists.merge(o.per_op_hists);
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
        self.slices.merge(o.slices);
        self.progress.merge(o.progress);
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
