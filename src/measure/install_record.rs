//! The install record of a build that lives in the shared cache (`{cache}`, i.e.
//! $GQLBENCH_CACHE): `.gqlbench-install.json` beside the build says what was built, by which
//! command, from which inputs (their hash, the install's cache key), with which toolchain,
//! when, how long it took and by which gqlbench. Every checkout of the same target version
//! reads it there, so a build made from one clone is current in all of them.
//!
//! Which installs are cache builds: those whose `check` file is under `{cache}/<folder>/`
//! (the native gateways). `<folder>` (e.g. `apollo-router-2.17.0`) is the build's own; the
//! record and the install lock sit in it. npm installs write `node_modules` into their
//! checkout and keep their stamp there (install.rs).
//!
//! Builds finished by a gqlbench before these records left a stamp (a bare key) in the
//! checkout's target folder; a matching stamp with the build present is recorded here
//! instead of rebuilt (`migrate`).
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::catalog::{vars, TargetDef};

/// The record's file name inside the build folder.
pub const RECORD: &str = ".gqlbench-install.json";
/// Bumped when a field changes meaning; a record of another format is not trusted.
const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct InstallRecord {
    pub format: u32,
    /// The target that was built.
    pub target: String,
    /// Its version (target.toml `version`), for people reading the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The file whose presence says the build is there (the install's `check`, expanded).
    pub check: PathBuf,
    /// The install command exactly as it ran (placeholders replaced).
    pub command: Vec<String>,
    /// The install's cache key: a hash of its command as written in target.toml and of the
    /// contents of its `inputs`. A different key means the inputs changed: rebuild.
    pub key: String,
    /// The `inputs` files the key covers (relative to the target folder).
    #[serde(default)]
    pub inputs: Vec<String>,
    /// Toolchain versions at build time (`rustc --version`, `go version`). Recorded, shown
    /// when they differ from this machine's, but not part of the key: see `toolchain`.
    #[serde(default)]
    pub toolchain: BTreeMap<String, String>,
    /// When the build finished (RFC 3339, UTC).
    pub built_at: String,
    /// How long the install command ran; unknown for builds recorded by `migrate`.
    #[serde(default)]
    pub duration_s: Option<f64>,
    /// The gqlbench that ran (or recorded) the build: "0.1.0 (commit abc123)".
    pub gqlbench: String,
    /// For a build finished under the old scheme: the stamp it was recognised by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migrated_from: Option<PathBuf>,
}

impl InstallRecord {
    /// "built 2026-11-23 by `cargo install ...`, 17 min" for messages.
    pub fn describe(&self) -> String {
        let day = self.built_at.get(..10).unwrap_or(&self.built_at);
        let took = self
            .duration_s
            .map(|s| format!(", {}", crate::units::fmt_minutes(s)))
            .unwrap_or_default();
        let how = match &self.migrated_from {
            Some(stamp) => format!(" (recorded from the stamp {})", tilde(stamp)),
            None => String::new(),
        };
        format!(
            "built {day} by `{}`{took}{how}",
            shorten(&self.command.join(" "), 120)
        )
    }
}

/// `s` cut to `max` characters with an ellipsis (cosmo-router's command is a shell script).
fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A path with the home folder written `~`, as a user would type it.
pub fn tilde(p: &Path) -> String {
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        if let Ok(rest) = p.strip_prefix(&home) {
            return format!("~/{}", rest.display());
        }
    }
    p.display().to_string()
}

/// The folder of `t`'s build in the cache, when `t`'s install is a cache build: the first
/// component after `{cache}/` of its `check` path. None for installs into the checkout.
pub fn build_dir(t: &TargetDef) -> Option<PathBuf> {
    let folder = cache_folder(t.install.as_ref()?.check.as_deref()?)?;
    Some(vars::cache_dir().join(folder))
}

pub use crate::catalog::vars::cache_folder;

pub fn record_path(dir: &Path) -> PathBuf {
    dir.join(RECORD)
}

/// The record in `dir`, if one of this format is there and parses. Anything else (absent,
/// truncated, from a newer format) reads as no record: the build is then not trusted.
pub fn read(dir: &Path) -> Option<InstallRecord> {
    read_checked(dir).ok().flatten()
}

/// The record of `dir`: None when there is none; Err saying why when a file is there that
/// this gqlbench cannot take for one (truncated or damaged, or of another format), which is
/// not the same as no record (a build no record ever vouched for).
pub fn read_checked(dir: &Path) -> Result<Option<InstallRecord>, String> {
    let path = record_path(dir);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{} cannot be read ({e})", tilde(&path))),
    };
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| format!("{} is damaged or cut short ({e})", tilde(&path)))?;
    match v.get("format").and_then(|f| f.as_u64()) {
        Some(f) if f == FORMAT as u64 => {}
        Some(f) => {
            return Err(format!(
                "{} is of format {f}, which this gqlbench (format {FORMAT}) does not read",
                tilde(&path)
            ))
        }
        None => return Err(format!("{} has no format", tilde(&path))),
    }
    serde_json::from_value::<InstallRecord>(v)
        .map(Some)
        .map_err(|e| format!("{} is damaged ({e})", tilde(&path)))
}

/// Write the record atomically (temporary file, then rename): a run reading it while an
/// install writes it sees the old record or the new one, never half of one.
pub fn write(dir: &Path, rec: &InstallRecord) -> Result<()> {
    let path = record_path(dir);
    let tmp = dir.join(format!("{RECORD}.tmp.{}", std::process::id()));
    let text = serde_json::to_string_pretty(rec)?;
    std::fs::write(&tmp, text + "\n").with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

/// Remove the record before a build starts, so an interrupted build is never taken for the
/// one the record describes.
pub fn remove(dir: &Path) -> Result<()> {
    match std::fs::remove_file(record_path(dir)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", record_path(dir).display()))
        }
        _ => Ok(()),
    }
}

/// The toolchains `t`'s install uses, by the programs it names (its command and `requires`):
/// cargo → `rustc --version`, go → `go version`. Asked in the target folder, where a
/// rust-toolchain file would choose the compiler the build uses.
///
/// Recorded for provenance, not part of the key: the targets pin their version and lockfile
/// (`cargo install --locked`, a Go commit), so a compiler update changes no source, and
/// invalidating on it would rebuild every native gateway (20 min each, and every CI cache)
/// at each rustup or Go update. `install` says when this machine's toolchain differs from the
/// recorded one; `--force` rebuilds with it.
pub fn toolchain(t: &TargetDef) -> BTreeMap<String, String> {
    let mut programs: Vec<&str> = Vec::new();
    if let Some(i) = &t.install {
        programs.extend(i.command.first().map(String::as_str));
        programs.extend(i.requires.iter().map(|r| r.program.as_str()));
    }
    let mut out = BTreeMap::new();
    let mut ask = |name: &str, argv: &[&str]| {
        let v = Command::new(argv[0])
            .args(&argv[1..])
            .current_dir(t.install_dir())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|v| !v.is_empty());
        if let Some(v) = v {
            out.insert(name.to_string(), v);
        }
    };
    if programs.iter().any(|p| *p == "cargo" || *p == "rustc") {
        ask("rustc", &["rustc", "--version"]);
    }
    if programs.contains(&"go") {
        ask("go", &["go", "version"]);
    }
    out
}

/// Toolchains recorded in `rec` that differ from `now`: "rustc 1.95.0 → rustc 1.96.0".
pub fn toolchain_changes(rec: &InstallRecord, now: &BTreeMap<String, String>) -> Vec<String> {
    rec.toolchain
        .iter()
        .filter_map(|(k, then)| {
            let cur = now.get(k)?;
            (cur != then).then(|| format!("{then} → {cur}"))
        })
        .collect()
}

/// "0.1.0 (commit abc123)".
fn gqlbench_version(t: &TargetDef) -> String {
    let tool = crate::sys::machine::tool(t.install_dir());
    match tool.git_commit {
        Some(c) => format!("{} (commit {c})", tool.version),
        None => tool.version,
    }
}

/// The record of a build that just finished.
pub fn new_record(
    t: &TargetDef,
    check: PathBuf,
    command: Vec<String>,
    key: &str,
    toolchain: BTreeMap<String, String>,
    duration_s: f64,
) -> InstallRecord {
    InstallRecord {
        format: FORMAT,
        target: t.install_owner().to_string(),
        version: t.package_version(),
        check,
        command,
        key: key.to_string(),
        inputs: t.install.iter().flat_map(|i| i.inputs.clone()).collect(),
        toolchain,
        built_at: crate::results::now_rfc3339(),
        duration_s: Some(duration_s),
        gqlbench: gqlbench_version(t),
        migrated_from: None,
    }
}

/// Record a build finished under the old scheme (found by its stamp in the checkout): the
/// command it ran and its key are today's (the stamp matched them); when it finished is the
/// check file's modification time; how long it took and its toolchain are not known.
pub fn migrate(
    t: &TargetDef,
    dir: &Path,
    check: PathBuf,
    command: Vec<String>,
    key: &str,
    stamp: &Path,
) -> Result<InstallRecord> {
    let built_at = std::fs::metadata(&check)
        .and_then(|m| m.modified())
        .map(|m| {
            chrono::DateTime::<chrono::Utc>::from(m)
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        })
        .unwrap_or_else(|_| crate::results::now_rfc3339());
    let rec = InstallRecord {
        built_at,
        duration_s: None,
        toolchain: BTreeMap::new(),
        migrated_from: Some(stamp.to_path_buf()),
        ..new_record(t, check, command, key, BTreeMap::new(), 0.0)
    };
    write(dir, &rec)?;
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_checks_in_a_folder_of_the_cache_are_cache_builds() {
        assert_eq!(
            cache_folder("{cache}/apollo-router-2.17.0/bin/router"),
            Some("apollo-router-2.17.0")
        );
        assert_eq!(
            cache_folder("{cache}/cosmo-router-0.273.1/router"),
            Some("cosmo-router-0.273.1")
        );
        assert_eq!(cache_folder("node_modules/.package-lock.json"), None);
        // A file directly in the cache has no folder of its own to hold the record.
        assert_eq!(cache_folder("{cache}/router"), None);
        assert_eq!(cache_folder("{cache}//router"), None);
        assert_eq!(cache_folder("{target_dir}/x/y"), None);
    }

    #[test]
    fn a_record_round_trips_and_a_foreign_or_broken_one_reads_as_none() {
        let dir = tempfile::tempdir().unwrap();
        let rec = InstallRecord {
            format: FORMAT,
            target: "fx".into(),
            version: Some("1.0".into()),
            check: dir.path().join("bin/fx"),
            command: vec!["cargo".into(), "install".into(), "fx@1.0".into()],
            key: "00ff".into(),
            inputs: vec![],
            toolchain: [("rustc".to_string(), "rustc 1.95.0".to_string())].into(),
            built_at: "2026-11-23T15:05:00Z".into(),
            duration_s: Some(1020.0),
            gqlbench: "0.1.0".into(),
            migrated_from: None,
        };
        write(dir.path(), &rec).unwrap();
        assert_eq!(read(dir.path()), Some(rec.clone()));
        assert_eq!(
            rec.describe(),
            "built 2026-11-23 by `cargo install fx@1.0`, 17 min"
        );
        let now = [("rustc".to_string(), "rustc 1.96.0".to_string())].into();
        assert_eq!(
            toolchain_changes(&rec, &now),
            vec!["rustc 1.95.0 → rustc 1.96.0".to_string()]
        );
        assert!(toolchain_changes(&rec, &rec.toolchain).is_empty());
        std::fs::write(record_path(dir.path()), r#"{"format": 1, "target": "fx""#).unwrap();
        assert_eq!(read(dir.path()), None);
        let newer = serde_json::to_string(&InstallRecord { format: 99, ..rec }).unwrap();
        std::fs::write(record_path(dir.path()), newer).unwrap();
        assert_eq!(read(dir.path()), None);
        remove(dir.path()).unwrap();
        remove(dir.path()).unwrap();
        assert!(!record_path(dir.path()).exists());
    }

    #[test]
    fn durations_read_as_a_person_would_say_them() {
        assert_eq!(crate::units::fmt_minutes(12.4), "12 s");
        assert_eq!(crate::units::fmt_minutes(1020.0), "17 min");
    }
}
