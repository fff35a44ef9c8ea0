//! Many distinct operations, a decorating kind: each of the scenario's operations is sent
//! as `count` distinct documents (`catalog::distinct`: its root fields aliased per copy),
//! taken in turn, so caches keyed by the document (parse and validation caches, a
//! gateway's query plans, an APQ store) hold one entry per copy and, with more copies than
//! they hold, miss. Every answer is still checked against its case's, renamed alike.
//! Published benchmarks repeat one document; Grafbase's "many-plans" is the one peer that
//! does not.
use std::sync::Arc;

use anyhow::Result;
use serde::Deserialize;

use crate::catalog::distinct::{copies, MAX_COPIES};
use crate::catalog::forms::OperationForm;
use crate::kind::{Kind, KindDef, ResolveCx};
use crate::results::{Key, ScenarioResult};
use crate::view::cells::{dash, not_installed};
use crate::view::Table;

/// `distinct_operations` of a scenario: copies of each operation.
pub const COUNT: Key<usize> = Key::new("distinct_operations");

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    list: |v, _, line| {
        let n = v.get("count").and_then(|l| l.as_integer()).unwrap_or(0);
        format!("{line}, {n} distinct documents per operation")
    },
    not_in_k6: Some("the export sends the operations as written, not their generated copies"),
    ..KindDef::decorator("distinct", resolve)
};

/// `[distinct]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct DistinctSpec {
    /// Distinct documents per operation (2 to 20,000).
    pub count: usize,
}

#[derive(Debug)]
pub struct Distinct {
    pub count: usize,
    inner: Arc<dyn Kind>,
}

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<DistinctSpec>("distinct")?, inner) else {
        return Ok(None);
    };
    if !(2..=MAX_COPIES).contains(&spec.count) {
        return Err(cx
            .bad(format!(
                "[distinct] count = {}: from 2 to {MAX_COPIES} documents per operation",
                spec.count
            ))
            .into());
    }
    if !inner.reads_operations() || inner.form().batch.is_some() {
        return Err(cx
            .bad("[distinct] copies single queries with expected answers (not subscriptions, not batches)".into())
            .into());
    }
    for o in &cx.def.file.operations {
        let op = cx
            .cat
            .operation(&o.name)
            .map_err(|e| cx.bad(format!("operation '{}': {e:#}", o.name)))?;
        if op.incremental {
            return Err(cx
                .bad(format!(
                    "[distinct]: '{}' is incremental; copy plain queries",
                    o.name
                ))
                .into());
        }
        copies(&op.document, 1, |_| serde_json::Value::Null).map_err(|e| {
            cx.bad(format!(
                "[distinct]: {} cannot be copied: {e}",
                op.document_path.display()
            ))
        })?;
    }
    Ok(Some(Arc::new(Distinct {
        count: spec.count,
        inner,
    })))
}

impl Kind for Distinct {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn alternates(&self) -> bool {
        self.inner.alternates()
    }

    fn form(&self) -> OperationForm {
        OperationForm {
            distinct: Some(self.count),
            ..self.inner.form()
        }
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(&COUNT, &self.count);
    }
}

/// The figures a reader sets beside the targets' documented cache sizes.
fn table(s: &ScenarioResult) -> Option<Table> {
    let n = s.by_kind.get(&COUNT)?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !not_installed(t))
        .map(|t| {
            let sum = t.summary.as_ref().filter(|x| x.valid_trials > 0);
            let ms = |us: u64| crate::units::fmt_ms(us as f64);
            vec![
                t.name.clone(),
                sum.map(|x| format!("{:.0}", x.rps.center_or_median()))
                    .unwrap_or_else(dash),
                sum.map(|x| ms(x.latency.p50_us)).unwrap_or_else(dash),
                sum.map(|x| ms(x.latency.p99_us)).unwrap_or_else(dash),
            ]
        })
        .collect();
    Some(Table {
        title: format!(
            "{n} distinct documents per operation, sent in turn (root fields aliased per copy; each answer checked): a cache keyed by the document holds {n} entries per operation or misses (docs/many-operations.md lists each target's cache sizes)"
        ),
        headers: ["target", "req/s", "p50 ms", "p99 ms"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}
