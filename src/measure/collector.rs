//! The trace collector of a tracing variant: `gqlbench serve-otlp` (an OTLP/HTTP receiver
//! that counts spans, `gqlbench_servers::otlp`) started before the target, pinned with the
//! subgraphs away from it. Its counts, read around each trial, prove that the variant
//! exported and give spans per request. When the scenario names a real collector
//! (`[overhead] trace_collector`, a target of kind `collector`: an OpenTelemetry Collector
//! built from the Go module proxy), that one is started in front of the counter, on the same
//! CPUs, and forwards to it: the variant exports to the real collector and only spans it
//! accepted are counted. The URL the variant gets is GQLBENCH_OTLP_URL
//! (`http://127.0.0.1:<port>`; traces go to `/v1/traces`).
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::catalog::TargetDef;
use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, SpawnSpec, TargetProcess};

pub const URL_ENV: &str = "GQLBENCH_OTLP_URL";
/// Where a real collector forwards what it received: the counter's URL.
pub const FORWARD_ENV: &str = "GQLBENCH_OTLP_FORWARD_URL";

pub struct Collector {
    /// The span counter.
    pub process: TargetProcess,
    pub port: u16,
    /// The real collector in front of it, and its port.
    front: Option<(TargetProcess, u16)>,
}

/// `GET /stats` of the receiver.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Deserialize)]
pub struct SpanCounts {
    pub requests: u64,
    pub spans: u64,
    pub undecodable: u64,
}

impl Collector {
    pub fn start(
        cpus: Option<&CpuSet>,
        log: &Path,
        real: Option<&TargetDef>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Collector> {
        let port = free_port()?;
        let exe = crate::sys::process::own_exe().context("locating the gqlbench binary")?;
        let argv = vec![
            exe.display().to_string(),
            "serve-otlp".into(),
            "--port".into(),
            port.to_string(),
        ];
        let cwd = std::env::temp_dir();
        let mut process = TargetProcess::spawn(SpawnSpec {
            program: &argv,
            cwd: &cwd,
            env: BTreeMap::new(),
            log: log.to_path_buf(),
            cpus: cpus.cloned(),
            cgroup_procs: vec![],
        })?;
        super::ready::wait_http_ok(
            "the OTLP receiver",
            &mut process,
            port,
            "/health",
            Duration::from_secs(10),
            cancelled,
        )?;
        let mut c = Collector {
            process,
            port,
            front: None,
        };
        if let Some(t) = real {
            // On failure `c` is dropped, and with it the counter.
            c.front = Some(start_front(t, cpus, log, &c.url(), cancelled)?);
        }
        Ok(c)
    }

    /// Where the variant exports: the real collector when there is one, else the counter.
    pub fn url(&self) -> String {
        let port = self.front.as_ref().map_or(self.port, |(_, p)| *p);
        format!("http://127.0.0.1:{port}")
    }

    pub fn counts(&self) -> Option<SpanCounts> {
        super::loopback::get_json(self.port, "/stats")
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
    }

    pub fn stop(&mut self) {
        // The real collector first: it flushes what it holds to the counter as it stops.
        if let Some((p, _)) = self.front.as_mut() {
            p.stop(Duration::from_secs(2));
        }
        self.process.stop(Duration::from_secs(1));
    }
}

/// Starts the real collector `t` (its own start command, in its folder) listening on a free
/// port and forwarding to `forward`; ready when its OTLP/HTTP receiver answers a GET of
/// `/v1/traces` (405: it takes only POST).
fn start_front(
    t: &TargetDef,
    cpus: Option<&CpuSet>,
    log: &Path,
    forward: &str,
    cancelled: &dyn Fn() -> bool,
) -> Result<(TargetProcess, u16)> {
    let (mut process, port) = super::helper_start::spawn(
        t,
        cpus,
        log.with_extension(format!("{}.log", t.name)),
        &[(FORWARD_ENV, forward.to_string())],
    )
    .with_context(|| format!("starting the trace collector {}", t.name))?;
    super::ready::wait_http(
        &format!("the trace collector {}", t.name),
        &mut process,
        port,
        "/v1/traces",
        405,
        t.start.ready_timeout,
        cancelled,
    )?;
    Ok((process, port))
}
