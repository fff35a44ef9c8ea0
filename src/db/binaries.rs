//! Finding the PostgreSQL server programs: `$GQLBENCH_PG_BIN`, else a PATH folder holding
//! both `initdb` and `postgres`, else the newest `/usr/lib/postgresql/<version>/bin`
//! (Debian and Ubuntu keep the server out of PATH there).
use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result};

use super::error::DbError;

/// The environment variable that names the folder of `initdb` and `postgres`.
pub const PG_BIN_ENV: &str = "GQLBENCH_PG_BIN";
/// Where Debian and Ubuntu install each server version (`<root>/<version>/bin`).
pub const DEBIAN_ROOT: &str = "/usr/lib/postgresql";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgBinaries {
    /// The folder both programs are in.
    pub dir: PathBuf,
    pub initdb: PathBuf,
    pub postgres: PathBuf,
    /// Where `dir` came from: "GQLBENCH_PG_BIN", "PATH" or the Debian folder.
    pub source: String,
}

impl PgBinaries {
    /// Look in `$GQLBENCH_PG_BIN`, PATH, then /usr/lib/postgresql/*/bin.
    pub fn locate() -> Result<PgBinaries, DbError> {
        Self::locate_with(
            std::env::var_os(PG_BIN_ENV).as_deref(),
            std::env::var_os("PATH").as_deref(),
            Path::new(DEBIAN_ROOT),
        )
    }

    /// `locate` with its inputs given (the environment is process-wide, so tests pass them).
    pub fn locate_with(
        pg_bin: Option<&OsStr>,
        path: Option<&OsStr>,
        debian_root: &Path,
    ) -> Result<PgBinaries, DbError> {
        if let Some(dir) = pg_bin.filter(|d| !d.is_empty()) {
            let dir = PathBuf::from(dir);
            return match Self::in_dir(&dir, PG_BIN_ENV) {
                Ok(b) => Ok(b),
                Err(missing) => Err(DbError::BadPgBin {
                    dir,
                    what: missing.join(" and "),
                }),
            };
        }
        if let Some(path) = path {
            for dir in std::env::split_paths(path) {
                // initdb starts the `postgres` beside itself, so both must be in one folder.
                if let Ok(b) = Self::in_dir(&dir, "PATH") {
                    return Ok(b);
                }
            }
        }
        let mut versions: Vec<(Vec<u64>, PathBuf)> = std::fs::read_dir(debian_root)
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let name = e.file_name().to_str()?.to_string();
                let v: Option<Vec<u64>> = name.split('.').map(|p| p.parse().ok()).collect();
                Some((v?, e.path().join("bin")))
            })
            .collect();
        versions.sort();
        for (_, dir) in versions.iter().rev() {
            let source = dir.display().to_string();
            if let Ok(b) = Self::in_dir(dir, &source) {
                return Ok(b);
            }
        }
        Err(DbError::MissingBinaries {
            what: format!(
                "no folder with both `initdb` and `postgres` in PATH nor in {}/<version>/bin, and {PG_BIN_ENV} is not set",
                debian_root.display()
            ),
        })
    }

    /// Both programs in `dir`, or the names of those missing.
    fn in_dir(dir: &Path, source: &str) -> Result<PgBinaries, Vec<String>> {
        let initdb = dir.join("initdb");
        let postgres = dir.join("postgres");
        let missing: Vec<String> = [&initdb, &postgres]
            .iter()
            .filter(|p| !is_executable(p))
            .map(|p| format!("`{}`", p.display()))
            .collect();
        if !missing.is_empty() {
            return Err(missing);
        }
        Ok(PgBinaries {
            dir: dir.to_path_buf(),
            initdb,
            postgres,
            source: source.to_string(),
        })
    }

    /// `postgres --version`, e.g. "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)".
    pub fn version(&self) -> Result<String> {
        let out = Command::new(&self.postgres)
            .arg("--version")
            .output()
            .with_context(|| format!("running `{} --version`", self.postgres.display()))?;
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }
}

fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// A PATH of `dir` then `rest`.
    fn path_with(dir: &Path, rest: Option<&OsStr>) -> OsString {
        let mut dirs = vec![dir.to_path_buf()];
        if let Some(rest) = rest {
            dirs.extend(std::env::split_paths(rest));
        }
        std::env::join_paths(dirs).unwrap_or_default()
    }

    fn fake_bin(dir: &Path, names: &[&str]) {
        std::fs::create_dir_all(dir).unwrap();
        for n in names {
            let p = dir.join(n);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    #[test]
    fn env_var_wins_and_is_named_when_empty() {
        let t = tempfile::tempdir().unwrap();
        let empty = t.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let e = PgBinaries::locate_with(Some(empty.as_os_str()), None, t.path()).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("GQLBENCH_PG_BIN"), "{msg}");
        assert!(msg.contains("initdb") && msg.contains("postgres"), "{msg}");
        assert!(msg.contains("apt-get install postgresql"), "{msg}");
    }

    #[test]
    fn path_then_newest_debian_version() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("lib");
        fake_bin(&root.join("9.6/bin"), &["initdb", "postgres"]);
        fake_bin(&root.join("15/bin"), &["initdb", "postgres"]);
        fake_bin(&root.join("16/bin"), &["initdb"]); // incomplete: skipped
        let only_initdb = t.path().join("p1");
        fake_bin(&only_initdb, &["initdb"]);
        let b = PgBinaries::locate_with(None, Some(only_initdb.as_os_str()), &root).unwrap();
        assert_eq!(b.dir, root.join("15/bin"));
        let both = t.path().join("p2");
        fake_bin(&both, &["initdb", "postgres"]);
        let path = path_with(&only_initdb, Some(both.as_os_str()));
        let b = PgBinaries::locate_with(None, Some(&path), &root).unwrap();
        assert_eq!((b.dir, b.source.as_str()), (both, "PATH"));
        let e = PgBinaries::locate_with(None, None, &t.path().join("none")).unwrap_err();
        assert!(e.to_string().contains("apt-get install postgresql"));
        assert!(e.to_string().contains("GQLBENCH_PG_BIN"));
    }
}
