//! Where and how big the throwaway database is: its options, the scale limits, the disk
//! check, the fixed names (role, database) and server settings, and the system user it runs
//! as when gqlbench is root.
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use super::{check_disk, data, DbError, PgBinaries};
use crate::sys::cpus::CpuSet;
use crate::sys::process::RunAs;

/// Users loaded by default (and at least): the benchmark's expected answers need the first
/// 10,000 users and 100,000 posts.
pub const DEFAULT_SCALE: u64 = 10_000;
pub const MIN_SCALE: u64 = data::BASE_USERS;
/// Comment ids (50 per user) must fit PostgreSQL's `integer`.
pub const MAX_SCALE: u64 = i32::MAX as u64 / (data::POSTS_PER_USER * data::COMMENTS_PER_POST);
/// The folder the temporary database folder is made in, when the options name none.
pub const PG_DIR_ENV: &str = "GQLBENCH_PG_DIR";
/// The role and database the targets connect to.
pub const ROLE: &str = "gqlbench";
pub const DATABASE: &str = "gqlbench";
/// The superuser made by initdb. gqlbench seeds and reads statistics as this user, so that
/// counting the `gqlbench` role's statements counts the targets' statements only.
pub const SUPERUSER: &str = "postgres";
/// The system user the server runs as when gqlbench runs as root.
pub const SYSTEM_USER: &str = "postgres";

/// Server settings (passed as `-c name=value`), each for a throwaway benchmark database.
pub const SETTINGS: &[(&str, &str)] = &[
    // The data is rebuilt for every run, so durability is not needed; flushing to disk would
    // make the figures depend on the disk instead of on the GraphQL server.
    ("fsync", "off"),
    // Commits do not wait for the WAL to reach the disk (for targets that write).
    ("synchronous_commit", "off"),
    // No torn-page protection is needed for data that is thrown away after a crash; it only
    // adds WAL volume.
    ("full_page_writes", "off"),
    // No replication or archiving: the least WAL, and a bulk COPY into a table created in
    // the same transaction skips WAL entirely (the seed's speed).
    ("wal_level", "minimal"),
    ("max_wal_senders", "0"),
    // Several targets in one run, each with a connection pool of about 20, plus gqlbench's
    // own few connections.
    ("max_connections", "300"),
    // Counts the statements each target runs (SQL statements per GraphQL request).
    ("shared_preload_libraries", "pg_stat_statements"),
    // Count the statements clients send, not those nested inside functions.
    ("pg_stat_statements.track", "top"),
    // Count data statements (SELECT/INSERT/UPDATE/DELETE), not BEGIN/COMMIT/SET/SHOW that
    // pools send when they hand out connections.
    ("pg_stat_statements.track_utility", "off"),
    // Room for every distinct statement, so none is evicted (an evicted entry loses its
    // calls and the count would be short; `statement_evictions` reports it).
    ("pg_stat_statements.max", "10000"),
    // Nothing to keep across restarts of a server that is thrown away.
    ("pg_stat_statements.save", "off"),
    // Dynamic shared memory as files in the data folder instead of /dev/shm, so a server
    // killed with SIGKILL leaves nothing behind once its folder is removed.
    ("dynamic_shared_memory_type", "mmap"),
];

/// How long a fast shutdown (SIGINT) may take before the group is killed.
pub(super) const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// initdb of an empty cluster takes a second or two; this is for slow disks.
pub(super) const INITDB_TIMEOUT: Duration = Duration::from_secs(180);
/// A statistics query answers in milliseconds; this only keeps a frozen server from hanging
/// the runner.
pub(super) const QUERY_TIMEOUT: Duration = Duration::from_secs(60);
/// Unix socket paths longer than this do not fit `sockaddr_un.sun_path` (108 bytes with the
/// terminating NUL).
pub(super) const MAX_SOCKET_PATH: usize = 107;

#[derive(Debug, Clone)]
pub struct DbOptions {
    /// The folder in which the temporary database folder is made; None: $GQLBENCH_PG_DIR,
    /// else the system's temporary folder.
    pub dir: Option<PathBuf>,
    /// CPUs the server (every process of it) may run on.
    pub cpus: Option<CpuSet>,
    /// cgroup.procs files the server joins (see `sys::cgroup::Cgroup::procs_files`).
    pub cgroup_procs: Vec<PathBuf>,
    /// The scale that will be seeded, when known: checked (minimum, disk space) before
    /// anything is started.
    pub scale: Option<u64>,
    /// The server's log; None: `postgres.log` in the temporary folder (removed with it).
    pub log: Option<PathBuf>,
    /// How long the server may take to accept connections.
    pub start_timeout: Duration,
    /// The server programs; None: `PgBinaries::locate()`.
    pub binaries: Option<PgBinaries>,
}

impl Default for DbOptions {
    fn default() -> Self {
        DbOptions {
            dir: None,
            cpus: None,
            cgroup_procs: Vec::new(),
            scale: None,
            log: None,
            start_timeout: Duration::from_secs(60),
            binaries: None,
        }
    }
}

impl DbOptions {
    /// The folder the temporary database folder is made in.
    pub fn base_dir(&self) -> PathBuf {
        self.dir
            .clone()
            .or_else(|| {
                std::env::var_os(PG_DIR_ENV)
                    .filter(|d| !d.is_empty())
                    .map(PathBuf::from)
            })
            .unwrap_or_else(std::env::temp_dir)
    }
}

/// Refuse a scale the benchmark cannot use.
pub fn check_scale(scale: u64) -> Result<(), DbError> {
    if scale < MIN_SCALE {
        return Err(DbError::ScaleTooSmall {
            scale,
            min: MIN_SCALE,
        });
    }
    if scale > MAX_SCALE {
        return Err(DbError::ScaleTooLarge {
            scale,
            max: MAX_SCALE,
        });
    }
    Ok(())
}

/// The checks before a seed of `scale` users into a database made in `dir`: the minimum
/// first, then the disk (a scale far too large is first of all too large for the disk, which
/// is the more useful thing to say), then the maximum.
pub fn check_scale_and_disk(scale: u64, dir: &Path) -> Result<()> {
    if scale < MIN_SCALE {
        return Err(DbError::ScaleTooSmall {
            scale,
            min: MIN_SCALE,
        }
        .into());
    }
    check_disk(dir, scale)?;
    check_scale(scale)?;
    Ok(())
}

/// The user the server must run as: None to run as ourselves, the `postgres` system user
/// when we are root.
pub fn server_user() -> Result<Option<RunAs>, DbError> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    RunAs::by_name(SYSTEM_USER)
        .map(Some)
        .ok_or(DbError::NoPostgresUser)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::{disk, estimate_bytes};

    #[test]
    fn scales() {
        assert!(matches!(
            check_scale(9_999),
            Err(DbError::ScaleTooSmall { .. })
        ));
        assert!(check_scale(DEFAULT_SCALE).is_ok());
        assert!(check_scale(1_000_000).is_ok());
        assert!(matches!(
            check_scale(MAX_SCALE + 1),
            Err(DbError::ScaleTooLarge { .. })
        ));
        let msg = check_scale(100).unwrap_err().to_string();
        assert!(
            msg.contains("10000") && msg.contains("100,000 posts"),
            "{msg}"
        );
    }

    #[test]
    fn estimates_grow_with_the_scale() {
        assert!(estimate_bytes(1_000_000) > 1_000_000 * disk::BYTES_PER_USER);
        assert!(estimate_bytes(10_000) > disk::WAL_BYTES);
        assert_eq!(estimate_bytes(u64::MAX), u64::MAX);
    }
}

/// How a target's resolvers reach the database (`[database] resolvers`).
#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Resolvers {
    /// One SQL query per resolved field (the N+1 pattern).
    Naive,
    /// Per-request DataLoader batching.
    Dataloader,
}

impl Resolvers {
    pub fn as_str(self) -> &'static str {
        match self {
            Resolvers::Naive => "naive",
            Resolvers::Dataloader => "dataloader",
        }
    }
}
