//! How a run starts a helper target beside a variant (a coprocessor, a real trace
//! collector): its own start command and environment from its target.toml, `{port}` and
//! `{config}` expanded, on a free loopback port, pinned to the CPUs given (the subgraphs').
//! Readiness is the caller's: each kind of helper answers a different probe.
use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Result;

use crate::catalog::TargetDef;
use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, SpawnSpec, TargetProcess};

/// Spawns `t` with `extra` added to its environment; returns the process and its port.
pub fn spawn(
    t: &TargetDef,
    cpus: Option<&CpuSet>,
    log: PathBuf,
    extra: &[(&str, String)],
) -> Result<(TargetProcess, u16)> {
    let port = free_port()?;
    let mut vars = super::install::install_vars(t);
    vars.insert("port", port.to_string());
    if let Some(c) = t.config_file() {
        vars.insert("config", c.display().to_string());
    }
    let expand = |s: &String| {
        crate::catalog::vars::expand(s, &vars).map_err(|e| {
            anyhow::Error::from(crate::error::CatalogError::File {
                file: t.manifest.clone(),
                message: e.to_string(),
            })
        })
    };
    let program: Vec<String> = t.start.command.iter().map(expand).collect::<Result<_>>()?;
    let mut env = BTreeMap::new();
    for (k, v) in &t.start.env {
        env.insert(k.clone(), expand(v)?);
    }
    env.insert(t.start.port_env.clone(), port.to_string());
    for (k, v) in extra {
        env.insert((*k).to_string(), v.clone());
    }
    let process = TargetProcess::spawn(SpawnSpec {
        program: &program,
        cwd: &t.dir,
        env,
        log,
        cpus: cpus.cloned(),
        cgroup_procs: vec![],
    })?;
    Ok((process, port))
}
