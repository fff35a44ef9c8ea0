//! Saved results that cannot be used: a results.json that cannot be read, is not one this
//! version reads, or holds a figure no run writes (which file, which side of a comparison,
//! which field); a file of another engine's results (k6's) that cannot be imported.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ResultsError {
    #[error("reading {file} (a run folder holds results.json)")]
    Unreadable {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{file} is not JSON")]
    NotJson {
        file: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{file}: schema_version {version}; this gqlbench reads versions {oldest} to {newest} (use the gqlbench that wrote it)")]
    SchemaVersion {
        file: PathBuf,
        version: u64,
        oldest: u32,
        newest: u32,
    },
    #[error("{file}: no schema_version: not a gqlbench results file")]
    NoSchemaVersion { file: PathBuf },
    /// Valid JSON with a schema_version, but a field is missing or of the wrong type
    /// (serde's message, in the source, names it).
    #[error("{file}: not a gqlbench results file")]
    NotResults {
        file: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// One side of a comparison (`baseline` or `candidate`) that cannot be read as a run.
    #[error("{side} {path}: not a gqlbench run this version can read; pass a run folder (holding results.json) or its results.json")]
    Side {
        side: &'static str,
        path: PathBuf,
        #[source]
        source: Box<ResultsError>,
    },
    /// A figure no gqlbench writes: `fault` is its field path in results.json, its value
    /// and its row (`results::damaged_throughput`).
    #[error("{file}: {fault}; the {side} is damaged or was edited: compare the results.json gqlbench wrote")]
    Damaged {
        file: PathBuf,
        side: &'static str,
        fault: String,
    },
    /// A k6 output file (JSON lines, summary) or export metadata `import` cannot use:
    /// `message` names the line or field.
    #[error("{file}: {message}")]
    Import { file: PathBuf, message: String },
}

impl ResultsError {
    /// Bad input: 2, whichever the variant.
    pub fn exit_code(&self) -> u8 {
        match self {
            ResultsError::Unreadable { .. }
            | ResultsError::NotJson { .. }
            | ResultsError::SchemaVersion { .. }
            | ResultsError::NoSchemaVersion { .. }
            | ResultsError::NotResults { .. }
            | ResultsError::Side { .. }
            | ResultsError::Damaged { .. }
            | ResultsError::Import { .. } => super::BAD_INPUT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_damaged_file_is_named_with_its_side_and_field() {
        let e = ResultsError::Damaged {
            file: "b/results.json".into(),
            side: "candidate",
            fault: "scenarios[0].targets[1].summary.rps.samples[0] is 0 (e2e/hello, target t): a valid row's req/s is above 0".into(),
        };
        let m = e.to_string();
        assert!(
            m.starts_with("b/results.json: scenarios[0].targets[1].summary.rps.samples[0] is 0"),
            "{m}"
        );
        assert!(m.contains("the candidate is damaged or was edited"), "{m}");
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn an_unreadable_side_names_the_side_the_path_and_then_the_file_and_field() {
        let inner = ResultsError::NoSchemaVersion {
            file: "x.json".into(),
        };
        let e = anyhow::Error::from(ResultsError::Side {
            side: "baseline",
            path: "x.json".into(),
            source: Box::new(inner),
        });
        let m = format!("{e:#}");
        assert!(m.starts_with("baseline x.json: not a gqlbench run"), "{m}");
        assert!(
            m.ends_with("x.json: no schema_version: not a gqlbench results file"),
            "{m}"
        );
    }
}
