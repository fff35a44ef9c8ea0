//! The coprocessor a gateway variant calls per request (an Apollo Router external
//! coprocessor): started before the gateway, pinned with the subgraphs away from the
//! gateway, ready when `GET /health` answers 200, its URL given to the gateway as
//! GQLBENCH_COPROCESSOR_URL; `GET /stats` gives its calls per endpoint, read around
//! each trial for calls per client request. The contract every language's coprocessor
//! keeps is targets/_coprocessors/CONTRACT.md.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Result;

use crate::catalog::TargetDef;
use crate::sys::cpus::CpuSet;
use crate::sys::process::TargetProcess;

/// The variable that carries the coprocessor's URL to the gateway's config.
pub const URL_ENV: &str = "GQLBENCH_COPROCESSOR_URL";

pub struct Coprocessor {
    pub name: String,
    pub process: TargetProcess,
    pub port: u16,
}

impl Coprocessor {
    pub fn start(
        t: &TargetDef,
        cpus: Option<&CpuSet>,
        log: PathBuf,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Coprocessor> {
        let (mut process, port) =
            super::helper_start::spawn(t, cpus, log, &[("HOST", "127.0.0.1".to_string())])?;
        super::ready::wait_http_ok(
            &format!("coprocessor {}", t.name),
            &mut process,
            port,
            &t.start.path,
            t.start.ready_timeout,
            cancelled,
        )?;
        Ok(Coprocessor {
            name: t.name.clone(),
            process,
            port,
        })
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Calls served per endpoint since start (None when it cannot be read).
    pub fn stats(&self) -> Option<BTreeMap<String, u64>> {
        super::loopback::get_json(self.port, "/stats")
            .ok()
            .and_then(|v| serde_json::from_value(v).ok())
    }

    /// Calls served in all since start.
    pub fn calls(&self) -> Option<u64> {
        self.stats().map(|s| {
            s.iter()
                .filter(|(k, _)| k.as_str() != "rejected")
                .map(|(_, v)| v)
                .sum()
        })
    }

    pub fn stop(&mut self) {
        self.process.stop(Duration::from_secs(2));
    }
}

/// Where a target's coprocessor logs, beside the target's own log.
pub fn log_path(target_log: &Path) -> PathBuf {
    target_log.with_extension("coprocessor.log")
}
