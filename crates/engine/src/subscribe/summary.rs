//! Sums up the merged records of a subscription run into its [`SubscribeResult`]: counts by
//! kind, the first few failure examples of each kind, histograms encoded, per-connection
//! message rates and the per-second series.

use std::time::{Duration, Instant};

use super::record::SubRecorder;
use super::result::{
    ConnectionFailureKind, MessageFailureKind, PerConnectionRate, SubscribeResult, SubscribeSecond,
};
use crate::harness::merge::{by_kind, keep_first};
use crate::hist;

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

/// The result of the run from every worker's records, merged.
pub fn finish(rec: SubRecorder, facts: SubscribeFacts) -> SubscribeResult {
    let mut r = SubscribeResult {
        transport: facts.transport.to_string(),
        connect_phase_s: facts.connect_phase.as_secs_f64(),
        connect_phase_timed_out: facts.connect_phase_timed_out,
        elapsed_s: facts.elapsed.as_secs_f64(),
        threads: facts.threads,
        pinned_cpus: facts.pinned_cpus,
        interrupted: facts.interrupted,
        messages_total: rec.messages_total,
        messages: rec.messages,
        warmup_messages: rec.warmup_messages,
        future_published_at: rec.future_published_at,
        missed: rec.missed,
        gaps: rec.gaps,
        duplicates: rec.duplicates,
        out_of_order: rec.out_of_order,
        bytes_received: rec.bytes_received,
        generator_cpu_s: rec.cpu_s,
        ..SubscribeResult::default()
    };
    let c = &mut r.connections;
    c.attempted = rec.attempted;
    c.connected = rec.connected;
    c.subscribed = rec.subscribed;
    c.held_at_end = rec.final_held();
    c.dropped_in_window = rec.dropped_in_window;
    c.setup_failed = rec.setup_failures.iter().sum();
    c.dropped = rec.drops.iter().sum();
    c.pending_at_end = c.attempted.saturating_sub(c.subscribed + c.setup_failed);
    // Messages of each connection subscribed at some time in the window.
    let mut rates = Vec::new();
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
    r.setup_failures = by_kind(&ConnectionFailureKind::ALL, &rec.setup_failures, |k| {
        k.index()
    });
    r.drops = by_kind(&ConnectionFailureKind::ALL, &rec.drops, |k| k.index());
    r.message_failures = by_kind(&MessageFailureKind::ALL, &rec.message_failures, |k| {
        k.index()
    });
    r.invalid_messages = rec.message_failures.iter().sum();
    // The first `keep_examples` of each stage and kind over all workers.
    r.failure_examples = keep_first(rec.examples, facts.keep_examples, |e| {
        (e.stage, e.kind.clone())
    });
    r.connect_time = hist::summarize(&rec.connect_time);
    r.connect_time_hist = hist::encode_hist(&rec.connect_time);
    r.latency = hist::summarize(&rec.latency);
    r.latency_hist = hist::encode_hist(&rec.latency);
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
    let (seconds, held_series) = (&rec.seconds, &rec.held_series);
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
