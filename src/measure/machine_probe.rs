//! What the machine shows at the start of a run, before any target: the canary on each CPU
//! the run uses, and a short load from the generator against gqlbench's own static server
//! on the target CPUs with the noise sentinels watching (the hypervisor's steal under load,
//! other processes' CPU) and the generator's requests per CPU-second. Its noise seeds the
//! run's level (`noise::Judge`: a machine that is noisy from the start is not taken for a
//! burst), its speed sizes the budget (`budget`), and the report names both beside the
//! figures. `calibrate` starts the same static server.
use std::collections::BTreeMap;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use gqlbench_engine::{Control, Endpoint, Operation, Stop, Variant};

use super::ready::{wait_ready, Readiness};
use crate::plan::load::{Arrival, Load};
use crate::results::MachineProbe;
use crate::sys::cpus::CpuSet;
use crate::sys::process::{free_port, SpawnSpec, TargetProcess};

/// The development VM's figures on a quiet day, which a probe's are set against: the
/// canary (docs/method.md, "Canary": 3.7 ms in the committed runs) and the generator's
/// requests per CPU-second against the static server (docs/performance.md: 181,578).
pub const REFERENCE_CANARY_MS: f64 = 3.7;
pub const REFERENCE_RPS_PER_CPU_S: f64 = 181_578.0;

/// The probe's load: connections, warm-up, window.
const CONNECTIONS: u32 = 64;
const WARMUP: Duration = Duration::from_millis(500);
const WINDOW: Duration = Duration::from_millis(1500);

/// `{ __typename }`, which the static server answers.
pub fn static_op() -> Operation {
    Operation {
        name: "static".into(),
        weight: 1,
        variants: vec![Variant {
            body: bytes::Bytes::from_static(br#"{"query":"{ __typename }"}"#),
            expected_data: Some(serde_json::json!({"__typename": "Query"})),
            unique: None,
            batch: None,
            incremental: None,
            persisted: None,
        }],
    }
}

/// A closed load of `connections`, `pipelining` deep, on the static server.
pub fn static_load(connections: u32, pipelining: u32) -> Load {
    Load {
        arrival: Arrival::Closed {
            connections,
            pipelining,
            think_time: Duration::ZERO,
        },
        stages: vec![],
        timeout: Duration::from_secs(10),
        unique_request_header: false,
        headers: Vec::new(),
    }
}

/// gqlbench's static server (`serve-static`) started on `cpus` and ready.
pub fn start_static(cpus: Option<CpuSet>) -> Result<(TargetProcess, Endpoint)> {
    let port = free_port()?;
    let exe = crate::sys::process::own_exe().context("locating the gqlbench binary")?;
    let dir = std::env::temp_dir();
    let prog = vec![
        exe.display().to_string(),
        "serve-static".into(),
        "--port".into(),
        port.to_string(),
    ];
    let mut server = TargetProcess::spawn(SpawnSpec {
        program: &prog,
        cwd: &dir,
        env: BTreeMap::new(),
        log: dir.join(format!("gqlbench-static-{port}.log")),
        cpus,
        cgroup_procs: vec![],
    })?;
    let endpoint = Endpoint::from_url(&format!("http://127.0.0.1:{port}/graphql"))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    match wait_ready(
        &mut server,
        &endpoint,
        &[],
        Duration::from_secs(10),
        super::ready::READY_POLL,
        &|| false,
    ) {
        Readiness::Ready { .. } => Ok((server, endpoint)),
        _ => bail!("the static server did not start:\n{}", server.log_tail(10)),
    }
}

/// Probes the machine for a run of `plan`: the canary, and with `with_load` the static
/// server's load (about 3 s in all; a run with a fixed count of rounds has no budget to
/// estimate and leaves it out). Whatever cannot be measured is None, and a probe that
/// cannot run at all says why in `problem`; the run goes on.
pub fn probe<K: ?Sized>(
    plan: &crate::plan::RunPlan<K>,
    ctx: &super::RunContext,
    with_load: bool,
) -> MachineProbe {
    let cpus = super::trial::watched_cpus(plan);
    let canary = super::noise::canary(&cpus);
    let mut p = MachineProbe {
        canary_ms: canary,
        ..Default::default()
    };
    if !with_load {
        return p;
    }
    match load(plan, ctx) {
        Ok((noise, rps_per_cpu_s)) => {
            p.noise = noise;
            p.generator_rps_per_cpu_s = rps_per_cpu_s;
        }
        Err(e) => p.problem = Some(format!("{e:#}")),
    }
    p
}

/// The probe's load with the sentinels watching: its noise and the generator's requests per
/// CPU-second.
fn load<K: ?Sized>(
    plan: &crate::plan::RunPlan<K>,
    ctx: &super::RunContext,
) -> Result<(Option<crate::results::NoiseInfo>, Option<f64>)> {
    let (mut server, endpoint) = start_static(plan.isolation.target.clone())?;
    let engine = static_load(CONNECTIONS, 1).engine_plan(
        endpoint,
        vec![static_op()],
        plan.isolation.generator.as_ref(),
        WARMUP,
        Stop {
            duration: Some(WINDOW),
            max_requests: None,
            extend: None,
        },
    );
    let control = Control {
        cancel: ctx.cancel.clone(),
        live: Default::default(),
    };
    let watch = {
        let (gate, end) = super::trial::window(control.live.clone());
        super::noise::Watch::start(gate, end)
    };
    let run = gqlbench_engine::run(&engine, &control);
    let noise = watch.finish_raw(&super::trial::watched_cpus(plan));
    server.stop(Duration::from_secs(2));
    let r = run.map_err(|e| anyhow::anyhow!("{e}"))?;
    let per_cpu =
        (r.generator_cpu_s > 0.0 && r.failed == 0).then(|| r.requests as f64 / r.generator_cpu_s);
    Ok((noise, per_cpu))
}

impl MachineProbe {
    /// The canary's slowest CPU against the reference: 1.4 = 40% slower.
    pub fn canary_factor(&self) -> Option<f64> {
        self.canary_ms
            .iter()
            .flatten()
            .copied()
            .reduce(f64::max)
            .map(|ms| ms / REFERENCE_CANARY_MS)
    }

    /// The generator's requests per CPU-second against the reference: 2.0 = half as many.
    pub fn generator_factor(&self) -> Option<f64> {
        self.generator_rps_per_cpu_s
            .filter(|r| *r > 0.0)
            .map(|r| REFERENCE_RPS_PER_CPU_S / r)
    }

    /// "machine at the start: canary 5.10 ms (3.70 ms reference: ×1.38); generator 84,172
    /// requests per CPU-second (181,578 reference: ×2.16); under that load the hypervisor stole
    /// 18% of a CPU, other processes used 0%".
    pub fn line(&self) -> String {
        let p = self;
        let mut parts = Vec::new();
        if let (Some(f), Some(ms)) = (
            p.canary_factor(),
            p.canary_ms.iter().flatten().copied().reduce(f64::max),
        ) {
            parts.push(format!(
                "canary {ms:.2} ms ({REFERENCE_CANARY_MS:.2} ms reference: ×{f:.2})"
            ));
        }
        if let (Some(f), Some(r)) = (p.generator_factor(), p.generator_rps_per_cpu_s) {
            parts.push(format!(
                "generator {} requests per CPU-second ({} reference: ×{f:.2})",
                crate::units::fmt_rps(r),
                crate::units::fmt_rps(REFERENCE_RPS_PER_CPU_S)
            ));
        }
        if let Some(n) = &p.noise {
            let f = |x: Option<f64>| x.map_or("unmeasured".to_string(), |v| format!("{v:.0}%"));
            parts.push(format!(
                "under that load the hypervisor stole {} of a CPU, other processes used {}",
                f(n.steal_pct),
                f(n.foreign_cpu_pct)
            ));
        }
        if let Some(why) = &p.problem {
            parts.push(format!("its load could not run: {why}"));
        }
        format!("machine at the start: {}", parts.join("; "))
    }

    /// How much slower than the reference the machine is, for the budget's estimates of
    /// target starts (CPU work, like the canary's): the canary's factor, never below 1. The
    /// generator's factor is reported, not used: on the noisy VM it read ×2.16 while starts
    /// took 0.6-1.3 s (the reference guess is 1.5 s), and the alternating rounds' load is
    /// wall-clock slices whatever the machine.
    pub fn slowdown(&self) -> f64 {
        self.canary_factor().unwrap_or(1.0).max(1.0)
    }
}
