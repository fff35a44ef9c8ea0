//! An operation's requests in the forms beside one request per case: batches of cases
//! (a scenario's `[batching]`) and distinct copies of its document (`[distinct]`). Both
//! keep every answer checked against the case it came from.
use serde_json::Value;

use super::operation::{request_body, OperationCase, OperationDef};
use super::persisted::Method;

/// How a scenario's kinds have its operations sent (each `None`: as written, one request
/// per case).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperationForm {
    /// In batches of this many operations per request (`[batching]`).
    pub batch: Option<usize>,
    /// As persisted queries, their short form by this method (`[persisted]`).
    pub persisted: Option<Method>,
    /// As persisted documents, by these ids (`[persisted] protocol = "documents"`).
    pub documents: Option<super::documents::Ids>,
    /// As this many distinct documents (`[distinct]`).
    pub distinct: Option<usize>,
    /// Incremental answers (for operations that use `@defer`/`@stream`) asked for over
    /// this transport (`[incremental] transport`).
    pub incremental: super::incremental::Transport,
}

impl OperationDef {
    /// One request of `document` with `vars`, answered by `data`: a persisted query or a
    /// persisted document's id when the form asks, else a plain POST; never a unique
    /// number (a persisted query's hash names its text, and a copy's document is already
    /// unique). A document the user's manifest lacks is sent by its hash (the planner
    /// refused that before).
    pub(super) fn request(
        &self,
        document: &str,
        vars: Option<&Value>,
        data: Value,
    ) -> gqlbench_engine::Variant {
        let (body, persisted) = match (&self.form.documents, self.form.persisted) {
            (Some(ids), _) => {
                let id = ids
                    .of(document)
                    .unwrap_or_else(|| super::persisted::hash(document));
                (super::documents::request_body(&id, vars), None)
            }
            (None, Some(m)) => {
                let (full, p) = super::persisted::forms(document, vars, m);
                (full, Some(p))
            }
            (None, None) => (request_body(document, vars), None),
        };
        gqlbench_engine::Variant {
            body: body.into(),
            expected_data: Some(data),
            unique: None,
            batch: None,
            incremental: self.accept(),
            persisted,
        }
    }

    /// The documents it sends as persisted documents (its copies' when copied), with their
    /// ids; an Err names the first document the user's manifest lacks.
    pub fn documents_checked(&self) -> Result<Vec<super::documents::Entry>, String> {
        let Some(ids) = &self.form.documents else {
            return Ok(Vec::new());
        };
        let texts: Vec<String> = match self.form.distinct {
            Some(n) => super::distinct::copies(&self.document, n, |_| Value::Null)
                .map(|c| c.into_iter().map(|(d, _)| d).collect())
                .unwrap_or_else(|_| vec![self.document.clone()]),
            None => vec![self.document.clone()],
        };
        texts
            .into_iter()
            .enumerate()
            .map(|(i, body)| {
                let id = ids.of(&body).ok_or_else(|| {
                    let what = match self.form.distinct {
                        Some(_) => format!("copy {i} of operation '{}' ([distinct] makes documents no manifest holds; leave `manifest` out and gqlbench names them by SHA-256)", self.name),
                        None => format!("operation '{}' ({})", self.name, self.document_path.display()),
                    };
                    let file = ids.manifest.as_ref().map(|m| m.path.display().to_string());
                    format!("{what} is not in the manifest {}", file.unwrap_or_default())
                })?;
                Ok(super::documents::Entry {
                    id,
                    name: self.name.clone(),
                    body,
                })
            })
            .collect()
    }

    /// `documents_checked`, for a plan already checked.
    pub fn documents(&self) -> Vec<super::documents::Entry> {
        self.documents_checked().unwrap_or_default()
    }

    /// `n` distinct documents, copy `i` with case `i mod cases` (None when the document
    /// cannot be copied: the scenario's check refused it before).
    pub(super) fn copied(&self, weight: u32, n: usize) -> Option<gqlbench_engine::Operation> {
        let k = self.cases.len();
        let copies =
            super::distinct::copies(&self.document, n, |i| self.cases[i % k].data.clone()).ok()?;
        let variants = copies
            .into_iter()
            .enumerate()
            .map(|(i, (document, data))| {
                self.request(&document, self.cases[i % k].variables.as_ref(), data)
            })
            .collect();
        Some(gqlbench_engine::Operation {
            name: self.name.clone(),
            weight,
            variants,
        })
    }

    /// Batches of `n`: a JSON array of `n` request objects, the answer an array of as
    /// many responses (a unique variable keeps its case's own value: the engine makes only
    /// single requests unique).
    pub(super) fn batched(&self, weight: u32, n: usize) -> gqlbench_engine::Operation {
        let k = self.cases.len();
        let variants = (0..k)
            .map(|first| {
                let cases: Vec<&OperationCase> =
                    (0..n).map(|j| &self.cases[(first + j) % k]).collect();
                let mut body = b"[".to_vec();
                for (j, c) in cases.iter().enumerate() {
                    if j > 0 {
                        body.push(b',');
                    }
                    body.extend(request_body(&self.document, c.variables.as_ref()));
                }
                body.push(b']');
                let expected = cases.iter().map(|c| c.data.clone()).collect();
                gqlbench_engine::Variant {
                    body: body.into(),
                    expected_data: Some(Value::Array(expected)),
                    unique: None,
                    batch: Some(n),
                    // A batch is one JSON array: an incremental operation in one is
                    // refused by the engine's plan check.
                    incremental: self.accept(),
                    persisted: None,
                }
            })
            .collect();
        gqlbench_engine::Operation {
            name: self.name.clone(),
            weight,
            variants,
        }
    }
}
