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
pub mod seed;

use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::task::JoinHandle;
use tokio_postgres::{Client, NoTls};

use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, RunAs, SpawnSpec, TargetProcess};
use crate::sys::procfs::{self, ProcStat};

pub use binaries::{PgBinaries, PG_BIN_ENV};
pub use disk::{check_disk, estimate_bytes};
pub use error::DbError;
pub use seed::{SeedReport, TableReport, SCHEMA};

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
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// initdb of an empty cluster takes a second or two; this is for slow disks.
const INITDB_TIMEOUT: Duration = Duration::from_secs(180);
/// A statistics query answers in milliseconds; this only keeps a frozen server from hanging
/// the runner.
const QUERY_TIMEOUT: Duration = Duration::from_secs(60);
/// Unix socket paths longer than this do not fit `sockaddr_un.sun_path` (108 bytes with the
/// terminating NUL).
const MAX_SOCKET_PATH: usize = 107;

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
    /// Make, start and prepare a fresh server. On error nothing is left running and the
    /// folder is removed.
    pub fn start(opts: DbOptions) -> Result<Database> {
        let bins = match &opts.binaries {
            Some(b) => b.clone(),
            None => PgBinaries::locate()?,
        };
        let run_as = server_user()?;
        let base = opts.base_dir();
        std::fs::create_dir_all(&base).with_context(|| format!("creating {}", base.display()))?;
        folder::remove_stale(&base);
        if let Some(scale) = opts.scale {
            check_scale_and_disk(scale, &base)?;
        }
        if let Some(u) = &run_as {
            folder::check_reachable(&base, u)?;
        }
        let dir = folder::create(&base)?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("building the database's runtime")?;
        let mut db = Database {
            data_dir: dir.join("data"),
            log: opts.log.clone().unwrap_or_else(|| dir.join("postgres.log")),
            folder: dir,
            port: 0,
            version: String::new(),
            process: None,
            rt: Some(rt),
            admin: None,
            seeded: None,
            removed: false,
        };
        // From here on an error drops `db`, which stops what was started and removes the
        // folder.
        db.init(&bins, &opts, run_as.as_ref())?;
        Ok(db)
    }

    fn init(&mut self, bins: &PgBinaries, opts: &DbOptions, run_as: Option<&RunAs>) -> Result<()> {
        if let Some(u) = run_as {
            std::os::unix::fs::chown(&self.folder, Some(u.uid), Some(u.gid)).with_context(
                || format!("giving {} to the `{}` user", self.folder.display(), u.name),
            )?;
        }
        self.initdb(bins, opts, run_as)?;
        let mut last_err = None;
        // A port found free can be taken by another process before the server binds it;
        // then the server exits at once and another port is tried.
        for _ in 0..3 {
            let port = free_port()?;
            match self.start_server(bins, opts, run_as, port)? {
                Ok(()) => {
                    last_err = None;
                    break;
                }
                Err(e) => last_err = Some(e),
            }
        }
        if let Some(e) = last_err {
            return Err(e);
        }
        self.prepare()
    }

    fn initdb(
        &mut self,
        bins: &PgBinaries,
        opts: &DbOptions,
        run_as: Option<&RunAs>,
    ) -> Result<()> {
        let program: Vec<String> = vec![
            bins.initdb.display().to_string(),
            "-D".into(),
            self.data_dir.display().to_string(),
            "-U".into(),
            SUPERUSER.into(),
            // Only loopback clients exist, and the data is throwaway.
            "--auth=trust".into(),
            "--encoding=UTF8".into(),
            // Byte-wise sorting: the same order on every machine, whatever its locales.
            "--locale=C".into(),
            // Nothing of the cluster needs to survive a crash.
            "--no-sync".into(),
        ];
        let log = self.folder.join("initdb.log");
        let mut p = TargetProcess::spawn_as(
            SpawnSpec {
                program: &program,
                cwd: &self.folder,
                env: BTreeMap::new(),
                log: log.clone(),
                cpus: opts.cpus.clone(),
                cgroup_procs: Vec::new(),
            },
            run_as,
        )?;
        let deadline = Instant::now() + INITDB_TIMEOUT;
        let status = loop {
            if let Some(st) = p.exited() {
                break st;
            }
            if Instant::now() > deadline {
                p.stop(Duration::from_secs(1));
                bail!(
                    "initdb did not finish within {} s; its output ends with:\n{}",
                    INITDB_TIMEOUT.as_secs(),
                    p.log_tail(20)
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if !status.success() {
            bail!(
                "`{}` failed ({status}); its output ends with:\n{}",
                program.join(" "),
                p.log_tail(20)
            );
        }
        Ok(())
    }

    /// Start the server on `port` and wait until it accepts connections. The outer error is
    /// final; the inner one means "the port was taken, try another".
    fn start_server(
        &mut self,
        bins: &PgBinaries,
        opts: &DbOptions,
        run_as: Option<&RunAs>,
        port: u16,
    ) -> Result<Result<()>> {
        let socket_dir = self.data_dir.display().to_string();
        // The socket is made in the data folder, so it never collides with a system server's
        // (/var/run/postgresql may not even be writable); a path too long for a Unix socket
        // (or one that cannot be quoted) means TCP only.
        let socket_ok = socket_dir.len() + "/.s.PGSQL.65535".len() <= MAX_SOCKET_PATH
            && !socket_dir.contains('"');
        let mut program = vec![
            bins.postgres.display().to_string(),
            "-D".into(),
            self.data_dir.display().to_string(),
            "-c".into(),
            format!("port={port}"),
            "-c".into(),
            // Loopback only: nothing outside this machine can reach the throwaway server.
            "listen_addresses=127.0.0.1".into(),
            "-c".into(),
            if socket_ok {
                format!("unix_socket_directories=\"{socket_dir}\"")
            } else {
                "unix_socket_directories=".into()
            },
        ];
        for (k, v) in SETTINGS {
            program.push("-c".into());
            program.push(format!("{k}={v}"));
        }
        self.port = port;
        self.process = Some(TargetProcess::spawn_as(
            SpawnSpec {
                program: &program,
                cwd: &self.folder,
                env: BTreeMap::new(),
                log: self.log.clone(),
                cpus: opts.cpus.clone(),
                cgroup_procs: opts.cgroup_procs.clone(),
            },
            run_as,
        )?);
        let deadline = Instant::now() + opts.start_timeout;
        loop {
            if let Some(st) = self.process.as_mut().and_then(|p| p.exited()) {
                let tail = crate::sys::process::log_tail(&self.log, 20);
                if let Some(mut p) = self.process.take() {
                    p.stop(Duration::from_secs(1));
                }
                if tail.contains("could not bind") || tail.contains("already in use") {
                    return Ok(Err(anyhow::anyhow!(
                        "PostgreSQL could not listen on 127.0.0.1:{port}; its log ends with:\n{tail}"
                    )));
                }
                let hint = if tail.contains("pg_stat_statements") {
                    "\n(the pg_stat_statements module is missing: install PostgreSQL's contrib modules, e.g. `dnf install postgresql-contrib` on Fedora/RHEL; Debian's `postgresql` package has it)"
                } else {
                    ""
                };
                bail!(
                    "PostgreSQL exited during start-up ({st}); its log{} ends with:\n{tail}{hint}",
                    self.kept_log()
                );
            }
            let attempt = self.block_on(async {
                tokio::time::timeout(Duration::from_secs(2), connect(port, "postgres")).await
            })?;
            if let Ok(Ok((client, handle))) = attempt {
                drop(client);
                self.block_on(async {
                    let _ = tokio::time::timeout(Duration::from_secs(2), handle).await;
                })?;
                return Ok(Ok(()));
            }
            if Instant::now() > deadline {
                bail!(
                    "PostgreSQL did not accept connections on 127.0.0.1:{port} within {} s; its log{} ends with:\n{}",
                    opts.start_timeout.as_secs(),
                    self.kept_log(),
                    crate::sys::process::log_tail(&self.log, 20)
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The role and database of the targets, and the statistics extension.
    fn prepare(&mut self) -> Result<()> {
        let port = self.port;
        let (admin, version) = self.block_on(async move {
            let (c, h) = connect(port, "postgres").await?;
            // One statement per call: CREATE DATABASE cannot run inside the implicit
            // transaction of a multi-statement string.
            c.batch_execute(&format!("CREATE ROLE {ROLE} LOGIN"))
                .await
                .context("creating the gqlbench role")?;
            c.batch_execute(&format!("CREATE DATABASE {DATABASE} OWNER {ROLE}"))
                .await
                .context("creating the gqlbench database")?;
            drop(c);
            let _ = tokio::time::timeout(Duration::from_secs(2), h).await;
            let (c, h) = connect(port, DATABASE).await?;
            c.batch_execute("CREATE EXTENSION pg_stat_statements")
                .await
                .context("CREATE EXTENSION pg_stat_statements")?;
            let version: String = c
                .query_one("SHOW server_version", &[])
                .await
                .context("reading the server version")?
                .try_get(0)?;
            anyhow::Ok(((c, h), version))
        })??;
        self.admin = Some(admin);
        self.version = version;
        Ok(())
    }

    /// " (<path>)" when the server's log outlives the temporary folder, for messages.
    fn kept_log(&self) -> String {
        if self.log.starts_with(&self.folder) {
            String::new()
        } else {
            format!(" ({})", self.log.display())
        }
    }

    fn block_on<F: Future>(&self, f: F) -> Result<F::Output> {
        let rt = self
            .rt
            .as_ref()
            .context("the database server was stopped")?;
        Ok(rt.block_on(f))
    }

    fn admin(&self) -> Result<&Client> {
        self.admin
            .as_ref()
            .map(|a| &a.0)
            .context("the database server was stopped")
    }

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

    /// Stop the server (fast shutdown: SIGINT, then SIGKILL to its group after a grace) and
    /// remove the folder. Idempotent; also works when the server crashed or was killed.
    pub fn stop(&mut self) -> Result<()> {
        if let Some((client, handle)) = self.admin.take() {
            // Our connection ends first, so the shutdown does not wait on it.
            drop(client);
            let _ = self.block_on(async {
                let _ = tokio::time::timeout(Duration::from_secs(1), handle).await;
            });
        }
        if let Some(mut p) = self.process.take() {
            // exited() reaps a dead postmaster, so the pid signalled below is still ours.
            if p.exited().is_none() {
                // SAFETY: kill on the pid of our own unreaped child.
                unsafe {
                    libc::kill(p.pid, libc::SIGINT);
                }
                let deadline = Instant::now() + SHUTDOWN_GRACE;
                while p.exited().is_none() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            // Whatever is left of the group (everything, if the shutdown hung or the
            // postmaster was killed and left backends) is killed and waited for.
            p.stop(Duration::from_millis(500));
        }
        // Children of the postmaster are sessions of their own, out of reach of the group
        // kill; after a clean shutdown none is left, after a killed postmaster some may be.
        if !self.removed {
            folder::kill_processes_in(&self.data_dir, Duration::from_secs(5));
        }
        if self.removed {
            return Ok(());
        }
        // A server killed with SIGKILL leaves its System V segment; postmaster.pid says which.
        if let Some(shm) = folder::read_postmaster_pid(&self.data_dir).and_then(|p| p.shm) {
            folder::remove_shm(shm);
        }
        match std::fs::remove_dir_all(&self.folder) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("removing {}", self.folder.display())),
        }
        self.removed = true;
        Ok(())
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let Err(e) = self.stop() {
            eprintln!("warning: stopping the database server: {e:#}");
        }
    }
}

/// A connection to the local server as the superuser; its driver runs as a task of the
/// current runtime, and the handle ends when the client is dropped.
async fn connect(port: u16, dbname: &str) -> Result<(Client, JoinHandle<()>)> {
    let (client, conn) = tokio_postgres::Config::new()
        .host("127.0.0.1")
        .port(port)
        .user(SUPERUSER)
        .dbname(dbname)
        .application_name("gqlbench")
        .connect_timeout(Duration::from_secs(5))
        .connect(NoTls)
        .await
        .with_context(|| format!("connecting to PostgreSQL on 127.0.0.1:{port}"))?;
    let handle = tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok((client, handle))
}

#[cfg(test)]
mod tests {
    use super::*;

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
