//! Where an imported run came from: the engine that measured it (not gqlbench), the files
//! read and what the engine does not measure, so reports show "not measured" for those.
use serde::{Deserialize, Serialize};

/// The engine of runs gqlbench measured itself.
pub const GQLBENCH_ENGINE: &str = "gqlbench";

pub fn gqlbench_engine() -> String {
    GQLBENCH_ENGINE.to_string()
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ImportInfo {
    /// The files read, each with the format it was read as.
    pub files: Vec<ImportedFile>,
    /// Figures gqlbench measures and this engine did not (shown as "-" in the tables).
    pub unmeasured: Vec<String>,
    /// What the import assumed or could not tell (e.g. a summary alone includes the warm-up).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ImportedFile {
    pub path: String,
    /// e.g. "k6 JSON lines (--out json)", "k6 summary (--summary-export)".
    pub format: String,
}
