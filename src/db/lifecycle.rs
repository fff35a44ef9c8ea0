//! The throwaway server's life: make a fresh cluster (initdb), start `postgres` on a free
//! loopback port in its own process group, prepare the role, database and extension the
//! targets use, and stop it and remove its folder — on `stop`, and on Drop after any error.
use super::*;

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
    pub(super) fn kept_log(&self) -> String {
        if self.log.starts_with(&self.folder) {
            String::new()
        } else {
            format!(" ({})", self.log.display())
        }
    }

    pub(super) fn block_on<F: Future>(&self, f: F) -> Result<F::Output> {
        let rt = self
            .rt
            .as_ref()
            .context("the database server was stopped")?;
        Ok(rt.block_on(f))
    }

    pub(super) fn admin(&self) -> Result<&Client> {
        self.admin
            .as_ref()
            .map(|a| &a.0)
            .context("the database server was stopped")
    }
}

impl Database {
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
pub(super) async fn connect(port: u16, dbname: &str) -> Result<(Client, JoinHandle<()>)> {
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
