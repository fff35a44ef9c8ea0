//! Provenance: the lines that say what was run, where and how, so a reader can trust a
//! figure without the code: the machine, tool and runtimes, the command, the isolation and
//! the run's status (`provenance_lines`), and each scenario's operations and load
//! (`ops_line`, `load_line`).
use crate::catalog::scenario::Model;
use crate::results::{RunResults, ScenarioResult};
use crate::units::{fmt_bytes, fmt_cpus};

pub fn load_line(s: &ScenarioResult) -> String {
    let l = &s.load;
    // Kinds that measure something other than a load say what instead.
    if let Some(line) = crate::kinds::load_line(s) {
        return line;
    }
    // No run of gqlbench's has 0 connections (-c 0 is refused): an import that did not
    // record its load (k6 output without gqlbench-export.json).
    if l.connections == 0 && s.connection_sweep.is_none() {
        return format!(
            "not recorded (the load generator's own settings), {} s measured",
            s.duration_s
        );
    }
    let mut parts = vec![format!("{} model", l.model)];
    if let Some(c) = &s.connection_sweep {
        parts.push(format!(
            "connections swept: {} (each step with its own warm-up)",
            c.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" → ")
        ));
    } else if l.model == Model::Open {
        parts.push(format!("{} req/s", l.rate.unwrap_or(0.0)));
        parts.push(format!("up to {} connections", l.connections));
    } else {
        parts.push(format!("{} connections", l.connections));
    }
    if l.pipelining > 1 {
        parts.push(format!("pipelining {}", l.pipelining));
    }
    if l.think_time_s > 0.0 {
        parts.push(format!("think {} ms", l.think_time_s * 1000.0));
    }
    if !l.stages.is_empty() {
        parts.push(format!(
            "stages {}",
            l.stages
                .iter()
                .map(|(d, t)| format!("{t}@{d}s"))
                .collect::<Vec<_>>()
                .join(" → ")
        ));
    }
    let until_steady = s
        .targets
        .iter()
        .flat_map(|t| &t.trials)
        .any(|x| x.warmup.is_some());
    let warm = if until_steady {
        format!("{} s or more of warm-up until steady", s.warmup_s)
    } else {
        format!("{} s warm-up", s.warmup_s)
    };
    let count = match &s.rounds {
        Some(r) if r.max > r.min => format!("{} rounds (of {} to {})", r.run, r.min, r.max),
        Some(r) => format!("{} rounds", r.run),
        None => format!("{} trials", s.trials_planned),
    };
    match s.rounds.as_ref().and_then(|r| r.slices.as_ref().map(|x| (r, x))) {
        // Every round alternated: each target's own time, in whole blocks.
        Some((r, sl)) if sl.rounds == r.run && sl.window_s > 0.0 => parts.push(format!(
            "{count} × ({} s measured, {} s warm-up in the first round), the targets alternating in {} ms slices",
            crate::units::pct(sl.window_s),
            crate::units::pct(sl.first_warmup_s),
            crate::units::pct(sl.slice_ms)
        )),
        _ => parts.push(format!("{count} × ({warm} + {} s measured)", s.duration_s)),
    }
    parts.join(", ")
}

pub fn ops_line(s: &ScenarioResult) -> String {
    s.operations
        .iter()
        .map(|o| {
            let mut t = o.name.clone();
            if s.operations.len() > 1 {
                t.push_str(&format!(" ×{}", o.weight));
            }
            if o.cases > 1 {
                t.push_str(&format!(" ({} variable sets)", o.cases));
            }
            t
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn provenance_lines(r: &RunResults) -> Vec<String> {
    if let Some(i) = &r.import {
        return import_lines(r, i);
    }
    let m = &r.machine;
    let mut v = vec![
        format!(
            "machine: {} ({} cores, {}), {} kernel {}",
            m.cpu_model,
            m.cores,
            fmt_bytes(m.memory_bytes),
            m.os,
            m.kernel
        ),
        format!(
            "gqlbench {} (commit {}), runtimes: {}",
            r.tool.version,
            r.tool.git_commit.as_deref().unwrap_or("unknown"),
            if r.runtimes.is_empty() {
                "-".to_string()
            } else {
                r.runtimes
                    .iter()
                    .map(|(k, v)| format!("{k} {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ),
        format!("command: {}", r.command.join(" ")),
        format!(
            "isolation: generator on CPUs {}, targets on CPUs {}, cgroups {}, open files {}",
            fmt_cpus(&r.isolation.generator_cpus),
            fmt_cpus(&r.isolation.target_cpus),
            r.isolation.cgroups,
            r.isolation.nofile_limit
        ),
        format!(
            "run: suite {}, profile {}, started {}, {}",
            r.suite,
            r.profile,
            r.started_at,
            match r.status {
                crate::results::RunStatus::Complete => "complete".to_string(),
                crate::results::RunStatus::Interrupted =>
                    "INTERRUPTED (partial results)".to_string(),
                crate::results::RunStatus::Running =>
                    "still running or killed (partial results)".to_string(),
                crate::results::RunStatus::Failed =>
                    "FAILED: gqlbench hit an error (partial results)".to_string(),
            }
        ),
    ];
    for n in &r.isolation.notes {
        v.push(format!("note: {n}"));
    }
    if !r.target_env.is_empty() {
        v.push(format!(
            "targets' extra environment (--target-env): {}",
            r.target_env
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    v.extend(r.machine_probe.as_ref().map(|p| p.line()));
    v.extend(noise_line(r));
    v.extend(super::precision::run_line(r));
    v.extend(super::precision::budget_line(r));
    v.extend(r.left_out.as_ref().map(|l| l.line()));
    v
}

/// The noise the run's measurements saw: "noise over 154 measurements: the hypervisor
/// stole 7% of a CPU (median; 49% at the 90th percentile), 12 steady and 3 bursts measured
/// again (steal above 5% or other processes above 10%)". None without a reading.
pub fn noise_line(r: &RunResults) -> Option<String> {
    let trials: Vec<&crate::results::TrialResult> = r
        .scenarios
        .iter()
        .flat_map(|s| s.targets.iter())
        .flat_map(|t| t.trials.iter())
        .collect();
    let mut steal: Vec<f64> = trials
        .iter()
        .filter_map(|x| x.noise.as_ref().and_then(|n| n.steal_pct))
        .collect();
    if steal.is_empty() {
        return None;
    }
    steal.sort_by(f64::total_cmp);
    let p90 = steal[((steal.len() - 1) as f64 * 0.9).round() as usize];
    let again = trials.iter().filter(|x| x.excluded.is_some()).count();
    let flagged = trials
        .iter()
        .filter(|x| {
            x.excluded.is_none()
                && x.saturation
                    .iter()
                    .any(|f| f.kind == crate::results::FlagKind::Interference)
        })
        .count();
    let injected = trials.iter().any(|x| {
        x.noise
            .as_ref()
            .is_some_and(|n| n.injected_steal_pct.is_some())
    });
    Some(format!(
        "noise over {} trials: the hypervisor stole {:.0}% of a CPU (median; {p90:.0}% at the 90th percentile); {flagged} counted with the caveat `interference`, {again} measured again after a burst{}",
        steal.len(),
        crate::stats::median(&steal),
        if injected {
            " (steal injected by GQLBENCH_INJECT_STEAL, a test setting)"
        } else {
            ""
        }
    ))
}

/// An imported run: what measured it and from which files; the machine and isolation lines
/// are left out, since the engine's output does not record them.
fn import_lines(r: &RunResults, i: &crate::results::ImportInfo) -> Vec<String> {
    let mut v = vec![
        format!(
            "measured by {}, not by gqlbench: imported by gqlbench {} from {}",
            r.engine,
            r.tool.version,
            i.files
                .iter()
                .map(|f| format!("{} ({})", f.path, f.format))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        format!("not measured by {}: {}", r.engine, i.unmeasured.join(", ")),
        format!("command: {}", r.command.join(" ")),
        format!("run: suite {}, started {}", r.suite, r.started_at),
    ];
    for n in &i.notes {
        v.push(format!("note: {n}"));
    }
    v
}
