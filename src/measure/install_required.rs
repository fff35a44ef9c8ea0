//! A target that is not installed, said once: why and the command that installs it
//! (`not_installed_message`), and a native build named on the command line refused before
//! anything starts (`require_installed`).
use super::install::{state, Missing, State};
use super::install_record as record;
use crate::catalog::TargetDef;
use crate::error::InstallError;

/// Why `t` is not installed and how to install it, for a target that `run` does not
/// install by itself: one sentence, shown once per run and in reports.
pub fn not_installed_message(t: &TargetDef, why: &Missing) -> String {
    let takes = t
        .install
        .as_ref()
        .and_then(|i| i.takes.clone())
        .map(|d| format!(" ({d})"))
        .unwrap_or_default();
    let place = record::build_dir(t)
        .map(|d| format!(" in {}", record::tilde(&d)))
        .unwrap_or_default();
    let why = match why {
        Missing::Never => format!("no build{place}"),
        Missing::Stale(s) => format!("no current build{place}: {s}"),
        Missing::Unrecorded(f) => format!(
            "{} is there but has no install record; if another checkout built it with an older gqlbench, `gqlbench install {}` there records it in seconds",
            record::tilde(f),
            t.name
        ),
    };
    // Only native builds wait for `gqlbench install`; the rest a run installs itself.
    if t.install.as_ref().is_none_or(|i| i.auto) {
        return format!(
            "not installed ({why}); a run installs it by itself, or `gqlbench install {}` does now{takes}",
            t.name
        );
    }
    format!(
        "not installed ({why}); no command starts a native build by itself: `gqlbench install {}` builds it{takes}",
        t.name
    )
}

/// For a target named on the command line (`flag`: `run --targets`, `ab --a-target`): one
/// that the run would skip (a native build that is not current) is refused before anything
/// starts, with the command that builds it. A build finished under the old scheme counts as
/// installed (the run records it).
pub fn require_installed(t: &TargetDef, flag: &'static str) -> Result<(), InstallError> {
    if t.install.as_ref().map(|i| i.auto).unwrap_or(true) {
        return Ok(());
    }
    let node = crate::sys::machine::node_version().unwrap_or_default();
    let target = t.name.clone();
    match state(t, &node) {
        Ok(State::NotCurrent(why)) => Err(InstallError::NotInstalled {
            target,
            why: not_installed_message(t, &why),
            flag,
        }),
        Err(e) => Err(InstallError::Unknown {
            target,
            why: format!("{e:#}"),
        }),
        Ok(_) => Ok(()),
    }
}
