//! `gqlbench calibrate`: what this machine's load generator can send, against a native
//! static server pinned to the target CPUs, and (with --wrk) wrk's figure beside it from
//! the same server in the same run, as requests per generator CPU-second.
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use gqlbench_engine::{Control, Operation, Stop};
use serde::Serialize;

use crate::cli::CalibrateArgs;
use crate::error::PlanError;
use crate::plan::load::Load;
use crate::plan::resolve_isolation;
use crate::report::{Document, ExportManager, Exporter, Output, Terminal};
use crate::sys::cpus::CpuSet;

#[derive(Serialize, Debug, Clone)]
pub struct Step {
    pub tool: String,
    pub connections: u32,
    pub pipelining: u32,
    pub requests: u64,
    pub elapsed_s: f64,
    pub rps: f64,
    pub cpu_s: f64,
    pub requests_per_cpu_second: f64,
    pub failed: u64,
    pub validated: bool,
}

#[derive(Serialize, Debug)]
pub struct Calibration {
    pub generator_cpus: Vec<usize>,
    pub server_cpus: Vec<usize>,
    pub steps: Vec<Step>,
    /// gqlbench's requests per CPU-second over wrk's, at the same connections, when wrk ran.
    pub efficiency_vs_wrk: Option<f64>,
}

/// The load of one calibration step.
fn step_load(connections: u32, pipelining: u32) -> Load {
    crate::measure::machine_probe::static_load(connections, pipelining)
}

const PIPELINING: [u32; 2] = [1, 10];

/// The flags checked as `load` checks them, before any server starts.
fn check_flags(a: &CalibrateArgs, gen: &CpuSet) -> Result<(), PlanError> {
    if a.connections == 0 {
        return Err(PlanError::Flag {
            flag: "--connections",
            message: "must be at least 1".into(),
        });
    }
    if a.duration.is_zero() || a.duration > gqlbench_engine::MAX_SPAN {
        return Err(PlanError::Flag {
            flag: "--duration",
            message: "must be above zero and at most 30 days, e.g. 5s".into(),
        });
    }
    for p in PIPELINING {
        let stop = Stop {
            duration: Some(a.duration),
            max_requests: None,
            extend: None,
        };
        let plan = step_load(a.connections, p).engine_plan(
            crate::plan::placeholder_endpoint(),
            vec![static_op()],
            Some(gen),
            Duration::from_secs(1),
            stop,
        );
        plan.preflight().map_err(|e| PlanError::Flag {
            flag: "--connections",
            message: e.to_string(),
        })?;
    }
    Ok(())
}

fn static_op() -> Operation {
    crate::measure::machine_probe::static_op()
}

pub fn run(a: &CalibrateArgs) -> Result<ExitCode> {
    let iso = resolve_isolation(&super::run::isolation_options(&a.isolation), false)?;
    let _locks = crate::sys::lock::lock_cpus(&iso, a.isolation.force_concurrent)?;
    crate::measure::leftovers::sweep_and_report(&crate::db::DbOptions::default().base_dir());
    let gen = iso
        .generator
        .clone()
        .unwrap_or_else(|| CpuSet(crate::sys::cpus::allowed_cpus()));
    let srv = iso.target.clone();
    check_flags(a, &gen)?;
    let cancel = super::cancel_flag();
    crate::sys::cpus::pin_current_thread(&gen).context("pinning to the generator CPUs")?;
    crate::sys::cpus::raise_nofile();
    let (mut server, endpoint) = crate::measure::machine_probe::start_static(srv.clone())?;
    let port = endpoint.addr.port();
    let mut steps = Vec::new();
    let mut interrupted = false;
    for p in PIPELINING {
        if cancel.load(std::sync::atomic::Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let load = step_load(a.connections, p);
        let plan = load.engine_plan(
            endpoint.clone(),
            vec![static_op()],
            Some(&gen),
            Duration::from_secs(1),
            Stop {
                duration: Some(a.duration),
                max_requests: None,
                extend: None,
            },
        );
        eprintln!(
            "gqlbench: {} connections, pipelining {p}, {} ...",
            a.connections,
            humantime::format_duration(a.duration)
        );
        let control = Control {
            cancel: cancel.clone(),
            live: Default::default(),
        };
        let r = gqlbench_engine::run(&plan, &control).map_err(|e| anyhow::anyhow!("{e}"))?;
        interrupted |= r.interrupted;
        steps.push(Step {
            tool: "gqlbench".into(),
            connections: a.connections,
            pipelining: p,
            requests: r.requests,
            elapsed_s: r.elapsed_s,
            rps: r.throughput_rps,
            cpu_s: r.generator_cpu_s,
            requests_per_cpu_second: if r.generator_cpu_s > 0.0 {
                r.requests as f64 / r.generator_cpu_s
            } else {
                0.0
            },
            failed: r.failed,
            validated: true,
        });
    }
    let mut efficiency = None;
    if a.wrk && !interrupted {
        match run_wrk(&gen, port, a.connections, a.duration) {
            Ok(w) => {
                if w.requests_per_cpu_second > 0.0 {
                    efficiency = Some(steps[0].requests_per_cpu_second / w.requests_per_cpu_second);
                }
                steps.push(w);
            }
            Err(e) => eprintln!("wrk step skipped: {e:#}"),
        }
    }
    server.stop(Duration::from_secs(2));
    let c = Calibration {
        generator_cpus: gen.0.clone(),
        server_cpus: srv.map(|s| s.0).unwrap_or_default(),
        steps,
        efficiency_vs_wrk: efficiency,
    };
    ExportManager::console(a.json).write(&c)?;
    // A static server that failed requests means the figures are not the generator's.
    Ok(if interrupted {
        ExitCode::from(130)
    } else if c.steps.iter().any(|s| s.failed > 0) {
        eprintln!("calibration: requests failed against the static server; the figures above are not valid");
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

impl Document for Calibration {
    const STEM: &'static str = "calibration";
}

impl Exporter<Calibration> for Terminal {
    fn export(&self, c: &Calibration) -> Result<Vec<Output>> {
        Ok(Terminal::output::<Calibration>(render(c)))
    }
}

fn render(c: &Calibration) -> String {
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED)
        .set_header([
            "tool",
            "connections",
            "pipelining",
            "req/s",
            "generator CPU-s",
            "requests per CPU-second",
            "failed",
            "validates responses",
        ]);
    for s in &c.steps {
        t.add_row([
            s.tool.clone(),
            s.connections.to_string(),
            s.pipelining.to_string(),
            crate::units::fmt_rps(s.rps),
            format!("{:.2}", s.cpu_s),
            crate::units::fmt_rps(s.requests_per_cpu_second),
            s.failed.to_string(),
            if s.validated {
                "yes"
            } else {
                "no (status only)"
            }
            .into(),
        ]);
    }
    let mut out = format!(
        "calibration: generator on CPUs {}, static server on CPUs {}\n{t}\n",
        crate::units::fmt_cpus(&c.generator_cpus),
        crate::units::fmt_cpus(&c.server_cpus)
    );
    if let Some(e) = c.efficiency_vs_wrk {
        out.push_str(&format!(
            "gqlbench sends {:.2}x the requests per CPU-second of wrk (same server, same connections, pipelining 1)\n",
            e
        ));
    }
    out
}

/// wrk, pinned to the generator CPUs; its CPU time is taken from the kernel's rusage of the
/// finished child (wait4), the same kind of figure as our thread CPU time.
fn run_wrk(gen: &CpuSet, port: u16, connections: u32, duration: Duration) -> Result<Step> {
    let script = std::env::temp_dir().join(format!("gqlbench-wrk-{port}.lua"));
    std::fs::write(
        &script,
        "wrk.method = \"POST\"\nwrk.body = '{\"query\":\"{ __typename }\"}'\nwrk.headers[\"Content-Type\"] = \"application/json\"\n",
    )?;
    let threads = gen.0.len().max(1);
    eprintln!("wrk: {connections} connections, {threads} thread(s) ...");
    let child = Command::new("taskset")
        .args(["-c", &gen.display(), "wrk"])
        .args(["-t", &threads.to_string(), "-c", &connections.to_string()])
        .arg("-d")
        .arg(format!("{}s", duration.as_secs().max(1)))
        .arg("-s")
        .arg(&script)
        .arg(format!("http://127.0.0.1:{port}/graphql"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("starting wrk (install it with `apt-get install wrk`)")?;
    let pid = child.id() as i32;
    let mut stdout = child.stdout.context("wrk stdout")?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut text)?;
    // SAFETY: wait4 on our own child with a zeroed rusage we own.
    let (status, ru) = unsafe {
        let mut st = 0;
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::wait4(pid, &mut st, 0, &mut ru);
        (st, ru)
    };
    if status != 0 {
        bail!("wrk failed (status {status}): {text}");
    }
    let cpu_s = (ru.ru_utime.tv_sec as f64 + ru.ru_utime.tv_usec as f64 / 1e6)
        + (ru.ru_stime.tv_sec as f64 + ru.ru_stime.tv_usec as f64 / 1e6);
    // "123456 requests in 5.00s, ..." and "Non-2xx or 3xx responses: N".
    let line = text
        .lines()
        .find(|l| l.contains(" requests in "))
        .context("wrk printed no request count")?;
    let mut it = line.split_whitespace();
    let requests: u64 = it
        .next()
        .and_then(|n| n.parse().ok())
        .context("wrk request count")?;
    let elapsed_s: f64 = line
        .split(" requests in ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .and_then(|d| humantime::parse_duration(d.trim()).ok())
        .map(|d| d.as_secs_f64())
        .unwrap_or(duration.as_secs_f64());
    let failed = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Non-2xx or 3xx responses:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    Ok(Step {
        tool: "wrk".into(),
        connections,
        pipelining: 1,
        requests,
        elapsed_s,
        rps: requests as f64 / elapsed_s,
        cpu_s,
        requests_per_cpu_second: if cpu_s > 0.0 {
            requests as f64 / cpu_s
        } else {
            0.0
        },
        failed,
        validated: false,
    })
}
