//! Incremental delivery (`@defer`, `@stream`), a decorating kind. An operation whose
//! document uses either directive is sent with an `Accept` header asking for parts, over
//! the section's `transport`: `multipart/mixed` (the default, what every server here with
//! @defer answers) or `text/event-stream` (`sse`: GraphQL over SSE, as Yoga and Hive
//! Gateway serve it). Its parts (or events) are read as they arrive: each checked in
//! order, their merged `data` judged against the expected answer (the same query's without
//! the directives), the time to the first part recorded beside the time to the last (the
//! latency). This kind starts targets with GQLBENCH_INCREMENTAL=1, so that each turns on
//! its server's incremental delivery (a plugin in Yoga, `deferStream` in Hive Gateway;
//! Apollo Router has it on by default). It also adds the report's table that sets each
//! deferred operation beside the same query without `@defer`, measured in the same load,
//! its title naming the transport.
use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;
use gqlbench_engine::LatencySummary;
use serde::{Deserialize, Serialize};

use crate::catalog::forms::OperationForm;
use crate::catalog::incremental::Transport;
use crate::kind::{Kind, KindDef, ResolveCx};
use crate::results::{Key, ScenarioResult, TargetResult};
use crate::view::cells::{dash, not_installed};
use crate::view::Table;

/// The pairs compared: deferred operation -> the same query without `@defer`.
pub const PAIRS: Key<BTreeMap<String, String>> = Key::new("incremental");

/// The transport the parts came over (`multipart` or `sse`); absent in results written
/// before SSE was measured, which all came over multipart.
pub const TRANSPORT: Key<String> = Key::new("incremental_transport");

/// The environment variable that asks a target for incremental delivery.
pub const ENV: &str = "GQLBENCH_INCREMENTAL";

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    list: |section, _, line| match section.get("transport").and_then(|t| t.as_str()) {
        Some("sse") => format!("{line}, incremental events (SSE) timed"),
        _ => format!("{line}, incremental parts timed"),
    },
    // Its targets serve @defer only when started with its environment; its run checks
    // every answer of every target before the load, as `check` would.
    skip_in_check: crate::kind::always,
    not_in_k6: Some(
        "k6 cannot read multipart/mixed parts or SSE events as they arrive (grafana/k6#4086), so it cannot time the first part",
    ),
    ..KindDef::decorator("incremental", resolve)
};

/// `[incremental]`.
#[derive(Deserialize, Serialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct IncrementalSpec {
    /// Each deferred operation of the scenario, and the same query without `@defer`, also
    /// one of its operations.
    pub compare: BTreeMap<String, String>,
    /// How the parts are asked for: "multipart" (the default) or "sse".
    #[serde(default)]
    pub transport: Option<String>,
}

#[derive(Debug)]
pub struct Incremental {
    pub compare: BTreeMap<String, String>,
    pub transport: Transport,
    inner: Arc<dyn Kind>,
}

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<IncrementalSpec>("incremental")?, inner) else {
        return Ok(None);
    };
    let transport = match spec.transport.as_deref() {
        None => Transport::default(),
        Some(name) => Transport::parse(name).ok_or_else(|| {
            cx.bad(format!(
                "[incremental] transport: '{name}' is not a transport; give {}",
                Transport::NAMES
            ))
        })?,
    };
    let ops = &cx.def.file.operations;
    let named = |n: &str| ops.iter().any(|o| o.name == n);
    for (deferred, plain) in &spec.compare {
        for name in [deferred, plain] {
            if !named(name) {
                return Err(cx
                    .bad(format!(
                        "[incremental] compare: '{name}' is not one of the scenario's [[operations]]"
                    ))
                    .into());
            }
        }
        let incremental = |n: &str| {
            cx.cat
                .operation(n)
                .map(|o| o.incremental)
                .map_err(|e| cx.bad(format!("[incremental] compare: '{n}': {e:#}")))
        };
        if !incremental(deferred)? || incremental(plain)? {
            return Err(cx
                .bad(format!(
                    "[incremental] compare: '{deferred}' must use @defer or @stream and '{plain}' neither"
                ))
                .into());
        }
    }
    Ok(Some(Arc::new(Incremental {
        compare: spec.compare,
        transport,
        inner,
    })))
}

impl Kind for Incremental {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn alternates(&self) -> bool {
        self.inner.alternates()
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(&PAIRS, &self.compare);
        s.by_kind
            .set(&TRANSPORT, &self.transport.name().to_string());
    }

    fn form(&self) -> OperationForm {
        OperationForm {
            incremental: self.transport,
            ..self.inner.form()
        }
    }

    fn env(&self, env: &mut BTreeMap<String, String>) {
        self.inner.env(env);
        env.insert(ENV.into(), "1".into());
    }
}

/// The median over a target's valid trials of a figure of one operation.
fn median_of(
    t: &TargetResult,
    op: &str,
    f: impl Fn(&LatencySummary) -> u64,
    first: bool,
) -> Option<f64> {
    let v: Vec<f64> = t
        .trials
        .iter()
        .filter(|x| x.valid)
        .filter_map(|x| x.load.per_operation.get(op))
        .filter_map(|c| {
            if first {
                c.first_part.as_ref()
            } else {
                c.latency.as_ref()
            }
        })
        .map(|l| f(l) as f64)
        .collect();
    (!v.is_empty()).then(|| crate::stats::median(&v))
}

/// Per target and deferred operation: first part, last part, and the plain query.
fn table(s: &ScenarioResult) -> Option<Table> {
    let pairs = s.by_kind.get(&PAIRS)?;
    let over = match s.by_kind.get(&TRANSPORT).as_deref() {
        Some("sse") => "over SSE (text/event-stream, each part a next event)",
        _ => "over multipart/mixed",
    };
    let ms = |v: Option<f64>| v.map(crate::units::fmt_ms).unwrap_or_else(dash);
    let mut rows = Vec::new();
    for t in s.targets.iter().filter(|t| !not_installed(t)) {
        for (deferred, plain) in &pairs {
            let p50 = |l: &LatencySummary| l.p50_us;
            let p99 = |l: &LatencySummary| l.p99_us;
            rows.push(vec![
                t.name.clone(),
                deferred.clone(),
                ms(median_of(t, deferred, p50, true)),
                ms(median_of(t, deferred, p99, true)),
                ms(median_of(t, deferred, p50, false)),
                ms(median_of(t, deferred, p99, false)),
                ms(median_of(t, plain, p50, false)),
                ms(median_of(t, plain, p99, false)),
            ]);
        }
    }
    Some(Table {
        title: format!("incremental delivery {over}: time to the first part and to the last, beside the same query without @defer in the same load (medians over valid trials; every part checked, the merged answer judged)"),
        headers: [
            "target",
            "operation",
            "first part p50 ms",
            "first part p99 ms",
            "last part p50 ms",
            "last part p99 ms",
            "without @defer p50 ms",
            "without @defer p99 ms",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
