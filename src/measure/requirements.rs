//! A target's prerequisites: the programs its install needs on PATH (`[install] requires`),
//! checked before the install starts so a missing one fails at once, naming the command
//! that gets it, instead of minutes into a build.
use std::path::{Path, PathBuf};

use crate::catalog::target_def::Requirement;
use crate::catalog::TargetDef;
use crate::error::InstallError;

/// Where `program` is: a path as given when it holds a '/', else the first executable file
/// of that name on PATH.
pub fn find_program(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(program))
        .find(|p| executable(p))
}

/// The programs `t`'s install needs that this machine lacks.
pub fn missing_requirements(t: &TargetDef) -> Vec<&Requirement> {
    t.install
        .iter()
        .flat_map(|i| i.requires.iter())
        .filter(|r| find_program(&r.program).is_none())
        .collect()
}

/// Refuse to start an install whose programs are missing, naming each and how to get it.
pub fn check_requirements(t: &TargetDef) -> Result<(), InstallError> {
    let missing = missing_requirements(t);
    if missing.is_empty() {
        return Ok(());
    }
    Err(InstallError::MissingTools {
        target: t.name.clone(),
        manifest: t.manifest.clone(),
        missing: missing
            .iter()
            .map(|r| (r.program.clone(), r.hint.clone()))
            .collect(),
    })
}
