//! The per-worker recorder of a subscription run: plain counters and histograms owned by
//! one thread (connection events, every message with its sequence checks and delivery
//! latency), merged across workers by the harness once at the end (histograms are merged,
//! never percentiles averaged) and summed up by `summary`.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

use hdrhistogram::Histogram;
use serde::Serialize;

use super::live::{
    ATTEMPTED, DROPPED, HELD, INVALID, LIVE_COUNTERS, MESSAGES, SETUP_FAILED, SUBSCRIBED,
};
use super::result::{
    ConnectionFailureKind, FailureStage, MessageFailureKind, SubscribeFailureExample,
};
use crate::harness::{Merge, Record};
use crate::hist::{self, micros};
use crate::validate::excerpt;

pub(super) const CONN_KINDS: usize = ConnectionFailureKind::ALL.len();
pub(super) const MSG_KINDS: usize = MessageFailureKind::ALL.len();

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
pub(super) struct ConnStat {
    pub(super) last_seq: Option<u64>,
    pub(super) window_messages: u64,
    pub(super) subscribed_at: Option<Instant>,
    pub(super) ended_at: Option<Instant>,
}

#[derive(Debug, Default)]
pub(super) struct Second {
    pub(super) messages: u64,
    pub(super) invalid: u64,
    pub(super) latency: Option<Histogram<u32>>,
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
    pub(super) setup_failures: [u64; CONN_KINDS],
    pub(super) drops: [u64; CONN_KINDS],
    pub(super) dropped_in_window: u64,
    pub(super) message_failures: [u64; MSG_KINDS],
    pub(super) examples: Vec<SubscribeFailureExample>,
    pub(super) connect_time: Histogram<u64>,
    pub messages_total: u64,
    pub(super) messages: u64,
    pub(super) warmup_messages: u64,
    pub(super) latency: Histogram<u64>,
    pub(super) future_published_at: u64,
    pub(super) missed: u64,
    pub(super) gaps: u64,
    pub(super) duplicates: u64,
    pub(super) out_of_order: u64,
    pub(super) bytes_received: u64,
    pub(super) seconds: Vec<Second>,
    /// Held connections at the end of each second of the window (sampled by the ticker).
    pub held_series: Vec<u64>,
    pub(super) conns: Vec<ConnStat>,
    /// Thread CPU time during the window, seconds.
    pub cpu_s: f64,
    /// Held connections when the window ended.
    pub held_at_end: Option<u64>,
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

    /// Subscribed connections held when the window ended (or now, before it ends).
    pub fn final_held(&self) -> u64 {
        self.held_at_end.unwrap_or_else(|| self.held.max(0) as u64)
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
            self.example(FailureStage::Setup, serde_name(kind), slot, detail());
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
            self.example(FailureStage::Drop, serde_name(kind), slot, detail());
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
                    let name = serde_name(kind);
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

/// Wall-clock time, µs since the Unix epoch (publish times are wall-clock).
pub fn wall_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
}

/// The name of a kind as it is serialized (the results' map keys).
fn serde_name(kind: impl Serialize) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

impl Merge for Second {
    fn merge(&mut self, o: Second) {
        self.messages += o.messages;
        self.invalid += o.invalid;
        self.latency.merge(o.latency);
    }
}

impl Merge for SubRecorder {
    /// Another worker's records: its connections are appended (they are other slots).
    fn merge(&mut self, o: SubRecorder) {
        let held_at_end = self.final_held() + o.final_held();
        self.held_at_end = Some(held_at_end);
        self.attempted += o.attempted;
        self.connected += o.connected;
        self.subscribed += o.subscribed;
        self.held += o.held;
        self.setup_failures.merge(o.setup_failures);
        self.drops.merge(o.drops);
        self.dropped_in_window += o.dropped_in_window;
        self.message_failures.merge(o.message_failures);
        self.examples.extend(o.examples);
        self.connect_time.merge(o.connect_time);
        self.messages_total += o.messages_total;
        self.messages += o.messages;
        self.warmup_messages += o.warmup_messages;
        self.latency.merge(o.latency);
        self.future_published_at += o.future_published_at;
        self.missed += o.missed;
        self.gaps += o.gaps;
        self.duplicates += o.duplicates;
        self.out_of_order += o.out_of_order;
        self.bytes_received += o.bytes_received;
        self.seconds.merge(o.seconds);
        self.held_series.merge(o.held_series);
        self.conns.extend(o.conns);
        self.cpu_s += o.cpu_s;
    }
}

impl Record<LIVE_COUNTERS> for SubRecorder {
    fn progress(&self) -> [i64; LIVE_COUNTERS] {
        let mut c = [0; LIVE_COUNTERS];
        c[ATTEMPTED] = self.attempted as i64;
        c[SUBSCRIBED] = self.subscribed as i64;
        c[HELD] = self.held;
        c[SETUP_FAILED] = self.setup_failures.iter().sum::<u64>() as i64;
        c[DROPPED] = self.drops.iter().sum::<u64>() as i64;
        c[MESSAGES] = self.messages as i64;
        c[INVALID] = self.message_failures.iter().sum::<u64>() as i64;
        c
    }

    fn set_cpu(&mut self, cpu_s: f64) {
        self.cpu_s = cpu_s;
    }
}

#[cfg(test)]
mod tests;
