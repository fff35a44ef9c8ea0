//! Errors a user can act on. Each names the file, field or flag at fault and how to fix it;
//! everything else travels as `anyhow::Error` with context.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum UserError {
    #[error("{file}: {message}")]
    Manifest { file: PathBuf, message: String },
    #[error("unknown {what} '{name}'; valid {what}s: {valid}")]
    Unknown {
        what: &'static str,
        name: String,
        valid: String,
    },
    #[error("{flag}: {message}")]
    Flag { flag: &'static str, message: String },
    /// Something this command needs exclusively (CPUs) is held by another process; the
    /// message names the holder and the ways out.
    #[error("{message}")]
    Busy { message: String },
    #[error("no gqlbench catalogue (targets/ and scenarios/) found from {start}; run from the project folder or pass --root DIR")]
    NoRoot { start: PathBuf },
}

impl UserError {
    pub fn unknown<I, S>(what: &'static str, name: &str, valid: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut names: Vec<String> = valid.into_iter().map(|s| s.as_ref().to_string()).collect();
        names.sort();
        UserError::Unknown {
            what,
            name: name.to_string(),
            valid: if names.is_empty() {
                "(none)".into()
            } else {
                names.join(", ")
            },
        }
    }
}
