//! One started target: its process, endpoint, cgroup and probe files, from spawn to stop.
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use gqlbench_engine::Endpoint;

use super::collector::{self, Collector};
use super::coprocessor::{self, Coprocessor};
use super::ready::{wait_ready, Readiness};
use super::subgraphs::{self, Subgraphs};
use super::vitals;
use crate::catalog::TargetDef;
use crate::results::TargetStatus;
use crate::sys::cgroup::{Cgroup, Limits};
use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, SpawnSpec, TargetProcess};
use crate::sys::procfs;

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
    pub customization: Option<crate::catalog::target::Customization>,
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
    pub graph: gqlbench_subgraphs::graph::Graph,
    pub delays: &'a std::collections::BTreeMap<String, String>,
    /// CPUs for the subgraphs: away from the gateway.
    pub cpus: Option<&'a CpuSet>,
}

/// Why a target could not be brought up.
pub struct StartFailure {
    pub status: TargetStatus,
    pub problem: String,
    pub log_tail: Option<String>,
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
    pub fn start(
        t: &TargetDef,
        o: StartOptions<'_>,
    ) -> Result<(Session, Option<String>), StartFailure> {
        let fail = |status, problem: String, tail: Option<String>| StartFailure {
            status,
            problem,
            log_tail: tail,
        };
        let port =
            free_port().map_err(|e| fail(TargetStatus::StartFailed, format!("{e:#}"), None))?;
        if let Some(f) = &o.federation {
            if !t.serves_graph(f.graph) {
                return Err(fail(
                    TargetStatus::Skipped,
                    format!(
                        "not run on the {} graph: its configuration names the subgraphs of the demo graph only ([federation] graphs in {})",
                        f.graph,
                        t.dir.join("target.toml").display()
                    ),
                    None,
                ));
            }
        }
        let subgraphs = match &o.federation {
            None => None,
            Some(f) => Some(
                Subgraphs::start(subgraphs::Start {
                    root: f.root,
                    graph: f.graph,
                    version: t.federation_version(),
                    delays: f.delays,
                    cpus: f.cpus,
                    log: o.log.with_extension("subgraphs.log"),
                    supergraph_out: o.log.with_extension("supergraph.graphql"),
                    cancelled: o.cancelled,
                })
                .map_err(|e| fail(TargetStatus::StartFailed, format!("subgraphs: {e:#}"), None))?,
            ),
        };
        let mut vars = crate::measure::install::install_vars(t);
        vars.insert("port", port.to_string());
        if let Some(s) = &subgraphs {
            vars.insert("supergraph", s.supergraph.display().to_string());
        }
        // A gateway variant's coprocessor runs where the subgraphs do (away from it).
        let coprocessor = match &t.coprocessor_def {
            None => None,
            Some(c) => Some(
                Coprocessor::start(c, o.helper_cpus, coprocessor::log_path(&o.log), o.cancelled)
                    .map_err(|e| fail(TargetStatus::StartFailed, format!("{e:#}"), None))?,
            ),
        };
        let tracing = t
            .customization
            .as_ref()
            .is_some_and(|c| c.does == crate::catalog::target::Customizes::Tracing);
        let collector = match tracing {
            false => None,
            true => Some(
                Collector::start(
                    o.helper_cpus,
                    &o.log.with_extension("otlp.log"),
                    o.trace_collector,
                    o.cancelled,
                )
                .map_err(|e| fail(TargetStatus::StartFailed, format!("{e:#}"), None))?,
            ),
        };
        // What the run gives the target: the helpers' URLs, the run's environment for it
        // (which may override them: --target-env), its port.
        let mut given = std::collections::BTreeMap::new();
        if let Some(c) = &coprocessor {
            given.insert(coprocessor::URL_ENV.to_string(), c.url());
        }
        if let Some(c) = &collector {
            given.insert(collector::URL_ENV.to_string(), c.url());
        }
        given.extend(o.env.clone());
        let counters_port = match o.counters {
            false => None,
            true => Some(
                free_port().map_err(|e| fail(TargetStatus::StartFailed, format!("{e:#}"), None))?,
            ),
        };
        if let Some(p) = counters_port {
            given.insert(COUNTERS_PORT_ENV.to_string(), p.to_string());
        }
        given.insert(t.start.port_env.clone(), port.to_string());
        given.insert("HOST".to_string(), "127.0.0.1".to_string());
        if let Some(c) = t.config_file() {
            let c = match t.start.render_config {
                false => c,
                true => crate::measure::config_render::render(
                    &c,
                    &o.log.with_extension("config"),
                    &given,
                )
                .map_err(|e| fail(TargetStatus::StartFailed, format!("{e:#}"), None))?,
            };
            vars.insert("config", c.display().to_string());
        }
        let expand = |s: &str| {
            crate::catalog::vars::expand(s, &vars).map_err(|e| {
                fail(
                    TargetStatus::StartFailed,
                    format!("{}: {e}", t.manifest.display()),
                    None,
                )
            })
        };
        let mut env = std::collections::BTreeMap::new();
        for (k, v) in &t.start.env {
            env.insert(k.clone(), expand(v)?);
        }
        if let Some(s) = &subgraphs {
            env.extend(s.env());
        }
        env.extend(given);
        let program: Vec<String> = t
            .start
            .command
            .iter()
            .map(|a| expand(a))
            .collect::<Result<_, _>>()?;
        let mut gc_file = None;
        if t.is_node() {
            if let Some(probe) = o.node_probe.as_ref().filter(|p| p.is_file()) {
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
                gc_file = Some(f);
            }
        }
        // A cgroup is made whenever we may: it gives exact CPU accounting even without
        // limits. Failing to make one is a note, not an error.
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
        // Start-up time counts from just before the spawn (fork and exec included).
        let spawned = std::time::Instant::now();
        let mut process = TargetProcess::spawn(SpawnSpec {
            program: &program,
            cwd: &t.dir,
            env,
            log: o.log.clone(),
            cpus: o.cpus.cloned(),
            cgroup_procs: cgroup.as_ref().map(|c| c.procs_files()).unwrap_or_default(),
        })
        .map_err(|e| fail(TargetStatus::StartFailed, format!("{e:#}"), None))?;
        let endpoint = Endpoint::from_url(&format!("http://127.0.0.1:{port}{}", t.start.path))
            .map_err(|e| fail(TargetStatus::StartFailed, e.to_string(), None))?;
        let poll = if o.cold {
            Duration::from_millis(2)
        } else {
            super::ready::READY_POLL
        };
        match wait_ready(
            &mut process,
            &endpoint,
            &o.headers,
            t.start.ready_timeout,
            poll,
            o.cancelled,
        ) {
            Readiness::Ready { .. } => {
                let after = spawned.elapsed();
                // Let start-up work settle before taking the idle memory figure (a cold
                // start wants the figure at the moment of readiness instead).
                if !o.cold {
                    std::thread::sleep(Duration::from_millis(200));
                }
                let (_, rss, _) = vitals::read(process.pid, cgroup.as_deref());
                let verified_cpus = procfs::session_members(process.pid)
                    .iter()
                    .filter_map(|m| crate::sys::cpus::process_cpus(m.pid))
                    .reduce(|mut a, b| {
                        a.extend(b);
                        a.sort_unstable();
                        a.dedup();
                        a
                    });
                if let (Some(want), Some(got)) = (o.cpus, &verified_cpus) {
                    if &want.0 != got {
                        return Err(fail(
                            TargetStatus::StartFailed,
                            format!(
                                "pinning failed: asked for CPUs {}, the target runs on {}",
                                want.display(),
                                crate::units::fmt_cpus(got)
                            ),
                            None,
                        ));
                    }
                }
                if let Some(p) = counters_port {
                    if let Err(e) = read_executions(p) {
                        process.stop(Duration::from_secs(2));
                        return Err(fail(
                            TargetStatus::StartFailed,
                            format!(
                                "the scenario counts the target's executions, but it serves no counters on {COUNTERS_PORT_ENV} ({e:#}); a Node target gets them by importing targets/_node/counters.mjs"
                            ),
                            Some(process.log_tail(20)),
                        ));
                    }
                }
                Ok((
                    Session {
                        process,
                        endpoint,
                        cgroup,
                        gc_file,
                        ready_s: after.as_secs_f64(),
                        rss_idle_bytes: rss,
                        verified_cpus,
                        subgraphs,
                        coprocessor,
                        collector,
                        response_headers: super::customization::response_rule(
                            t.customization.as_ref(),
                        ),
                        customization: t.customization.clone(),
                        counters_port,
                    },
                    note,
                ))
            }
            Readiness::Exited { status } => {
                let tail = process.log_tail(20);
                let refused = t.start.refusals.iter().find_map(|r| {
                    let line = tail.lines().find(|l| l.contains(&r.log))?;
                    Some(format!("{} (it said: {})", r.why, line.trim()))
                });
                Err(match refused {
                    Some(why) => fail(TargetStatus::Skipped, why, Some(tail)),
                    None => fail(
                        TargetStatus::StartFailed,
                        format!("exited during start-up ({status})"),
                        Some(tail),
                    ),
                })
            }
            Readiness::TimedOut {
                last_problem,
                probe_timeout,
                unanswered,
            } => {
                process.stop(Duration::from_secs(2));
                Err(fail(
                    TargetStatus::NotReady,
                    super::ready::not_ready_problem(
                        t.start.ready_timeout,
                        &last_problem,
                        probe_timeout,
                        unanswered,
                    ),
                    Some(process.log_tail(20)),
                ))
            }
            Readiness::Interrupted => Err(fail(
                TargetStatus::Interrupted,
                "interrupted during start-up".into(),
                None,
            )),
        }
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
fn read_executions(port: u16) -> anyhow::Result<u64> {
    let v = super::loopback::get_json(port, "/counters")?;
    v.get("executions")
        .and_then(|x| x.as_u64())
        .ok_or_else(|| anyhow::anyhow!("GET /counters answered {v}, without \"executions\""))
}
