//! A throwaway PostgreSQL server for the database scenarios.
//!
//! `Database::start` makes a fresh cluster in a temporary folder, starts `postgres` on a free
//! loopback port in its own process group (pinned like a target, killed by the kernel if
//! gqlbench dies), and creates the role and database `gqlbench` the targets use.
//! `seed` loads the social data (the same values as `targets/_node/social.mjs`);
//! `queries_executed` counts the statements the targets ran (pg_stat_statements), so the
//! runner can report SQL statements per GraphQL request. `stop` (and Drop, always, also after
//! an error or a crash of the server) stops the server and removes the folder.
//!
//! The API is blocking: the database owns a small single-threaded tokio runtime for its own
//! connections, so its methods must not be called from inside an async task.
//!
//! When gqlbench runs as root the server runs as the `postgres` system user (initdb and
//! postgres refuse root), with the folder owned by that user.
//!
//! The kernel's parent-death signal that kills the server with gqlbench fires when the
//! *thread* that started it ends: start the database from a thread that outlives it (the
//! main thread), as for targets.
pub mod binaries;
pub mod data;
pub mod disk;
pub mod error;
pub mod folder;
mod lifecycle;
use lifecycle::connect;
pub mod options;
pub mod seed;

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::task::JoinHandle;
use tokio_postgres::{Client, NoTls};

use crate::sys::process::{free_port, RunAs, SpawnSpec, TargetProcess};
use crate::sys::procfs::{self, ProcStat};

pub use binaries::{PgBinaries, PG_BIN_ENV};
pub use disk::{check_disk, estimate_bytes};
pub use error::DbError;
pub use options::*;
pub use seed::{SeedReport, TableReport, SCHEMA};

/// What `Database::usage` measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerUsage {
    pub processes: usize,
    /// utime + stime + cutime + cstime over the processes, in clock ticks
    /// (`sys::procfs::clock_ticks()` per second); exited backends count through the
    /// postmaster's cutime/cstime.
    pub cpu_ticks: u64,
    pub rss_bytes: u64,
}

/// A running throwaway PostgreSQL server. Dropping it stops the server and removes its
/// folder.
pub struct Database {
    folder: PathBuf,
    data_dir: PathBuf,
    log: PathBuf,
    port: u16,
    version: String,
    process: Option<TargetProcess>,
    rt: Option<tokio::runtime::Runtime>,
    /// Superuser connection to the gqlbench database, for statistics.
    admin: Option<(Client, JoinHandle<()>)>,
    seeded: Option<u64>,
    removed: bool,
}

impl Database {
    /// The connection URL for targets.
    pub fn url(&self) -> String {
        format!("postgres://{ROLE}@127.0.0.1:{}/{DATABASE}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The postmaster's pid; 0 once stopped. Its children are listed by `processes`.
    pub fn pid(&self) -> i32 {
        self.process.as_ref().map(|p| p.pid).unwrap_or(0)
    }

    /// Every process of the server: the postmaster and its children (backends, background
    /// workers), for CPU and memory sampling with `sys::procfs::stat`. The postmaster's
    /// session does not hold them (each child is a session of its own), and the postmaster's
    /// cutime/cstime include the children that have already exited.
    pub fn processes(&self) -> Vec<i32> {
        if self.removed {
            return Vec::new();
        }
        folder::processes_in(&self.data_dir)
    }

    /// CPU time and resident memory of the whole server now (sum over `processes`; take
    /// deltas of `cpu_ticks` over a window). RSS counts the shared buffers once per process
    /// that touched them, so it overstates the server's real memory.
    pub fn usage(&self) -> ServerUsage {
        let stats: Vec<ProcStat> = self
            .processes()
            .into_iter()
            .filter_map(procfs::stat)
            .collect();
        ServerUsage {
            processes: stats.len(),
            cpu_ticks: stats.iter().map(|s| s.cpu_ticks).sum(),
            rss_bytes: stats.iter().map(|s| s.rss_pages).sum::<u64>() * procfs::page_size(),
        }
    }

    /// `SHOW server_version`, e.g. "15.18 (Debian 15.18-0+deb12u1)".
    pub fn server_version(&self) -> &str {
        &self.version
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The temporary folder holding the data folder (and the logs unless placed elsewhere).
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    pub fn log(&self) -> &Path {
        &self.log
    }

    /// None while the server runs; its exit status once it has ended (a crash).
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.process.as_mut().and_then(|p| p.exited())
    }

    pub fn log_tail(&self, lines: usize) -> String {
        crate::sys::process::log_tail(&self.log, lines)
    }

    /// Load `scale` users (at least 10,000) with their posts, comments and followers.
    /// `progress(rows_done, rows_total)` is called as rows are sent (for a progress bar; the
    /// index builds after the last rows take about a fifth of the time and report nothing).
    /// One seed per database: a second call, or a call after a failed one, is refused.
    pub fn seed(&mut self, scale: u64, progress: &(dyn Fn(u64, u64) + Sync)) -> Result<SeedReport> {
        self.seed_cancellable(scale, progress, &|| false)
    }

    /// `seed` that stops with an error soon after `cancelled()` turns true (Ctrl-C); it is
    /// polled as rows are sent.
    pub fn seed_cancellable(
        &mut self,
        scale: u64,
        progress: &(dyn Fn(u64, u64) + Sync),
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<SeedReport> {
        if let Some(s) = self.seeded {
            bail!("this database was already seeded (or its seed failed) with {s} users; start another one to seed again");
        }
        check_scale_and_disk(scale, &self.folder)?;
        // Set before loading: a failed load leaves tables behind, so it cannot be retried.
        self.seeded = Some(scale);
        let port = self.port;
        let (tables, seconds) = self.block_on(async move {
            let mut clients = Vec::new();
            let mut handles = Vec::new();
            for _ in 0..5 {
                let (c, h) = connect(port, DATABASE).await?;
                clients.push(c);
                handles.push(h);
            }
            let clients: [Client; 5] = clients
                .try_into()
                .map_err(|_| anyhow::anyhow!("five connections expected"))?;
            let r = seed::seed(&clients, scale, ROLE, progress, cancelled).await;
            drop(clients);
            for h in handles {
                let _ = tokio::time::timeout(Duration::from_secs(5), h).await;
            }
            r
        })??;
        let admin = self.admin()?;
        let db_bytes: i64 = self
            .block_on(async {
                tokio::time::timeout(
                    QUERY_TIMEOUT,
                    admin.query_one("SELECT pg_database_size(current_database())", &[]),
                )
                .await
            })?
            .context("database size: no answer")?
            .context("database size")?
            .try_get(0)?;
        Ok(SeedReport {
            scale,
            rows: tables.iter().map(|t| t.rows).sum(),
            tables,
            seconds,
            database_bytes: db_bytes.max(0) as u64,
            data_dir_bytes: folder::disk_usage(&self.data_dir),
        })
    }

    /// Statements run so far by the `gqlbench` role in the `gqlbench` database (the
    /// targets'; gqlbench's own connections use the superuser). Data statements only
    /// (SELECT/INSERT/UPDATE/DELETE), top-level ones as clients send them.
    ///
    /// The count is complete as soon as the clients have their answers: pg_stat_statements
    /// records a statement when its executor ends, which is before the server reports the
    /// statement (or, with the extended protocol, its Sync) done. One exception: inside an
    /// explicit transaction that is still open, the last extended-protocol statement is
    /// recorded only when the next one starts or the transaction ends (tests/db.rs checks
    /// both), so a target must not hold a transaction open across GraphQL requests.
    pub fn queries_executed(&self) -> Result<u64> {
        let admin = self.admin()?;
        let row = self
            .block_on(async {
                tokio::time::timeout(
                    QUERY_TIMEOUT,
                    admin.query_one(
                        "SELECT coalesce(sum(s.calls), 0)::bigint \
                         FROM pg_stat_statements(false) s \
                         JOIN pg_roles r ON r.oid = s.userid \
                         JOIN pg_database d ON d.oid = s.dbid \
                         WHERE r.rolname = $1 AND d.datname = $2",
                        &[&ROLE, &DATABASE],
                    ),
                )
                .await
            })?
            .context("counting statements: no answer")?
            .context("counting statements (pg_stat_statements)")?;
        let n: i64 = row.try_get(0)?;
        Ok(n.max(0) as u64)
    }

    /// Statement entries pg_stat_statements has evicted since the start (more distinct
    /// statements than `pg_stat_statements.max`). If it changes during a trial, that trial's
    /// count of statements is a lower bound.
    pub fn statement_evictions(&self) -> Result<u64> {
        let admin = self.admin()?;
        let row = self
            .block_on(async {
                tokio::time::timeout(
                    QUERY_TIMEOUT,
                    admin.query_one("SELECT dealloc FROM pg_stat_statements_info", &[]),
                )
                .await
            })?
            .context("reading pg_stat_statements_info: no answer")?
            .context("reading pg_stat_statements_info")?;
        let n: i64 = row.try_get(0)?;
        Ok(n.max(0) as u64)
    }
}
