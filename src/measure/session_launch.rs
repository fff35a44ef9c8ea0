//! A session's steps between its helpers and the spawn (`Session::start`): what the target
//! is started with. The port of its execution counters, the environment the run gives it
//! (the helpers' URLs, the run's own, its ports), its config rendered with that
//! environment, its start command and environment from its target.toml with their
//! variables expanded, the Node GC probe, and the cgroup it is spawned into.
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use super::collector::{self, Collector};
use super::coprocessor::{self, Coprocessor};
use super::session::{StartFailure, StartOptions, COUNTERS_PORT_ENV};
use super::subgraphs::Subgraphs;
use crate::catalog::TargetDef;
use crate::results::TargetStatus;
use crate::sys::cgroup::Cgroup;
use crate::sys::process::free_port;

/// What the target is spawned with.
pub(super) struct Launch {
    pub program: Vec<String>,
    pub env: BTreeMap<String, String>,
}

/// A port for the target's execution counters, when the scenario counts them: taken before
/// the environment that gives it to the target.
pub(super) fn counters_port(o: &StartOptions<'_>) -> Result<Option<u16>, StartFailure> {
    match o.counters {
        false => Ok(None),
        true => free_port().map(Some).map_err(StartFailure::start_failed),
    }
}

/// What the run gives the target: the helpers' URLs, the run's environment for it (which
/// may override them: --target-env), its ports. After the helpers (their URLs), before the
/// config that is rendered with it.
pub(super) fn given_env(
    t: &TargetDef,
    o: &StartOptions<'_>,
    port: u16,
    coprocessor: Option<&Coprocessor>,
    collector: Option<&Collector>,
    counters_port: Option<u16>,
) -> BTreeMap<String, String> {
    let mut given = BTreeMap::new();
    if let Some(c) = coprocessor {
        given.insert(coprocessor::URL_ENV.to_string(), c.url());
    }
    if let Some(c) = collector {
        given.insert(collector::URL_ENV.to_string(), c.url());
    }
    given.extend(o.env.clone());
    if let Some(p) = counters_port {
        given.insert(COUNTERS_PORT_ENV.to_string(), p.to_string());
    }
    given.insert(t.start.port_env.clone(), port.to_string());
    given.insert("HOST".to_string(), "127.0.0.1".to_string());
    given
}

/// The target's config file, rendered with what the run gives it when its target.toml asks
/// (beside the target's log): after the given environment, before the command that names
/// the file.
pub(super) fn config(
    t: &TargetDef,
    o: &StartOptions<'_>,
    given: &BTreeMap<String, String>,
) -> Result<Option<PathBuf>, StartFailure> {
    let Some(c) = t.config_file() else {
        return Ok(None);
    };
    match t.start.render_config {
        false => Ok(Some(c)),
        true => super::config_render::render(&c, &o.log.with_extension("config"), given)
            .map(Some)
            .map_err(StartFailure::start_failed),
    }
}

/// The target's start command and environment, its target.toml's with the variables
/// expanded (`{port}`, `{supergraph}`, `{config}` and the install's), the subgraphs'
/// environment and what the run gives it on top.
pub(super) fn command(
    t: &TargetDef,
    port: u16,
    subgraphs: Option<&Subgraphs>,
    config: Option<PathBuf>,
    given: BTreeMap<String, String>,
) -> Result<Launch, StartFailure> {
    let mut vars = super::install::install_vars(t);
    vars.insert("port", port.to_string());
    if let Some(s) = subgraphs {
        vars.insert("supergraph", s.supergraph.display().to_string());
    }
    if let Some(c) = config {
        vars.insert("config", c.display().to_string());
    }
    let expand = |s: &str| {
        crate::catalog::vars::expand(s, &vars).map_err(|e| {
            StartFailure::new(
                TargetStatus::StartFailed,
                format!("{}: {e}", t.manifest.display()),
                None,
            )
        })
    };
    let mut env = BTreeMap::new();
    for (k, v) in &t.start.env {
        env.insert(k.clone(), expand(v)?);
    }
    if let Some(s) = subgraphs {
        env.extend(s.env());
    }
    env.extend(given);
    let program: Vec<String> = t
        .start
        .command
        .iter()
        .map(|a| expand(a))
        .collect::<Result<_, _>>()?;
    Ok(Launch { program, env })
}

/// A Node target gets the GC probe preloaded (when it is there), writing its counters to
/// the file returned: added last to its environment, on top of its own NODE_OPTIONS.
pub(super) fn gc_probe(
    t: &TargetDef,
    o: &StartOptions<'_>,
    port: u16,
    env: &mut BTreeMap<String, String>,
) -> Option<PathBuf> {
    if !t.is_node() {
        return None;
    }
    let probe = o.node_probe.as_ref().filter(|p| p.is_file())?;
    let f = o.scratch.join(format!("{}-{port}.gc.json", t.name));
    // Keep the target's own NODE_OPTIONS (manifest first, then ours).
    let existing = env
        .get("NODE_OPTIONS")
        .cloned()
        .or_else(|| std::env::var("NODE_OPTIONS").ok())
        .unwrap_or_default();
    env.insert(
        "NODE_OPTIONS".into(),
        format!("{existing} --import={}", probe.display())
            .trim()
            .to_string(),
    );
    env.insert("GQLBENCH_GC_FILE".into(), f.display().to_string());
    Some(f)
}

/// The cgroup the target is spawned into, and a note when it is not as asked. A cgroup is
/// made whenever we may: it gives exact CPU accounting even without limits. Failing to make
/// one is a note, not an error. Made just before the spawn: nothing earlier runs in it.
pub(super) fn cgroup(
    t: &TargetDef,
    o: &StartOptions<'_>,
    port: u16,
) -> (Option<Arc<Cgroup>>, Option<String>) {
    let mut note = None;
    let cgroup = if o.use_cgroups {
        let name = format!("gqlbench.{}.{}.{port}", std::process::id(), t.name);
        match Cgroup::create(&name, o.limits) {
            Ok(c) => Some(Arc::new(c)),
            Err(e) => {
                note = Some(format!("cgroup not applied to {}: {e:#}", t.name));
                None
            }
        }
    } else {
        None
    };
    let cgroup = cgroup.map(|mut c| {
        if o.limits.cpus.is_none() && o.limits.memory_bytes.is_none() {
            if let Some(cg) = Arc::get_mut(&mut c) {
                cg.applied
                    .push_str(" (CPU accounting only; no limits in this scenario)");
            }
        }
        c
    });
    if cgroup.is_none() && (o.limits.cpus.is_some() || o.limits.memory_bytes.is_some()) {
        let n = note.get_or_insert_with(String::new);
        n.push_str(" (scenario limits NOT enforced)");
    }
    (cgroup, note)
}
