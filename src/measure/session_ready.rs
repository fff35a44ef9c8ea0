//! A session's last steps (`Session::start`): the spawn, the wait until the target answers,
//! and what is read and checked once it does (its idle memory, the CPUs it runs on, its
//! execution counters). A target that never gets ready is reported with why: it exited
//! (or refused this host, as its target.toml recognises), it timed out, or the run was
//! interrupted.
use std::time::{Duration, Instant};

use gqlbench_engine::Endpoint;

use super::ready::{wait_ready, Readiness};
use super::session::{read_executions, StartFailure, StartOptions, COUNTERS_PORT_ENV};
use super::session_launch::Launch;
use super::vitals;
use crate::catalog::TargetDef;
use crate::results::TargetStatus;
use crate::sys::cgroup::Cgroup;
use crate::sys::process::{SpawnSpec, TargetProcess};
use crate::sys::procfs;

/// What is known of a target once it is ready.
pub(super) struct Up {
    pub ready_s: f64,
    pub rss_idle_bytes: Option<u64>,
    pub verified_cpus: Option<Vec<usize>>,
}

/// Spawns the target (on its CPUs, into its cgroup) and returns it with its endpoint and
/// the moment start-up time counts from: just before the spawn (fork and exec included).
pub(super) fn spawn(
    t: &TargetDef,
    o: &StartOptions<'_>,
    port: u16,
    launch: Launch,
    cgroup: Option<&Cgroup>,
) -> Result<(TargetProcess, Endpoint, Instant), StartFailure> {
    let spawned = Instant::now();
    let process = TargetProcess::spawn(SpawnSpec {
        program: &launch.program,
        cwd: &t.dir,
        env: launch.env,
        log: o.log.clone(),
        cpus: o.cpus.cloned(),
        cgroup_procs: cgroup.map(|c| c.procs_files()).unwrap_or_default(),
    })
    .map_err(StartFailure::start_failed)?;
    let endpoint = Endpoint::from_url(&format!("http://127.0.0.1:{port}{}", t.start.path))
        .map_err(|e| StartFailure::new(TargetStatus::StartFailed, e.to_string(), None))?;
    Ok((process, endpoint, spawned))
}

/// Waits until the target answers (polled every few ms for a cold start), then reads and
/// checks it (`ready`); a target that does not get ready says why, with its log's tail.
pub(super) fn wait(
    t: &TargetDef,
    o: &StartOptions<'_>,
    process: &mut TargetProcess,
    endpoint: &Endpoint,
    spawned: Instant,
    cgroup: Option<&Cgroup>,
    counters_port: Option<u16>,
) -> Result<Up, StartFailure> {
    let poll = if o.cold {
        Duration::from_millis(2)
    } else {
        super::ready::READY_POLL
    };
    match wait_ready(
        process,
        endpoint,
        &o.headers,
        t.start.ready_timeout,
        poll,
        o.cancelled,
    ) {
        Readiness::Ready { .. } => ready(o, process, spawned.elapsed(), cgroup, counters_port),
        Readiness::Exited { status } => {
            let own = o.federation.as_ref().and_then(|f| f.graph.own());
            Err(exited(t, process, &status, own.map(|g| g.name.as_str())))
        }
        Readiness::TimedOut {
            last_problem,
            probe_timeout,
            unanswered,
        } => {
            process.stop(Duration::from_secs(2));
            Err(StartFailure::new(
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
        Readiness::Interrupted => Err(StartFailure::new(
            TargetStatus::Interrupted,
            "interrupted during start-up".into(),
            None,
        )),
    }
}

/// A ready target, `after` its spawn: its idle memory, the CPUs it really runs on (which
/// must be those asked for) and its execution counters (which must be served when the
/// scenario counts them).
fn ready(
    o: &StartOptions<'_>,
    process: &mut TargetProcess,
    after: Duration,
    cgroup: Option<&Cgroup>,
    counters_port: Option<u16>,
) -> Result<Up, StartFailure> {
    // Let start-up work settle before taking the idle memory figure (a cold start wants
    // the figure at the moment of readiness instead).
    if !o.cold {
        std::thread::sleep(Duration::from_millis(200));
    }
    let rss = vitals::read(process.pid, cgroup).rss;
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
            return Err(StartFailure::new(
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
            return Err(StartFailure::new(
                TargetStatus::StartFailed,
                format!(
                    "the scenario counts the target's executions, but it serves no counters on {COUNTERS_PORT_ENV} ({e:#}); a Node target gets them by importing targets/_node/counters.mjs"
                ),
                Some(process.log_tail(20)),
            ));
        }
    }
    Ok(Up {
        ready_s: after.as_secs_f64(),
        rss_idle_bytes: rss,
        verified_cpus,
    })
}

/// The first line of a log tail that reads as an error, with the line after it (a cause
/// is often there); else its last line.
fn first_error(tail: &str) -> String {
    let lines: Vec<&str> = tail
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines
        .iter()
        .position(|l| l.to_ascii_lowercase().contains("error"))
    {
        Some(i) => lines[i..lines.len().min(i + 2)].join(" "),
        None => lines.last().copied().unwrap_or("(no log)").to_string(),
    }
}

/// A target that exited during start-up: skipped when its log says it refused this host
/// (a `refusals` entry of its target.toml), or when it is a gateway given a user's own
/// graph (`own`: the graph's name), which it may not support (a directive, a feature): the
/// rest of the run goes on, and its message is kept. Failed otherwise.
fn exited(t: &TargetDef, process: &TargetProcess, status: &str, own: Option<&str>) -> StartFailure {
    let tail = process.log_tail(20);
    let refused = t.start.refusals.iter().find_map(|r| {
        let line = tail.lines().find(|l| l.contains(&r.log))?;
        Some(format!("{} (it said: {})", r.why, line.trim()))
    });
    let refused = refused.or_else(|| {
        own.map(|g| {
            format!(
                "exited during start-up on the graph '{g}' ({status}), most likely refusing something in it: {}",
                first_error(&tail)
            )
        })
    });
    match refused {
        Some(why) => StartFailure::new(TargetStatus::Skipped, why, Some(tail)),
        None => StartFailure::new(
            TargetStatus::StartFailed,
            format!("exited during start-up ({status})"),
            Some(tail),
        ),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn first_error_takes_the_error_line_and_its_cause() {
        let tail = "at x\nAggregateGraphQLError: checks failed. Caused by:\nfeature y is unsupported\n\nNode.js v20";
        assert_eq!(
            super::first_error(tail),
            "AggregateGraphQLError: checks failed. Caused by: feature y is unsupported"
        );
        assert_eq!(super::first_error("a\nlast words\n"), "last words");
        assert_eq!(super::first_error(""), "(no log)");
    }
}
