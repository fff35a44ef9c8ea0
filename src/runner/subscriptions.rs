//! One subscription trial: open the scenario's connections, subscribe each, hold them for
//! the warm-up and the measured window while the server publishes, and record what arrived
//! (engine), the server's vitals over the window, and its memory per 1,000 subscriptions.
use std::time::Duration;

use gqlbench_engine::{
    run_subscriptions, SubscribeControl, SubscribePhase, SubscribePlan, SubscribeResult,
    SubscribeTransport,
};

use super::session::Session;
use super::vitals::{self, Sampler};
use super::RunContext;
use crate::catalog::scenario::Transport;
use crate::plan::{RunPlan, ScenarioPlan, SubscriptionsPlan};
use crate::progress::Progress;
use crate::results::*;
use crate::saturation::GENERATOR_CPU_LIMIT;
use crate::stats;

/// Where the publish time (ms since the Unix epoch) and the sequence number sit in each
/// message of the `ticks` subscription (scenarios/queries/subscriptions/ticks.graphql).
const PUBLISHED_AT: &str = "/data/ticks/publishedAt";
const SEQ: &str = "/data/ticks/seq";

#[allow(clippy::too_many_arguments)]
pub fn run_trial(
    sp: &ScenarioPlan,
    sub: &SubscriptionsPlan,
    plan: &RunPlan,
    ctx: &RunContext,
    sess: &mut Session,
    trial: u32,
    position: u32,
    label: &str,
    progress: &mut Progress,
) -> TrialResult {
    let started_at = now_rfc3339();
    let (_, rss_before, _) = vitals::read(sess.process.pid, sess.cgroup.as_deref());
    let rss_before = rss_before.unwrap_or(0);
    let mut p = SubscribePlan::new(
        sess.endpoint.clone(),
        match sub.transport {
            Transport::Ws => SubscribeTransport::WebSocket,
            Transport::Sse => SubscribeTransport::Sse,
        },
        &sub.document,
    );
    p.connections = sp.load.connections;
    p.connect_rate = sub.connect_rate;
    p.warmup = sp.warmup;
    p.hold = sp.duration;
    p.published_at_pointer = Some(PUBLISHED_AT.into());
    p.seq_pointer = Some(SEQ.into());
    p.ack_timeout = Duration::from_secs_f64(sp.load.timeout_s.max(1.0));
    let cores = plan
        .isolation
        .generator
        .as_ref()
        .map(|c| c.0.len())
        .unwrap_or(1)
        .max(1);
    p.threads = cores;
    p.cpus = plan.isolation.generator.as_ref().map(|c| c.0.clone());
    let control = SubscribeControl::with_cancel(ctx.cancel.clone());
    let live = control.live.clone();
    let (l1, l2) = (live.clone(), live.clone());
    // Vitals cover the measured window only: every subscription is open by then.
    let sampler = Sampler::start(
        sess.process.pid,
        sess.cgroup.clone(),
        sess.gc_file.clone(),
        Duration::from_millis(200),
        Box::new(move || matches!(l1.phase(), SubscribePhase::Measure | SubscribePhase::Done)),
        Box::new(move || l2.phase() == SubscribePhase::Done),
    );
    let secs =
        (sp.warmup + sp.duration).as_secs_f64() + p.connections as f64 / p.connect_rate.max(1.0);
    let l3 = live.clone();
    let outcome = progress.follow_with(
        label,
        secs,
        move || match l3.phase() {
            SubscribePhase::Connecting => format!("subscribing ({})", l3.subscribed()),
            SubscribePhase::Warmup => format!("warm-up, {} held", l3.held()),
            SubscribePhase::Measure => {
                format!("{} held, {} messages", l3.held(), l3.messages())
            }
            _ => String::new(),
        },
        || run_subscriptions(&p, &control),
    );
    let mut vitals = sampler.finish();
    vitals.verified_cpus = sess.verified_cpus.clone();
    let mut problems = Vec::new();
    let engine = match outcome {
        Ok(r) => r,
        Err(e) => {
            problems.push(format!("engine: {e}"));
            SubscribeResult::default()
        }
    };
    let c = &engine.connections;
    if c.setup_failed > 0 {
        problems.push(format!(
            "{} of {} connections could not subscribe",
            c.setup_failed, c.attempted
        ));
    }
    if c.dropped > 0 {
        problems.push(format!(
            "{} subscriptions were dropped ({})",
            c.dropped,
            engine
                .drops
                .iter()
                .map(|(k, n)| format!("{} {n}", crate::report::snake_name(k)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if engine.invalid_messages > 0 {
        problems.push(format!("{} invalid messages", engine.invalid_messages));
    }
    if engine.messages == 0 && problems.is_empty() {
        problems.push("no message arrived in the measured window".into());
    }
    if let Some(st) = sess.process.exited() {
        problems.push(format!("target exited ({st})"));
    }
    if engine.interrupted {
        problems.push("interrupted".into());
    }
    let generator = GeneratorUsage::measure(engine.generator_cpu_s, engine.elapsed_s, cores);
    let mut saturation = Vec::new();
    if generator.utilization > GENERATOR_CPU_LIMIT {
        saturation.push(SaturationFlag {
            kind: "generator_cpu".into(),
            detail: format!(
                "the generator used {:.0}% of its {} core(s): delivery figures may be the generator's",
                generator.utilization * 100.0,
                cores
            ),
        });
    }
    let held = c.held_at_end;
    let rss_held = vitals.rss_avg_bytes;
    let memory_per_1000_bytes = (held > 0 && rss_held > 0)
        .then(|| (rss_held.saturating_sub(rss_before) as f64 / held as f64 * 1000.0) as u64);
    let load = gqlbench_engine::LoadResult {
        elapsed_s: engine.elapsed_s,
        ..Default::default()
    };
    TrialResult {
        trial,
        position,
        started_at,
        valid: problems.is_empty(),
        problems,
        load,
        vitals,
        generator,
        saturation,
        upstream: None,
        sweep: None,
        database: None,
        subscriptions: Some(SubscriptionUsage {
            engine,
            rss_before_bytes: rss_before,
            rss_held_bytes: rss_held,
            memory_per_1000_bytes,
        }),
    }
}

/// Medians over the trials' subscription figures, latency histograms merged.
pub fn summarize(t: &TargetResult, connections: u32) -> Option<SubscriptionSummary> {
    let subs: Vec<&SubscriptionUsage> = t
        .trials
        .iter()
        .filter_map(|x| x.subscriptions.as_ref())
        .collect();
    if subs.is_empty() {
        return None;
    }
    let mut merged = gqlbench_engine::new_latency();
    for s in &subs {
        if let Ok(h) = gqlbench_engine::decode_hist(&s.engine.latency_hist) {
            // Same bounds everywhere (new_latency), so adding cannot fail in practice.
            let _ = merged.add(&h);
        }
    }
    let mem: Vec<f64> = subs
        .iter()
        .filter_map(|s| s.memory_per_1000_bytes.map(|m| m as f64))
        .collect();
    Some(SubscriptionSummary {
        connections,
        held: stats::estimate(
            &subs
                .iter()
                .map(|s| s.engine.connections.held_at_end as f64)
                .collect::<Vec<_>>(),
        ),
        dropped: subs.iter().map(|s| s.engine.connections.dropped).sum(),
        msgs_per_conn_s: stats::estimate(
            &subs
                .iter()
                .map(|s| s.engine.per_connection.mean_per_s)
                .collect::<Vec<_>>(),
        ),
        latency: gqlbench_engine::summarize_hist(&merged),
        memory_per_1000_bytes: (!mem.is_empty()).then(|| stats::estimate(&mem)),
        gaps: subs.iter().map(|s| s.engine.missed).sum(),
    })
}
