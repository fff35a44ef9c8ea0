//! The JSON exporter: any document as pretty-printed JSON, exactly its serde model. A run's
//! is results.json (every field documented in docs/results.md); `--json` prints the same
//! text on stdout.
use anyhow::{Context, Result};

use super::export::{Document, Exporter, Output};

pub struct Json;

impl<D: Document> Exporter<D> for Json {
    fn export(&self, doc: &D) -> Result<Vec<Output>> {
        Ok(vec![Output {
            file: format!("{}.json", D::STEM),
            text: serde_json::to_string_pretty(doc)
                .with_context(|| format!("serializing the {} as JSON", D::STEM))?,
        }])
    }
}
