//! Errors a user can act on, one enum per domain: the catalogue's files (`CatalogError`),
//! what the command line asks (`PlanError`), installs (`InstallError`), saved results
//! (`ResultsError`). Each variant names the file, field or flag at fault and how to fix it;
//! everything else travels as `anyhow::Error` with context. The exit code comes from the
//! type: `exit_code` finds the first of these in an error's chain.
mod catalog;
mod install;
mod plan;
mod results;

pub use catalog::CatalogError;
pub use install::InstallError;
pub use plan::PlanError;
pub use results::ResultsError;

/// Bad input of any domain: the file, flag or machine must change before the command is
/// run again.
pub const BAD_INPUT: u8 = 2;
/// Any other error (none of the enums above in its chain).
pub const ERROR: u8 = 2;

/// The exit code of a command that ended in `e`: that of the first domain error in its
/// chain (the outermost: context added on the way up does not hide it), else `ERROR`.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    domain_code(e).unwrap_or(ERROR)
}

/// The exit code of the first domain error in `e`'s chain, if there is one.
fn domain_code(e: &anyhow::Error) -> Option<u8> {
    e.chain().find_map(|cause| {
        if let Some(c) = cause.downcast_ref::<CatalogError>() {
            Some(c.exit_code())
        } else if let Some(p) = cause.downcast_ref::<PlanError>() {
            Some(p.exit_code())
        } else if let Some(i) = cause.downcast_ref::<InstallError>() {
            Some(i.exit_code())
        } else {
            cause
                .downcast_ref::<ResultsError>()
                .map(ResultsError::exit_code)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn the_exit_code_is_found_through_context_added_on_the_way_up() {
        let typed: anyhow::Result<()> = Err(PlanError::Flag {
            flag: "--out",
            message: "exists".into(),
        }
        .into());
        let e = typed
            .context("planning the run")
            .context("gqlbench run")
            .unwrap_err();
        assert_eq!(domain_code(&e), Some(2));
        assert_eq!(exit_code(&e), 2);
        assert!(format!("{e:#}").ends_with("--out: exists"), "{e:#}");

        // A typed error as the source of another (std) error, under anyhow context.
        let side = ResultsError::Side {
            side: "baseline",
            path: "a".into(),
            source: Box::new(ResultsError::NoSchemaVersion { file: "a".into() }),
        };
        let e = Err::<(), _>(side).context("comparing").unwrap_err();
        assert_eq!(domain_code(&e), Some(2));

        let e = anyhow::Error::from(CatalogError::NoRoot { start: "/".into() }).context("x");
        assert_eq!(domain_code(&e), Some(2));
        let e = anyhow::Error::from(InstallError::NoCheckFile {
            target: "t".into(),
            file: "bin/t".into(),
        });
        assert_eq!(domain_code(&e), Some(2));

        // Untyped: the general error code.
        let e = anyhow::anyhow!("connection refused").context("starting t");
        assert_eq!(domain_code(&e), None);
        assert_eq!(exit_code(&e), ERROR);
    }
}
