//! The trace collector of a tracing variant: `gqlbench serve-otlp` (an OTLP/HTTP receiver
//! that counts spans, `gqlbench_servers::otlp`) started before the target, pinned with the
//! subgraphs away from it, its URL given as GQLBENCH_OTLP_URL (`http://127.0.0.1:<port>`;
//! traces go to `/v1/traces`). Its counts, read around each trial, prove that the variant
//! exported and give spans per request.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, SpawnSpec, TargetProcess};

pub const URL_ENV: &str = "GQLBENCH_OTLP_URL";

pub struct Collector {
    pub process: TargetProcess,
    pub port: u16,
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
        log: PathBuf,
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
            log,
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
        Ok(Collector { process, port })
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn counts(&self) -> Option<SpanCounts> {
        super::loopback::get_json(self.port, "/stats")
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
    }

    pub fn stop(&mut self) {
        self.process.stop(Duration::from_secs(1));
    }
}
