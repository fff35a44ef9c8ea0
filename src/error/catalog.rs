//! The catalogue's errors: a file of it (a target's target.toml, a scenario file,
//! scenarios/profiles.toml, an operation or its cases) or a file read beside it (a price
//! table), naming the file, the field and the fix; a name that is not in it, with the valid
//! ones; no catalogue at all.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// `message` names the field at fault and how to fix it.
    #[error("{file}: {message}")]
    File { file: PathBuf, message: String },
    #[error("unknown {what} '{name}'; valid {what}s: {valid}")]
    Unknown {
        what: &'static str,
        name: String,
        valid: String,
    },
    #[error("no gqlbench catalogue (targets/ and scenarios/) found from {start}; run from the project folder or pass --root DIR")]
    NoRoot { start: PathBuf },
    /// A `{name}` placeholder of a target file's command, environment or check that has no
    /// value where it is expanded (the caller names the file).
    #[error("placeholder {{{name}}} in '{text}' has no value here")]
    NoValue { name: String, text: String },
}

impl CatalogError {
    pub fn unknown<I, S>(what: &'static str, name: &str, valid: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut names: Vec<String> = valid.into_iter().map(|s| s.as_ref().to_string()).collect();
        names.sort();
        CatalogError::Unknown {
            what,
            name: name.to_string(),
            valid: if names.is_empty() {
                "(none)".into()
            } else {
                names.join(", ")
            },
        }
    }

    /// Bad input: 2, whichever the variant.
    pub fn exit_code(&self) -> u8 {
        match self {
            CatalogError::File { .. }
            | CatalogError::Unknown { .. }
            | CatalogError::NoRoot { .. }
            | CatalogError::NoValue { .. } => super::BAD_INPUT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_variant_names_its_file_field_or_name_and_the_fix() {
        let e = CatalogError::File {
            file: "targets/x/target.toml".into(),
            message: "field `start.command` is empty; give the command that starts it".into(),
        };
        assert_eq!(
            e.to_string(),
            "targets/x/target.toml: field `start.command` is empty; give the command that starts it"
        );
        let e = CatalogError::unknown("target", "nope", ["b", "a"]);
        assert_eq!(e.to_string(), "unknown target 'nope'; valid targets: a, b");
        let e = CatalogError::unknown("suite", "nope", Vec::<String>::new());
        assert!(e.to_string().ends_with("valid suites: (none)"), "{e}");
        let e = CatalogError::NoRoot {
            start: "/tmp/x".into(),
        };
        assert!(
            e.to_string().contains("from /tmp/x") && e.to_string().contains("--root DIR"),
            "{e}"
        );
        let e = CatalogError::NoValue {
            name: "port".into(),
            text: "--port={port}".into(),
        };
        assert_eq!(
            e.to_string(),
            "placeholder {port} in '--port={port}' has no value here"
        );
        assert_eq!(e.exit_code(), 2);
    }
}
