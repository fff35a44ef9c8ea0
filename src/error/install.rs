//! A target's install that cannot be done or did not work: programs it needs that are not
//! on PATH (protoc, go, npm: each with how to get it), its command that could not start or
//! failed (with its log), its check file missing after it ran, or a native build `run` would
//! only skip.
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    /// The programs of `[install] requires` that are not on PATH, each as (program, how to
    /// get it); `manifest` is the target file that declares them.
    #[error("the install of '{target}' needs {} not found on PATH: {} (declared in {manifest})", if .missing.len() == 1 { "a program" } else { "programs" }, tools(.missing))]
    MissingTools {
        target: String,
        manifest: PathBuf,
        missing: Vec<(String, String)>,
    },
    #[error(
        "running the install command `{command}` of target '{target}' (is `{program}` installed?)"
    )]
    CannotStart {
        target: String,
        command: String,
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// `log` is the end of the install's log, or why it shows nothing.
    #[error("install of '{target}' failed ({status}): `{command}` in {dir}\n{log}")]
    Failed {
        target: String,
        status: String,
        command: String,
        dir: PathBuf,
        log: String,
    },
    #[error("install of '{target}' ran but its check file {file} is missing")]
    NoCheckFile { target: String, file: PathBuf },
    /// A native build named on the command line (`flag`) that is not current: `why` says
    /// what is missing and the command that builds it.
    #[error("{target}: {why}; or leave it out of {flag}")]
    NotInstalled {
        target: String,
        why: String,
        flag: &'static str,
    },
    /// What is in the cache cannot be vouched for and rebuilding it is long: `message` says
    /// what and that `--force` rebuilds it (the flag was not given, so not blamed).
    #[error("{message}")]
    NeedsForce { message: String },
    /// Whether the install is current could not be told (e.g. an `inputs` file is missing).
    #[error("{target}: {why}")]
    Unknown { target: String, why: String },
}

fn tools(missing: &[(String, String)]) -> String {
    missing
        .iter()
        .map(|(program, hint)| format!("`{program}` (get it: {hint})"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl InstallError {
    /// 2, whichever the variant: a missing program or a build that does not work is fixed
    /// on this machine or in the target file before the command is run again. (`install`
    /// reports a failed install itself and exits 1; these reach the exit code only when a
    /// command cannot go on without the install.)
    pub fn exit_code(&self) -> u8 {
        match self {
            InstallError::MissingTools { .. }
            | InstallError::CannotStart { .. }
            | InstallError::Failed { .. }
            | InstallError::NoCheckFile { .. }
            | InstallError::NotInstalled { .. }
            | InstallError::NeedsForce { .. }
            | InstallError::Unknown { .. } => super::BAD_INPUT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_is_named_with_how_to_get_it_and_the_file_that_needs_it() {
        let e = InstallError::MissingTools {
            target: "hive-router".into(),
            manifest: "targets/hive-router/target.toml".into(),
            missing: vec![("protoc".into(), "apt-get install protobuf-compiler".into())],
        };
        assert_eq!(
            e.to_string(),
            "the install of 'hive-router' needs a program not found on PATH: `protoc` (get it: apt-get install protobuf-compiler) (declared in targets/hive-router/target.toml)"
        );
        let e = InstallError::MissingTools {
            target: "t".into(),
            manifest: "t.toml".into(),
            missing: vec![
                ("go".into(), "golang".into()),
                ("npm".into(), "nodejs".into()),
            ],
        };
        assert!(
            e.to_string()
                .contains("needs programs not found on PATH: `go` (get it: golang), `npm`"),
            "{e}"
        );
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn a_failed_build_shows_its_command_folder_and_log() {
        let e = InstallError::Failed {
            target: "t".into(),
            status: "exit status: 1".into(),
            command: "cargo build".into(),
            dir: "/src/t".into(),
            log: "last lines of /src/t/.gqlbench-install.log:\n    | error[E0432]".into(),
        };
        let m = e.to_string();
        assert!(
            m.starts_with("install of 't' failed (exit status: 1): `cargo build` in /src/t\n"),
            "{m}"
        );
        assert!(m.contains("    | error[E0432]"), "{m}");
        let e = InstallError::NotInstalled {
            target: "n".into(),
            why: "not installed (no build)".into(),
            flag: "--targets",
        };
        assert!(
            e.to_string().ends_with("or leave it out of --targets"),
            "{e}"
        );
    }
}
