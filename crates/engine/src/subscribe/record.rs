//! The per-worker recorder of a subscription run: plain counters and histograms owned by
//! one thread, merged across workers once at the end (histograms are merged, never
//! percentiles averaged).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;

use super::{
    ConnectionFailureKind, FailureStage, MessageFailureKind, PerConnectionRate,
    SubscribeFailureExample, SubscribeResult, SubscribeSecond,
};
use crate::hist;
use crate::validate::excerpt;

const CONN_KINDS: usize = ConnectionFailureKind::ALL.len();
const MSG_KINDS: usize = MessageFailureKind::ALL.len();

/// The verdict on one `next` message.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Judged {
    Valid {
        /// Publish time, ms since the Unix epoch (when a pointer is configured).
        published_ms: Option<f64>,
        /// Sequence number (when a pointer is configured).
        seq: Option<u64>,
    },
    Invalid(MessageFailureKind),
}

#[derive(Debug, Default, Clone)]
struct ConnStat {
    last_seq: Option<u64>,
    window_messages: u64,
    subscribed_at: Option<Instant>,
    ended_at: Option<Instant>,
}

#[derive(Debug, Default)]
struct Second {
    messages: u64,
    invalid: u64,
    latency: Option<Histogram<u32>>,
}

/// Where an instant falls relative to the measured window.
enum At {
    Before,
    In(usize),
    After,
}

/// The measured window of a run, once known.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    pub start: Instant,
    pub end: Instant,
}

/// One worker's records.
#[derive(Debug)]
pub struct SubRecorder {
    worker: usize,
    threads: usize,
    keep_examples: usize,
    window: Option<Window>,
    pub attempted: u64,
    pub connected: u64,
    pub subscribed: u64,
    /// Subscribed connections open now.
    pub held: i64,
    setup_failures: [u64; CONN_KINDS],
    drops: [u64; CONN_KINDS],
    dropped_in_window: u64,
    message_failures: [u64; MSG_KINDS],
    examples: Vec<SubscribeFailureExample>,
    connect_time: Histogram<u64>,
    pub messages_total: u64,
    messages: u64,
    warmup_messages: u64,
    latency: Histogram<u64>,
    future_published_at: u64,
    missed: u64,
    gaps: u64,
    duplicates: u64,
    out_of_order: u64,
    bytes_received: u64,
    seconds: Vec<Second>,
    /// Held connections at the end of each second of the window (sampled by the ticker).
    pub held_series: Vec<u64>,
    conns: Vec<ConnStat>,
    /// Thread CPU time during the window, seconds.
    pub cpu_s: f64,
    /// Held connections when the window ended.
    pub held_at_end: Option<u64>,
}

fn micros(d: Duration) -> u64 {
    d.as_micros().min(u64::MAX as u128) as u64
}

impl SubRecorder {
    pub fn new(worker: usize, threads: usize, conns: usize, keep_examples: usize) -> SubRecorder {
        SubRecorder {
            worker,
            threads,
            keep_examples,
            window: None,
            attempted: 0,
            connected: 0,
            subscribed: 0,
            held: 0,
            setup_failures: [0; CONN_KINDS],
            drops: [0; CONN_KINDS],
            dropped_in_window: 0,
            message_failures: [0; MSG_KINDS],
            examples: Vec::new(),
            connect_time: hist::new_latency(),
            messages_total: 0,
            messages: 0,
            warmup_messages: 0,
            latency: hist::new_latency(),
            future_published_at: 0,
            missed: 0,
            gaps: 0,
            duplicates: 0,
            out_of_order: 0,
            bytes_received: 0,
            seconds: Vec::new(),
            held_series: Vec::new(),
            conns: vec![ConnStat::default(); conns],
            cpu_s: 0.0,
            held_at_end: None,
        }
    }

    pub fn set_window(&mut self, w: Window) {
        self.window = Some(w);
    }

    /// Counters for live progress: (setup failures, drops, window messages, invalid).
    pub fn totals(&self) -> (u64, u64, u64, u64) {
        (
            self.setup_failures.iter().sum(),
            self.drops.iter().sum(),
            self.messages,
            self.message_failures.iter().sum(),
        )
    }

    fn at(&self, t: Instant) -> At {
        match self.window {
            None => At::Before,
            Some(w) if t < w.start => At::Before,
            Some(w) if t >= w.end => At::After,
            Some(w) => At::In(t.duration_since(w.start).as_secs() as usize),
        }
    }

    fn example(&mut self, stage: FailureStage, kind: String, slot: usize, detail: String) {
        self.examples.push(SubscribeFailureExample {
            stage,
            kind,
            connection: (slot * self.threads + self.worker) as u64,
            detail,
        });
    }

    pub fn connected(&mut self) {
        self.connected += 1;
    }

    /// A connection that never subscribed. `detail` is called only while examples of its
    /// kind are still wanted.
    pub fn setup_failed(
        &mut self,
        slot: usize,
        kind: ConnectionFailureKind,
        detail: impl FnOnce() -> String,
    ) {
        let n = &mut self.setup_failures[kind.index()];
        *n += 1;
        if *n as usize <= self.keep_examples {
            self.example(FailureStage::Setup, kind_name(kind), slot, detail());
        }
    }

    pub fn subscribed(&mut self, slot: usize, started: Instant, now: Instant) {
        self.subscribed += 1;
        self.held += 1;
        hist::record(
            &mut self.connect_time,
            micros(now.saturating_duration_since(started)),
        );
        if let Some(c) = self.conns.get_mut(slot) {
            c.subscribed_at = Some(now);
        }
    }

    /// A subscribed connection was lost. Losses after the window are the run ending and
    /// are not counted.
    pub fn dropped(
        &mut self,
        slot: usize,
        kind: ConnectionFailureKind,
        now: Instant,
        detail: impl FnOnce() -> String,
    ) {
        let in_window = match self.at(now) {
            At::After => return,
            At::In(_) => true,
            At::Before => false,
        };
        self.held -= 1;
        if let Some(c) = self.conns.get_mut(slot) {
            c.ended_at = Some(now);
        }
        if in_window {
            self.dropped_in_window += 1;
        }
        let n = &mut self.drops[kind.index()];
        *n += 1;
        if *n as usize <= self.keep_examples {
            self.example(FailureStage::Drop, kind_name(kind), slot, detail());
        }
    }

    /// One `next` message. `raw` is quoted in a failure example when one is wanted.
    pub fn message(&mut self, slot: usize, now: Instant, wall_us: u64, judged: Judged, raw: &[u8]) {
        self.messages_total += 1;
        let at = self.at(now);
        let Some(conn) = self.conns.get_mut(slot) else {
            return;
        };
        let sec = match at {
            At::In(sec) => sec,
            At::Before | At::After => {
                // Outside the window only the sequence is followed, so the first message
                // of the window is checked against the one before it.
                if let Judged::Valid { seq: Some(s), .. } = judged {
                    if conn.last_seq.is_none_or(|last| s > last) {
                        conn.last_seq = Some(s);
                    }
                }
                if matches!(at, At::Before) {
                    self.warmup_messages += 1;
                }
                return;
            }
        };
        conn.window_messages += 1;
        self.messages += 1;
        self.bytes_received += raw.len() as u64;
        if sec >= self.seconds.len() {
            self.seconds.resize_with(sec + 1, Second::default);
        }
        let second = &mut self.seconds[sec];
        second.messages += 1;
        match judged {
            Judged::Invalid(kind) => {
                second.invalid += 1;
                let n = &mut self.message_failures[kind.index()];
                *n += 1;
                if *n as usize <= self.keep_examples {
                    let name = message_kind_name(kind);
                    self.example(FailureStage::Message, name, slot, excerpt(raw));
                }
            }
            Judged::Valid { published_ms, seq } => {
                if let Some(s) = seq {
                    match conn.last_seq {
                        None => {}
                        Some(last) if s == last.wrapping_add(1) => {}
                        Some(last) if s > last => {
                            self.gaps += 1;
                            self.missed += s - last - 1;
                        }
                        Some(last) if s == last => self.duplicates += 1,
                        Some(_) => self.out_of_order += 1,
                    }
                    if conn.last_seq.is_none_or(|last| s > last) {
                        conn.last_seq = Some(s);
                    }
                }
                if let Some(p) = published_ms {
                    // µs since the epoch as f64 is exact to well below 1 µs until year 2255.
                    let lat = wall_us as f64 - p * 1000.0;
                    let lat = if lat < 0.0 {
                        self.future_published_at += 1;
                        0
                    } else {
                        lat as u64
                    };
                    hist::record(&mut self.latency, lat);
                    hist::record(
                        second.latency.get_or_insert_with(|| hist::new_small(2)),
                        lat,
                    );
                }
            }
        }
    }
}

fn kind_name(k: ConnectionFailureKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn message_kind_name(k: MessageFailureKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Facts about the run that the recorders do not know.
#[derive(Debug, Clone)]
pub struct SubscribeFacts {
    pub transport: &'static str,
    /// The window actually run (shortened by a cancel).
    pub elapsed: Duration,
    pub window_start: Option<Instant>,
    pub window_end: Option<Instant>,
    pub connect_phase: Duration,
    pub connect_phase_timed_out: bool,
    pub threads: usize,
    pub pinned_cpus: Option<Vec<usize>>,
    pub interrupted: bool,
    pub keep_examples: usize,
}

/// Merges the workers' records into the result.
pub fn finish(recs: Vec<SubRecorder>, facts: SubscribeFacts) -> SubscribeResult {
    let mut r = SubscribeResult {
        transport: facts.transport.to_string(),
        connect_phase_s: facts.connect_phase.as_secs_f64(),
        connect_phase_timed_out: facts.connect_phase_timed_out,
        elapsed_s: facts.elapsed.as_secs_f64(),
        threads: facts.threads,
        pinned_cpus: facts.pinned_cpus,
        interrupted: facts.interrupted,
        ..SubscribeResult::default()
    };
    let mut connect_time = hist::new_latency();
    let mut latency = hist::new_latency();
    let mut setup = [0u64; CONN_KINDS];
    let mut drops = [0u64; CONN_KINDS];
    let mut msg_failures = [0u64; MSG_KINDS];
    let mut seconds: Vec<Second> = Vec::new();
    let mut held_series: Vec<u64> = Vec::new();
    let mut examples = Vec::new();
    let mut rates = Vec::new();
    let c = &mut r.connections;
    for rec in recs {
        c.attempted += rec.attempted;
        c.connected += rec.connected;
        c.subscribed += rec.subscribed;
        c.held_at_end += rec.held_at_end.unwrap_or_else(|| rec.held.max(0) as u64);
        c.dropped_in_window += rec.dropped_in_window;
        for (a, b) in setup.iter_mut().zip(rec.setup_failures) {
            *a += b;
        }
        for (a, b) in drops.iter_mut().zip(rec.drops) {
            *a += b;
        }
        for (a, b) in msg_failures.iter_mut().zip(rec.message_failures) {
            *a += b;
        }
        examples.extend(rec.examples);
        // Auto-resizing histograms accept any other histogram.
        let _ = connect_time.add(&rec.connect_time);
        let _ = latency.add(&rec.latency);
        r.messages_total += rec.messages_total;
        r.messages += rec.messages;
        r.warmup_messages += rec.warmup_messages;
        r.future_published_at += rec.future_published_at;
        r.missed += rec.missed;
        r.gaps += rec.gaps;
        r.duplicates += rec.duplicates;
        r.out_of_order += rec.out_of_order;
        r.bytes_received += rec.bytes_received;
        r.generator_cpu_s += rec.cpu_s;
        if rec.seconds.len() > seconds.len() {
            seconds.resize_with(rec.seconds.len(), Second::default);
        }
        for (a, b) in seconds.iter_mut().zip(rec.seconds) {
            a.messages += b.messages;
            a.invalid += b.invalid;
            if let Some(h) = b.latency {
                match &mut a.latency {
                    Some(ah) => {
                        let _ = ah.add(&h);
                    }
                    None => a.latency = Some(h),
                }
            }
        }
        if rec.held_series.len() > held_series.len() {
            held_series.resize(rec.held_series.len(), 0);
        }
        for (a, b) in held_series.iter_mut().zip(&rec.held_series) {
            *a += b;
        }
        if let (Some(ws), Some(we)) = (facts.window_start, facts.window_end) {
            for conn in &rec.conns {
                let Some(sub) = conn.subscribed_at else {
                    continue;
                };
                if sub < we && conn.ended_at.is_none_or(|e| e > ws) {
                    rates.push(conn.window_messages);
                }
            }
        }
    }
    c.setup_failed = setup.iter().sum();
    c.dropped = drops.iter().sum();
    c.pending_at_end = c.attempted.saturating_sub(c.subscribed + c.setup_failed);
    r.setup_failures = collect(&ConnectionFailureKind::ALL, &setup, |k| k.index());
    r.drops = collect(&ConnectionFailureKind::ALL, &drops, |k| k.index());
    r.message_failures = collect(&MessageFailureKind::ALL, &msg_failures, |k| k.index());
    r.invalid_messages = msg_failures.iter().sum();
    // Keep the first `keep_examples` of each stage and kind over all workers.
    let mut kept: BTreeMap<(FailureStage, String), usize> = BTreeMap::new();
    for e in examples {
        let n = kept.entry((e.stage, e.kind.clone())).or_insert(0);
        if *n < facts.keep_examples {
            *n += 1;
            r.failure_examples.push(e);
        }
    }
    r.connect_time = hist::summarize(&connect_time);
    r.connect_time_hist = hist::encode_hist(&connect_time);
    r.latency = hist::summarize(&latency);
    r.latency_hist = hist::encode_hist(&latency);
    if r.elapsed_s > 0.0 {
        r.messages_per_s = r.messages as f64 / r.elapsed_s;
        r.generator_cpu_percent = r.generator_cpu_s / r.elapsed_s * 100.0;
        if !rates.is_empty() {
            let per_s = |n: u64| n as f64 / r.elapsed_s;
            r.per_connection = PerConnectionRate {
                connections: rates.len() as u64,
                mean_per_s: per_s(rates.iter().sum::<u64>()) / rates.len() as f64,
                min_per_s: per_s(rates.iter().copied().min().unwrap_or(0)),
                max_per_s: per_s(rates.iter().copied().max().unwrap_or(0)),
            };
        }
    }
    let len = seconds
        .len()
        .max(held_series.len())
        .min(r.elapsed_s.ceil() as usize);
    r.series = (0..len)
        .map(|i| {
            let s = seconds.get(i);
            SubscribeSecond {
                t_s: i as u64,
                messages: s.map_or(0, |s| s.messages),
                invalid: s.map_or(0, |s| s.invalid),
                held: held_series
                    .get(i)
                    .copied()
                    .unwrap_or(r.connections.held_at_end),
                p99_us: s
                    .and_then(|s| s.latency.as_ref())
                    .map_or(0, |h| h.value_at_quantile(0.99)),
            }
        })
        .collect();
    r
}

fn collect<K: Copy + Ord>(
    all: &[K],
    counts: &[u64],
    index: impl Fn(K) -> usize,
) -> BTreeMap<K, u64> {
    all.iter()
        .filter(|k| counts[index(**k)] > 0)
        .map(|k| (*k, counts[index(*k)]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(t0: Instant) -> SubscribeFacts {
        SubscribeFacts {
            transport: "websocket",
            elapsed: Duration::from_secs(2),
            window_start: Some(t0),
            window_end: Some(t0 + Duration::from_secs(2)),
            connect_phase: Duration::from_millis(10),
            connect_phase_timed_out: false,
            threads: 2,
            pinned_cpus: None,
            interrupted: false,
            keep_examples: 1,
        }
    }

    #[test]
    fn sequence_checks_and_merge() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let w = Window {
            start: t0,
            end: t0 + ms(2000),
        };
        let mut a = SubRecorder::new(0, 2, 2, 1);
        let mut b = SubRecorder::new(1, 2, 1, 1);
        a.set_window(w);
        b.set_window(w);
        a.subscribed(0, t0 - ms(50), t0 - ms(40));
        a.subscribed(1, t0 - ms(50), t0 - ms(30));
        b.subscribed(0, t0 - ms(50), t0 - ms(20));
        let v = |seq| Judged::Valid {
            published_ms: Some(1000.0),
            seq: Some(seq),
        };
        // Conn a0: 1 (before the window), 2, 5 (gap of 2), 5 (dup), 4 (out of order), 6.
        a.message(0, t0 - ms(1), 1_000_500, v(1), b"x");
        for (i, s) in [2, 5, 5, 4, 6].into_iter().enumerate() {
            a.message(0, t0 + ms(100 * i as u64), 1_001_000, v(s), b"xy");
        }
        a.message(1, t0 + ms(1500), 999_000, v(9), b"x");
        a.message(
            1,
            t0 + ms(1600),
            1_002_000,
            Judged::Invalid(MessageFailureKind::GraphqlError),
            b"{\"errors\":1}",
        );
        b.message(0, t0 + ms(10), 1_003_000, v(3), b"x");
        b.dropped(0, ConnectionFailureKind::Closed, t0 + ms(20), || {
            "bye".into()
        });
        b.dropped(0, ConnectionFailureKind::Closed, t0 + ms(3000), || {
            "late".into()
        });
        a.setup_failed(0, ConnectionFailureKind::Timeout, || "slow".into());
        a.held_series = vec![2, 2];
        b.held_series = vec![0, 0];
        let r = finish(vec![a, b], facts(t0));
        assert_eq!(r.messages_total, 9);
        assert_eq!(r.messages, 8);
        assert_eq!(r.warmup_messages, 1);
        assert_eq!(
            (r.gaps, r.missed, r.duplicates, r.out_of_order),
            (1, 2, 1, 1)
        );
        assert_eq!(r.invalid_messages, 1);
        assert_eq!(r.future_published_at, 1);
        assert_eq!(r.latency.count, 7);
        assert_eq!(r.connections.subscribed, 3);
        assert_eq!(
            r.connections.dropped, 1,
            "the drop after the window is not one"
        );
        assert_eq!(r.connections.dropped_in_window, 1);
        assert_eq!(r.connections.held_at_end, 2);
        assert_eq!(r.connections.setup_failed, 1);
        assert_eq!(r.drops.get(&ConnectionFailureKind::Closed), Some(&1));
        assert_eq!(r.per_connection.connections, 3);
        assert_eq!(r.per_connection.max_per_s, 2.5);
        assert_eq!(r.per_connection.min_per_s, 0.5);
        assert_eq!(r.series.len(), 2);
        assert_eq!(r.series[0].messages, 6);
        assert_eq!(r.series[1].invalid, 1);
        assert_eq!(r.series[1].held, 2);
        assert_eq!(r.failure_examples.len(), 3);
        assert_eq!(r.failure_examples[0].kind, "graphql_error");
        assert_eq!(r.messages_per_s, 4.0);
        let json = serde_json::to_string(&r.drops).unwrap();
        assert_eq!(json, r#"{"closed":1}"#);
        let back: SubscribeResult =
            serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
    }
}
