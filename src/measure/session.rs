//! One started target: the `Session` (its process, endpoint, cgroup, probe files and the
//! helpers started with it), what starting one is given (`StartOptions`) and how it fails
//! (`StartFailure`), and its start, in order, and stop. The start's steps live beside it:
//! `session_helpers` (the subgraphs, the coprocessor, the trace collector),
//! `session_launch` (the environment, the rendered config, the command, the Node GC probe,
//! the cgroup) and `session_ready` (the spawn, readiness and the checks once ready).
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gqlbench_engine::Endpoint;

use super::collector::Collector;
use super::coprocessor::Coprocessor;
use super::subgraphs::Subgraphs;
use super::{session_helpers, session_launch, session_ready};
use crate::catalog::TargetDef;
use crate::results::TargetStatus;
use crate::sys::cgroup::{Cgroup, Limits};
use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, TargetProcess};

pub struct Session {
    pub process: TargetProcess,
    pub endpoint: Endpoint,
    pub cgroup: Option<Arc<Cgroup>>,
    pub gc_file: Option<PathBuf>,
    pub ready_s: f64,
    pub rss_idle_bytes: Option<u64>,
    pub verified_cpus: Option<Vec<usize>>,
    /// The subgraphs of a federation gateway (stopped with it).
    pub subgraphs: Option<Subgraphs>,
    /// The coprocessor of a gateway variant (stopped with it).
    pub coprocessor: Option<Coprocessor>,
    /// The trace collector of a tracing variant (stopped with it).
    pub collector: Option<Collector>,
    /// Headers every response must carry (a customization's proof, checked by the engine).
    pub response_headers: Option<gqlbench_engine::HeaderRule>,
    /// What this gateway variant adds to each request, to be proven per trial.
    pub customization: Option<crate::catalog::target_def::Customization>,
    /// Where the target serves its execution counters (`GET /counters`), when the scenario
    /// counts them (a response cache's hits are the executions it saved).
    pub counters_port: Option<u16>,
}

/// The environment variable that gives a server the port of its execution counters
/// (targets/_node/counters.mjs serves them for every Node server).
pub const COUNTERS_PORT_ENV: &str = "GQLBENCH_COUNTERS_PORT";

/// What a gateway target needs besides itself.
pub struct FederationStart<'a> {
    pub root: &'a Path,
    pub graph: &'a crate::catalog::graph::GraphPlan,
    pub delays: &'a std::collections::BTreeMap<String, String>,
    /// CPUs for the subgraphs: away from the gateway.
    pub cpus: Option<&'a CpuSet>,
}

impl<'a> FederationStart<'a> {
    /// What gateway `t` of scenario `sp` needs beside it (its checkout's subgraphs, the
    /// scenario's delays, the generator CPUs for them); None for a target that is not a
    /// gateway.
    pub fn for_target<K: ?Sized>(
        t: &TargetDef,
        plan: &'a crate::plan::RunPlan<K>,
        sp: &'a crate::plan::ScenarioPlan<K>,
        root: &'a Path,
    ) -> Option<FederationStart<'a>> {
        static NO_DELAYS: std::collections::BTreeMap<String, String> =
            std::collections::BTreeMap::new();
        (t.kind == crate::catalog::TargetKind::Gateway).then(|| FederationStart {
            root,
            graph: &sp.graph,
            delays: sp.subgraphs.as_ref().unwrap_or(&NO_DELAYS),
            cpus: plan.isolation.generator.as_ref(),
        })
    }
}

/// Why a target could not be brought up.
pub struct StartFailure {
    pub status: TargetStatus,
    pub problem: String,
    pub log_tail: Option<String>,
}

impl StartFailure {
    pub(super) fn new(status: TargetStatus, problem: String, log_tail: Option<String>) -> Self {
        StartFailure {
            status,
            problem,
            log_tail,
        }
    }

    /// A step that could not be done: the target did not start, with no log of its own yet.
    pub(super) fn start_failed(e: anyhow::Error) -> Self {
        StartFailure::new(TargetStatus::StartFailed, format!("{e:#}"), None)
    }
}

pub struct StartOptions<'a> {
    pub cpus: Option<&'a CpuSet>,
    pub use_cgroups: bool,
    pub limits: &'a Limits,
    pub log: PathBuf,
    /// Folder for probe files (GC counters).
    pub scratch: PathBuf,
    /// Where the shared Node preload lives (targets/_node/gc-probe.mjs).
    pub node_probe: Option<PathBuf>,
    pub cancelled: &'a dyn Fn() -> bool,
    pub federation: Option<FederationStart<'a>>,
    /// Extra environment for the target (database URL, resolvers, publish rate).
    pub env: std::collections::BTreeMap<String, String>,
    /// Cold-start measurement: poll readiness every few ms and read memory the moment the
    /// target is ready (no settling pause).
    pub cold: bool,
    /// Headers the readiness probe carries (the scenario's: a gateway may refuse requests
    /// without its token).
    pub headers: Vec<(String, String)>,
    /// CPUs for a variant's helpers (coprocessor, trace collector): away from the target.
    pub helper_cpus: Option<&'a CpuSet>,
    /// A real trace collector in front of the span counter (`[overhead] trace_collector`).
    pub trace_collector: Option<&'a TargetDef>,
    /// Give the target a port for its execution counters and check that it serves them.
    pub counters: bool,
}

impl<'a> StartOptions<'a> {
    /// How a scenario starts a target: on the target CPUs, in a cgroup (when allowed) with
    /// the scenario's limits, its output in `log_rel` under the run folder, the Node GC
    /// probe preloaded. `cold`: measure a fresh start (no settling pause, fast polling).
    pub fn for_scenario<K: ?Sized>(
        plan: &'a crate::plan::RunPlan<K>,
        sp: &'a crate::plan::ScenarioPlan<K>,
        root: &Path,
        env: &std::collections::BTreeMap<String, String>,
        log_rel: &str,
        cancelled: &'a dyn Fn() -> bool,
        cold: bool,
    ) -> StartOptions<'a> {
        let out = &plan.out_dir;
        let mut env = env.clone();
        env.extend(plan.target_env.clone());
        StartOptions {
            cpus: plan.isolation.target.as_ref(),
            use_cgroups: plan.isolation.cgroups,
            limits: &sp.limits,
            log: out.join(log_rel),
            scratch: out.join("logs"),
            node_probe: Some(root.join("targets/_node/gc-probe.mjs")),
            cancelled,
            federation: None,
            env,
            cold,
            headers: sp.load.headers.clone(),
            helper_cpus: plan.isolation.generator.as_ref(),
            trace_collector: sp.needs.trace_collector.as_ref(),
            counters: sp.needs.counts_executions,
        }
    }
}

impl Session {
    /// Starts `t` as `o` says, with what it needs beside it; the note says what was not as
    /// asked without stopping the start (no cgroup). Each step returns its failure at once;
    /// what earlier steps started is stopped as it is dropped (the target first).
    pub fn start(
        t: &TargetDef,
        o: StartOptions<'_>,
    ) -> Result<(Session, Option<String>), StartFailure> {
        // The target's port first: the start variables, its environment and its config
        // name it.
        let port = free_port().map_err(StartFailure::start_failed)?;
        // Before anything is started: a gateway that cannot serve the graph is skipped.
        session_helpers::check_graph(t, o.federation.as_ref())?;
        // The helpers before the target, which is given their addresses: the subgraphs
        // (their supergraph too), the coprocessor, the trace collector.
        let subgraphs = session_helpers::subgraphs(t, &o)?;
        let coprocessor = session_helpers::coprocessor(t, &o)?;
        let collector = session_helpers::collector(t, &o)?;
        // What the run gives the target, which its config is rendered with.
        let counters_port = session_launch::counters_port(&o)?;
        let given = session_launch::given_env(
            t,
            &o,
            port,
            coprocessor.as_ref(),
            collector.as_ref(),
            counters_port,
        );
        let config = session_launch::config(t, &o, &given)?;
        // Its command and environment name the rendered config, the supergraph and what it
        // is given; the GC probe goes on top of whatever NODE_OPTIONS they set.
        let mut launch = session_launch::command(t, port, subgraphs.as_ref(), config, given)?;
        let gc_file = session_launch::gc_probe(t, &o, port, &mut launch.env);
        // The cgroup last before the spawn, which puts the target in it.
        let (cgroup, note) = session_launch::cgroup(t, &o, port);
        // The spawn (start-up time counts from just before it), then readiness and the
        // checks of a ready target.
        let (mut process, endpoint, spawned) =
            session_ready::spawn(t, &o, port, launch, cgroup.as_deref())?;
        let up = session_ready::wait(
            t,
            &o,
            &mut process,
            &endpoint,
            spawned,
            cgroup.as_deref(),
            counters_port,
        )?;
        Ok((
            Session {
                process,
                endpoint,
                cgroup,
                gc_file,
                ready_s: up.ready_s,
                rss_idle_bytes: up.rss_idle_bytes,
                verified_cpus: up.verified_cpus,
                subgraphs,
                coprocessor,
                collector,
                response_headers: super::customization::response_rule(t.customization.as_ref()),
                customization: t.customization.clone(),
                counters_port,
            },
            note,
        ))
    }

    pub fn stop(&mut self) {
        self.process.stop(Duration::from_secs(3));
        if let Some(s) = self.subgraphs.as_mut() {
            s.stop();
        }
        if let Some(c) = self.coprocessor.as_mut() {
            c.stop();
        }
        if let Some(c) = self.collector.as_mut() {
            c.stop();
        }
    }

    /// Root fields the server has resolved since it started, by its own count (when the
    /// scenario counts them); None when it cannot be read.
    pub fn executions(&self) -> Option<u64> {
        read_executions(self.counters_port?).ok()
    }

    /// The engine's plan for a run against this session (warm-up or measured): every
    /// closed-model connection primed before the start (docs/method.md, "The load"), and
    /// the customization's response headers required of every answer.
    pub fn engine_plan(
        &self,
        load: &crate::plan::load::Load,
        ops: &[gqlbench_engine::Operation],
        generator: Option<&CpuSet>,
        warmup: Duration,
        stop: gqlbench_engine::Stop,
    ) -> gqlbench_engine::LoadPlan {
        let mut p = load.engine_plan(self.endpoint.clone(), ops.to_vec(), generator, warmup, stop);
        p.prime = true;
        p.response_headers = self.response_headers.clone();
        p
    }
}

/// A server's execution count from its counters port: `{"executions": N}`.
pub(super) fn read_executions(port: u16) -> anyhow::Result<u64> {
    let v = super::loopback::get_json(port, "/counters")?;
    v.get("executions")
        .and_then(|x| x.as_u64())
        .ok_or_else(|| anyhow::anyhow!("GET /counters answered {v}, without \"executions\""))
}
