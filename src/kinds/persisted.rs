//! Persisted operations, a decorating kind, in one of two protocols (`[persisted] protocol`):
//! - `apq` (default): every operation is sent as Apollo Client's persisted-queries link
//!   sends it, the document's SHA-256 without the document, by POST or GET (`method`);
//!   when the server answers `PersistedQueryNotFound`, the engine sends the document with
//!   its hash on the same connection (registering it), and the request's latency covers
//!   both. Targets are started with GQLBENCH_APQ=1, so that those whose APQ is off by
//!   default turn it on. What this kind adds is the hit ratio as the server's answers
//!   showed it: how many short forms it knew, and how many it had to be sent the document
//!   for.
//! - `documents`: persisted documents by id (trusted documents, `catalog::documents`): the
//!   run writes a manifest of the scenario's documents (ids from the user's `manifest`, else
//!   SHA-256) and starts targets with its path in GQLBENCH_PERSISTED_DOCUMENTS; requests
//!   carry the id alone, by POST, and an id the server does not know fails the request.
//!
//! Every answer is judged as usual.
use std::collections::BTreeMap;
use std::sync::Arc;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::catalog::documents::{self, Ids, Manifest};
use crate::catalog::forms::OperationForm;
use crate::catalog::persisted::Method;
use crate::kind::{Kind, KindDef, ResolveCx, RunFile};
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
        if v.get("protocol").and_then(|m| m.as_str()) == Some("documents") {
            return format!("{line}, persisted documents by id");
        }
        let method = v.get("method").and_then(|m| m.as_str()).unwrap_or("post");
        format!("{line}, persisted queries by {}", method.to_uppercase())
    },
    not_in_k6: Some(
        "a persisted query's miss is answered by sending the document on the same connection, and persisted documents need the run's manifest; the k6 export sends plain requests",
    ),
    ..KindDef::decorator("persisted", resolve)
};

/// The protocol a scenario's persisted operations follow.
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// Automatic persisted queries: a hash, registered on a miss.
    #[default]
    Apq,
    /// Persisted documents by id, from a manifest the server loaded at start.
    Documents,
}

/// `[persisted]`.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PersistedSpec {
    /// `apq` (default) or `documents`.
    #[serde(default)]
    pub protocol: Protocol,
    /// `post` (default) or `get` (APQ only).
    #[serde(default)]
    pub method: Method,
    /// The user's manifest (documents only), relative to the scenario file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<String>,
}

#[derive(Debug)]
pub struct Persisted {
    pub spec: PersistedSpec,
    /// Documents: what names them.
    ids: Option<Ids>,
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
    let ids = match spec.protocol {
        Protocol::Apq => {
            if spec.manifest.is_some() {
                return Err(cx
                    .bad("[persisted] `manifest` names persisted documents; it goes with protocol = \"documents\" (APQ registers documents as it goes)".into())
                    .into());
            }
            None
        }
        Protocol::Documents => {
            if spec.method == Method::Get {
                return Err(cx
                    .bad("[persisted] protocol = \"documents\" sends ids by POST; remove method = \"get\"".into())
                    .into());
            }
            let manifest = match &spec.manifest {
                Some(m) => {
                    let dir = cx.def.path.parent().unwrap_or(std::path::Path::new("."));
                    Some(Manifest::load(&dir.join(m))?)
                }
                None => None,
            };
            Some(Ids { manifest })
        }
    };
    Ok(Some(Arc::new(Persisted { spec, ids, inner })))
}

impl Kind for Persisted {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn alternates(&self) -> bool {
        self.inner.alternates()
    }

    fn form(&self) -> OperationForm {
        match &self.ids {
            Some(ids) => OperationForm {
                documents: Some(ids.clone()),
                ..self.inner.form()
            },
            None => OperationForm {
                persisted: Some(self.spec.method),
                ..self.inner.form()
            },
        }
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(&SPEC, &self.spec);
    }

    fn env(&self, env: &mut BTreeMap<String, String>) {
        self.inner.env(env);
        if self.ids.is_none() {
            env.insert(ENV.into(), "1".into());
        }
    }

    fn run_files(&self, sp: &crate::kind::ScenarioPlan) -> Vec<RunFile> {
        let mut files = self.inner.run_files(sp);
        if self.ids.is_some() {
            let entries: Vec<documents::Entry> = sp
                .operations
                .iter()
                .flat_map(|(o, _)| o.documents())
                .collect();
            files.push(RunFile {
                name: documents::file_name(&sp.name),
                text: documents::apollo_manifest(&entries),
                env: documents::ENV,
            });
        }
        files
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

/// Per target: what the server knew (APQ); the manifest and where its ids came from
/// (documents).
fn table(s: &ScenarioResult) -> Option<Table> {
    let spec = s.by_kind.get(&SPEC)?;
    if spec.protocol == Protocol::Documents {
        return Some(Table {
            title: "persisted documents by id: every request sent a document's id alone (POST), from a manifest the targets loaded at start; an id a target did not know fails the request".into(),
            headers: ["manifest given to the targets", "ids from"].map(String::from).to_vec(),
            rows: vec![vec![
                documents::file_name(&s.name),
                spec.manifest
                    .clone()
                    .unwrap_or_else(|| "each document's SHA-256 (no manifest given)".into()),
            ]],
        });
    }
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
