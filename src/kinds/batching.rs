//! Batched requests, a decorating kind: every request carries `size` operations in a JSON
//! array, as Apollo Client's BatchHttpLink sends them (up to 10 operations or 10 ms by
//! default), and every element of every answer is checked against its own expected data
//! (a short batch, a wrong or failed element makes the request a failure). Targets are
//! started with GQLBENCH_BATCHING=<size> so that each turns on its server's batching (it is
//! off by default everywhere); a target whose server cannot batch says so in its
//! `[unsupported]` table and is listed, not run.
//!
//! The load and its figures are the inner kind's, counted per request (per batch); this
//! kind adds the per-operation view: operations per second (requests × size) and the
//! latency each operation waited (its batch's).
use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;
use serde::Deserialize;

use crate::catalog::forms::OperationForm;
use crate::kind::{Kind, KindDef, ResolveCx};
use crate::results::{Key, ScenarioResult};
use crate::view::cells::{dash, not_installed};
use crate::view::Table;

/// `batch_size` of a scenario: operations per request.
pub const SIZE: Key<usize> = Key::new("batch_size");

/// The environment variable that asks a target for batching of at least this size.
pub const ENV: &str = "GQLBENCH_BATCHING";

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    list: |v, _, line| {
        format!(
            "{line}, batches of {}",
            v.get("size").and_then(|l| l.as_integer()).unwrap_or(0)
        )
    },
    not_in_k6: Some(
        "a batch's answer is an array of responses; the k6 export checks one response per request",
    ),
    ..KindDef::decorator("batching", resolve)
};

/// `[batching]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct BatchingSpec {
    /// Operations per request (2 to 100; Apollo Client's default maximum is 10).
    pub size: usize,
}

/// The largest batch a scenario may ask for: beyond what any client sends by default, and
/// far below the engine's bound.
pub const MAX_SIZE: usize = 100;

/// Batching around the kind it decorates.
#[derive(Debug)]
pub struct Batching {
    pub size: usize,
    inner: Arc<dyn Kind>,
}

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<BatchingSpec>("batching")?, inner) else {
        return Ok(None);
    };
    if !(2..=MAX_SIZE).contains(&spec.size) {
        return Err(cx
            .bad(format!(
                "[batching] size = {}: a batch holds 2 to {MAX_SIZE} operations",
                spec.size
            ))
            .into());
    }
    if !inner.reads_operations() {
        return Err(cx
            .bad("[batching] needs queries with expected answers (not subscriptions)".into())
            .into());
    }
    Ok(Some(Arc::new(Batching {
        size: spec.size,
        inner,
    })))
}

impl Kind for Batching {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn alternates(&self) -> bool {
        self.inner.alternates()
    }

    fn form(&self) -> OperationForm {
        OperationForm {
            batch: Some(self.size),
            ..self.inner.form()
        }
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(&SIZE, &self.size);
    }

    fn env(&self, env: &mut BTreeMap<String, String>) {
        self.inner.env(env);
        env.insert(ENV.into(), self.size.to_string());
    }
}

/// Per request and per operation, for each measured target.
fn table(s: &ScenarioResult) -> Option<Table> {
    let size = s.by_kind.get(&SIZE)?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !not_installed(t))
        .map(|t| {
            let sum = t.summary.as_ref().filter(|x| x.valid_trials > 0);
            let rps = sum.map(|x| x.rps.center_or_median());
            let ms = |us: u64| crate::units::fmt_ms(us as f64);
            vec![
                t.name.clone(),
                rps.map(|r| format!("{r:.0}")).unwrap_or_else(dash),
                rps.map(|r| format!("{:.0}", r * size as f64))
                    .unwrap_or_else(dash),
                sum.map(|x| ms(x.latency.p50_us)).unwrap_or_else(dash),
                sum.map(|x| ms(x.latency.p99_us)).unwrap_or_else(dash),
            ]
        })
        .collect();
    Some(Table {
        title: format!(
            "batches of {size} operations per request: every element of every answer checked; an operation waits as long as its batch"
        ),
        headers: [
            "target",
            "batches/s",
            "operations/s",
            "p50 ms (batch = each operation)",
            "p99 ms",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{TargetResult, TargetSummary};

    #[test]
    fn the_table_counts_operations_per_batch() {
        let mut s = ScenarioResult::default();
        assert!(table(&s).is_none(), "no table without a batch size");
        s.by_kind.set(&SIZE, &10);
        let mut t = TargetResult::new("yoga".into(), Default::default());
        let mut sum = TargetSummary {
            valid_trials: 3,
            ..Default::default()
        };
        sum.rps.center = 1234.0;
        sum.rps.median = 1200.0;
        sum.latency.p50_us = 1500;
        t.summary = Some(sum);
        s.targets.push(t);
        let tb = table(&s).unwrap();
        assert_eq!(tb.rows[0][1], "1234");
        assert_eq!(tb.rows[0][2], "12340");
        assert!(tb.title.contains("batches of 10"));
    }
}
