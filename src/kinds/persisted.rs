//! Persisted queries (APQ), a decorating kind: every operation is sent as Apollo Client's
//! persisted-queries link sends it, the document's SHA-256 without the document, by POST
//! or GET (`[persisted] method`); when the server answers `PersistedQueryNotFound`, the
//! engine sends the document with its hash on the same connection (registering it), and
//! the request's latency covers both. Targets are started with GQLBENCH_APQ=1, so that
//! those whose APQ is off by default turn it on.
//!
//! Every answer is judged as usual. What this kind adds is the hit ratio as the server's
//! answers showed it: how many short forms it knew, and how many it had to be sent the
//! document for.
use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::catalog::forms::OperationForm;
use crate::catalog::persisted::Method;
use crate::kind::{Kind, KindDef, ResolveCx};
use crate::results::{Key, ScenarioResult, TargetResult};
use crate::view::cells::{dash, not_installed};
use crate::view::Table;

/// `persisted` of a scenario: how its short forms were sent.
pub const SPEC: Key<PersistedSpec> = Key::new("persisted");

/// The environment variable that asks a target for APQ.
pub const ENV: &str = "GQLBENCH_APQ";

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    list: |v, _, line| {
        let method = v.get("method").and_then(|m| m.as_str()).unwrap_or("post");
        format!("{line}, persisted queries by {}", method.to_uppercase())
    },
    not_in_k6: Some(
        "a persisted query's miss is answered by sending the document on the same connection; the k6 export sends plain requests",
    ),
    ..KindDef::decorator("persisted", resolve)
};

/// `[persisted]`.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PersistedSpec {
    /// `post` (default) or `get`.
    #[serde(default)]
    pub method: Method,
}

#[derive(Debug)]
pub struct Persisted {
    pub spec: PersistedSpec,
    inner: Arc<dyn Kind>,
}

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<PersistedSpec>("persisted")?, inner) else {
        return Ok(None);
    };
    if !inner.reads_operations() || inner.form().batch.is_some() {
        return Err(cx
            .bad("[persisted] sends single queries with expected answers (not subscriptions, not batches)".into())
            .into());
    }
    Ok(Some(Arc::new(Persisted { spec, inner })))
}

impl Kind for Persisted {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn alternates(&self) -> bool {
        self.inner.alternates()
    }

    fn form(&self) -> OperationForm {
        OperationForm {
            persisted: Some(self.spec.method),
            ..self.inner.form()
        }
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(&SPEC, &self.spec);
    }

    fn env(&self, env: &mut BTreeMap<String, String>) {
        self.inner.env(env);
        env.insert(ENV.into(), "1".into());
    }
}

/// Hits and misses summed over a target's valid trials.
fn counts(t: &TargetResult) -> Option<(u64, u64)> {
    t.trials
        .iter()
        .filter(|x| x.valid)
        .filter_map(|x| x.load.persisted)
        .fold(None, |acc, p| {
            let (h, m) = acc.unwrap_or((0, 0));
            Some((h + p.hits, m + p.misses))
        })
}

/// Per target: what the server knew.
fn table(s: &ScenarioResult) -> Option<Table> {
    let spec = s.by_kind.get(&SPEC)?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !not_installed(t))
        .map(|t| {
            let c = counts(t);
            let ratio = c
                .filter(|(h, m)| h + m > 0)
                .map(|(h, m)| format!("{:.1}%", 100.0 * h as f64 / (h + m) as f64));
            vec![
                t.name.clone(),
                c.map(|(h, _)| h.to_string()).unwrap_or_else(dash),
                c.map(|(_, m)| m.to_string()).unwrap_or_else(dash),
                ratio.unwrap_or_else(dash),
            ]
        })
        .collect();
    let method = match spec.method {
        Method::Post => "POST",
        Method::Get => "GET",
    };
    Some(Table {
        title: format!(
            "persisted queries (APQ) by {method}: what each server knew, as its answers said (a miss is answered by sending the document, within the same request's latency); valid trials"
        ),
        headers: ["target", "hits", "misses (registered)", "hit ratio"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}
