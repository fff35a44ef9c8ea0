//! Subscriptions: each trial opens the scenario's connections, subscribes each (graphql-ws
//! over WebSocket, or server-sent events), holds them for the warm-up and the measured
//! window while the server publishes, and records what arrived (engine), the server's
//! vitals over the window, and its memory per 1,000 subscriptions.
mod record;

pub use record::*;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use gqlbench_engine::{
    run_subscriptions, SubscribeControl, SubscribePhase, SubscribePlan, SubscribeResult,
    SubscribeTransport,
};

use crate::kind::ScenarioPlan;
use crate::kind::{Kind, KindDef, ResolveCx, TrialCx};
use crate::measure::vitals::{self, Sampler};
use crate::results::*;
use crate::saturation::GENERATOR_CPU_LIMIT;
use crate::stats;
use crate::view::Table;

/// Where the publish time (ms since the Unix epoch) and the sequence number sit in each
/// message of the `ticks` subscription (scenarios/queries/subscriptions/ticks.graphql).
const PUBLISHED_AT: &str = "/data/ticks/publishedAt";
const SEQ: &str = "/data/ticks/seq";

pub const DEF: KindDef = KindDef {
    section: "subscriptions",
    resolve,
    decorator: false,
    tables: |s| table(s).into_iter().collect(),
    charts: crate::kind::no_charts,
    html,
    list: |v, f, _| {
        format!(
            "{} subscriptions ({})",
            f.load.connections.unwrap_or(100),
            v.get("transport").and_then(|t| t.as_str()).unwrap_or("-")
        )
    },
    skip_in_check: crate::kind::always,
    not_in_k6: Some(
        "subscriptions hold WebSocket/SSE streams and count ticks, not request/response pairs",
    ),
};

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// graphql-ws (`graphql-transport-ws` subprotocol) over WebSocket.
    Ws,
    /// GraphQL over server-sent events.
    Sse,
}

impl Transport {
    /// The name used in scenario files and reports.
    pub fn label(self) -> &'static str {
        match self {
            Transport::Ws => "ws",
            Transport::Sse => "sse",
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct SubscriptionsSpec {
    pub transport: Transport,
    /// Messages per second the server publishes (each subscriber receives every one).
    pub publish_rate: f64,
    /// Connections opened per second while connecting.
    #[serde(default = "connect_rate")]
    pub connect_rate: f64,
}

fn connect_rate() -> f64 {
    2000.0
}

/// Held subscriptions of a scenario: how, how fast, and the document subscribed.
#[derive(Debug, Clone)]
pub struct Subscriptions {
    pub transport: Transport,
    pub publish_rate: f64,
    pub connect_rate: f64,
    pub operation: String,
    pub document: String,
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let Some(spec): Option<SubscriptionsSpec> = cx.spec("subscriptions")? else {
        return Ok(None);
    };
    if !(spec.publish_rate > 0.0 && spec.connect_rate > 0.0) {
        return Err(cx
            .bad(format!(
                "[subscriptions] `publish_rate` and `connect_rate` must be above zero (got {} and {})",
                spec.publish_rate, spec.connect_rate
            ))
            .into());
    }
    // A subscription has no expected answer file: every message is checked for its fields.
    let o = &cx.def.file.operations[0];
    let document = cx
        .cat
        .document(&o.name)
        .map_err(|e| cx.bad(format!("operation '{}': {e:#}", o.name)))?;
    Ok(Some(Arc::new(Subscriptions {
        transport: spec.transport,
        publish_rate: spec.publish_rate,
        connect_rate: spec.connect_rate,
        operation: o.name.clone(),
        document,
    })))
}

impl Kind for Subscriptions {
    fn adaptive_rounds(&self) -> bool {
        false
    }

    fn describe(&self, s: &mut ScenarioResult) {
        s.kind = ScenarioKind::Subscriptions;
        s.operations = vec![OperationInfo {
            name: self.operation.clone(),
            weight: 1,
            cases: 1,
        }];
        s.by_kind.set(
            &INFO,
            &SubscriptionsInfo {
                transport: self.transport.label().into(),
                publish_rate: self.publish_rate,
                connect_rate: self.connect_rate,
                operation: self.operation.clone(),
            },
        );
    }

    fn reads_operations(&self) -> bool {
        false
    }

    fn env(&self, env: &mut std::collections::BTreeMap<String, String>) {
        env.insert(
            "GQLBENCH_PUBLISH_RATE".into(),
            self.publish_rate.to_string(),
        );
    }

    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        run_trial(cx, self)
    }

    fn summarize(&self, sp: &ScenarioPlan, tr: &mut TargetResult) {
        let x = summarize(tr, sp.load.connections());
        if let Some(sum) = tr.summary.as_mut() {
            sum.subscriptions = x;
        }
    }

    fn trial_line(&self, label: &str, t: &TrialResult) -> String {
        let Some(sub) = &t.subscriptions else {
            return crate::kind::load::trial_line(label, t);
        };
        let e = &sub.engine;
        format!(
            "  {label}: {} of {} held, {:.2} msg/s per connection, p99 {:.1} ms, {} dropped{}",
            e.connections.held_at_end,
            e.connections.attempted,
            e.per_connection.mean_per_s,
            e.latency.p99_us as f64 / 1000.0,
            e.connections.dropped,
            if t.valid { "" } else { " [INVALID]" }
        )
    }
}

fn run_trial(cx: &mut TrialCx<'_>, sub: &Subscriptions) -> TrialResult {
    let (sp, plan, ctx, trial, position, label) =
        (cx.sp, cx.plan, cx.ctx, cx.trial, cx.position, cx.label);
    let (sess, progress) = (&mut *cx.sess, &mut *cx.progress);
    let started_at = now_rfc3339();
    let (_, rss_before, _) = vitals::read(sess.process.pid, sess.cgroup.as_deref());
    let mut p = SubscribePlan::new(
        sess.endpoint.clone(),
        match sub.transport {
            Transport::Ws => SubscribeTransport::WebSocket,
            Transport::Sse => SubscribeTransport::Sse,
        },
        &sub.document,
    );
    p.connections = sp.load.connections();
    p.connect_rate = sub.connect_rate;
    p.warmup = sp.warmup;
    p.hold = sp.duration;
    p.published_at_pointer = Some(PUBLISHED_AT.into());
    p.seq_pointer = Some(SEQ.into());
    p.ack_timeout = sp.load.timeout.max(Duration::from_secs(1));
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
                .map(|(k, n)| format!("{} {n}", crate::units::snake_name(k)))
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
    let generator = GeneratorUsage::measure(
        engine.generator_cpu_s,
        engine.elapsed_s,
        crate::sys::cpus::generator_cores(plan.isolation.generator.as_ref(), cores),
    );
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
    let memory_per_1000_bytes = memory_per_1000(rss_before, rss_held, held);
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
        tracing: None,
        sweep: None,
        database: None,
        warmup: None,
        noise: None,
        excluded: None,
        subscriptions: Some(SubscriptionUsage {
            engine,
            rss_before_bytes: rss_before,
            rss_held_bytes: rss_held,
            memory_per_1000_bytes,
        }),
        by_kind: Default::default(),
    }
}

/// Memory per 1,000 held subscriptions: (held − before) scaled; None unless both figures
/// were read (an unread "before" taken as 0 would count the whole server as subscriptions).
fn memory_per_1000(before: Option<u64>, held_rss: Option<u64>, held: u64) -> Option<u64> {
    let (before, held_rss) = (before?, held_rss?);
    (held > 0).then(|| (held_rss.saturating_sub(before) as f64 / held as f64 * 1000.0) as u64)
}

/// Medians over the trials' subscription figures, latency histograms merged.
fn summarize(t: &TargetResult, connections: u32) -> Option<SubscriptionSummary> {
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

/// Subscriptions: held connections, delivery, latency, memory per 1,000.
fn table(s: &ScenarioResult) -> Option<Table> {
    let info = s.by_kind.get(&INFO)?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !crate::view::cells::not_installed(t))
        .map(
            |t| match t.summary.as_ref().and_then(|x| x.subscriptions.as_ref()) {
                None => vec![
                    t.name.clone(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::dash(),
                    crate::view::cells::validity(t),
                ],
                Some(x) => vec![
                    t.name.clone(),
                    format!("{:.0} / {}", x.held.median, x.connections),
                    x.dropped.to_string(),
                    format!("{:.2}", x.msgs_per_conn_s.median),
                    format!(
                        "{} / {} / {}",
                        crate::units::fmt_ms(x.latency.p50_us as f64),
                        crate::units::fmt_ms(x.latency.p99_us as f64),
                        crate::units::fmt_ms(x.latency.max_us as f64)
                    ),
                    x.gaps.to_string(),
                    match &x.memory_per_1000_bytes {
                        Some(m) => crate::units::fmt_bytes(m.median as u64),
                        // Subscriptions were held but the server's memory was not read.
                        None if x.held.median > 0.0 => crate::units::UNMEASURED.into(),
                        None => crate::view::cells::dash(),
                    },
                    crate::view::cells::validity(t),
                ],
            },
        )
        .collect();
    Some(Table {
        title: format!(
            "subscriptions over {}: the server publishes {} msg/s to every subscriber",
            info.transport, info.publish_rate
        ),
        headers: [
            "target",
            "held / opened",
            "dropped",
            "msg/s per connection",
            "delivery p50 / p99 / max ms",
            "missed (seq gaps)",
            "memory per 1,000 subscriptions",
            "validity",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Subscriptions in report.html: the delivery latency distribution of each target's merged
/// histograms, and the messages received and subscriptions held second by second.
fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    use crate::view::xy::{Marker, Series, XAxis, Xy, YAxis};
    use crate::view::{color_of, legend, scale, Figure};
    if !s.by_kind.has(&INFO) {
        return Vec::new();
    }
    let mut latency = Xy::new(
        "percentile",
        "delivery latency (ms, log scale)",
        XAxis::Percentile,
        YAxis::Log,
    );
    let mut messages = Xy::new(
        "seconds into the measured window",
        "messages received per second",
        XAxis::Linear { from_zero: true },
        YAxis::Linear { from_zero: true },
    );
    let mut held = Xy::new(
        "seconds into the measured window",
        "subscriptions held",
        XAxis::Linear { from_zero: true },
        YAxis::Linear { from_zero: true },
    );
    let mut drawn = Vec::new();
    for t in &s.targets {
        let c = color_of(s, t);
        let subs: Vec<&SubscriptionUsage> = crate::summary::counted_trials(t)
            .into_iter()
            .filter_map(|x| x.subscriptions.as_ref())
            .collect();
        if subs.is_empty() {
            continue;
        }
        drawn.push(t.name.clone());
        let mut merged = gqlbench_engine::new_latency();
        for u in &subs {
            if let Ok(h) = gqlbench_engine::decode_hist(&u.engine.latency_hist) {
                // Same bounds everywhere (new_latency), so adding cannot fail in practice.
                let _ = merged.add(&h);
            }
            let series = &u.engine.series;
            let marker = if series.len() < 3 {
                Marker::Dot
            } else {
                Marker::None
            };
            let per_s = |f: fn(&gqlbench_engine::SubscribeSecond) -> u64| {
                series.iter().map(|p| (p.t_s as f64, f(p) as f64)).collect()
            };
            messages
                .series
                .push(Series::line(c, per_s(|p| p.messages)).marked(marker));
            held.series
                .push(Series::line(c, per_s(|p| p.held)).marked(marker));
        }
        if !merged.is_empty() {
            let pts = scale::nines_points(scale::nines_extent(merged.len()))
                .into_iter()
                .map(|x| {
                    let us = merged.value_at_quantile(scale::quantile_at(x));
                    (x, us as f64 / 1000.0)
                })
                .collect();
            latency.series.push(Series::line(c, pts));
        }
    }
    let legend = legend(s, |t| drawn.contains(&t.name));
    [
        Figure::of(
            "subscription-latency",
            "Subscription delivery latency (merged histograms)",
            "Delivery latency (receive time minus the publishedAt the server put in each message, same clock) at each percentile, from the histograms of every counted trial merged: trials[].subscriptions.engine.latency_hist. 90%, 99% and 99.9% get equal room.",
            legend.clone(),
            latency,
        ),
        Figure::of(
            "subscription-messages",
            "Messages received second by second, each trial",
            "Messages (valid and invalid) the engine received over all held subscriptions in each second of the window, one line per counted trial: trials[].subscriptions.engine.series[].messages. Steady at publish rate × subscriptions when the server keeps up.",
            legend.clone(),
            messages,
        ),
        Figure::of(
            "subscription-held",
            "Subscriptions held second by second, each trial",
            "Subscribed connections still open at the end of each second of the window, one line per counted trial: trials[].subscriptions.engine.series[].held. A falling line is a server dropping subscribers.",
            legend,
            held,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

#[cfg(test)]
mod tests {
    use super::memory_per_1000;

    #[test]
    fn memory_per_subscription_needs_both_readings() {
        let mib = 1u64 << 20;
        // 10 MiB more for 2,000 held subscriptions: 5 MiB per 1,000.
        assert_eq!(
            memory_per_1000(Some(100 * mib), Some(110 * mib), 2000),
            Some(5 * mib)
        );
        // An unread "before" is not 0: the whole server would count as subscriptions.
        assert_eq!(memory_per_1000(None, Some(110 * mib), 2000), None);
        assert_eq!(memory_per_1000(Some(100 * mib), None, 2000), None);
        assert_eq!(memory_per_1000(Some(100 * mib), Some(110 * mib), 0), None);
    }
}
