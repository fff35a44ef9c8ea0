//! Subscriptions: each trial opens the scenario's connections, subscribes each (graphql-ws
//! over WebSocket, or server-sent events), holds them for the warm-up and the measured
//! window while the server publishes, and records what arrived (engine), the server's
//! vitals over the window, and its memory per 1,000 subscriptions.
mod report;
mod trial;

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
use report::*;
use trial::*;

/// Where the publish time (ms since the Unix epoch) and the sequence number sit in each
/// message of the `ticks` subscription (scenarios/queries/subscriptions/ticks.graphql).
const PUBLISHED_AT: &str = "/data/ticks/publishedAt";
const SEQ: &str = "/data/ticks/seq";

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
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
    load_line,
    ..KindDef::base("subscriptions", resolve)
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

#[cfg(test)]
mod tests;
