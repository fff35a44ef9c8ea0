//! Efficiency of a target in a throughput scenario: requests per second per CPU core and per
//! GiB of memory, from each counted valid trial's own req/s, measured CPU (the process
//! tree's CPU time over the window, not a quota) and peak RSS, summarized like req/s itself
//! (`stats::estimate`: the geometric mean with its 95% t interval), so the figures carry
//! intervals. Rows that cannot be sized (invalid, saturated, CPU not measured) say why.
use crate::catalog::TargetKind;
use crate::results::{Estimate, ScenarioKind, ScenarioResult, TargetResult, TrialResult};
use crate::stats;

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// Below this share of the CPU the target could use, it was not CPU-bound, and its req/s
/// per core is an extrapolation (see `Efficiency::not_cpu_bound`).
const CPU_BOUND: f64 = 0.8;

#[derive(Debug, Clone)]
pub struct Efficiency {
    pub target: String,
    pub kind: TargetKind,
    /// req/s ÷ (CPU % ÷ 100) per trial: requests per second one fully busy core serves.
    pub per_core: Option<Estimate>,
    /// req/s ÷ peak RSS in GiB per trial.
    pub per_gib: Option<Estimate>,
    /// Median CPU of the trials used, % of one core.
    pub cpu_pct: Option<f64>,
    /// Highest peak RSS of the trials used: what one process must have room for.
    pub rss_peak_bytes: Option<u64>,
    /// Why there are no figures, or what to know about them.
    pub notes: Vec<String>,
}

impl Efficiency {
    pub fn sized(&self) -> bool {
        self.per_core.as_ref().is_some_and(|e| e.n > 0)
    }
}

/// Whether a scenario's throughput is a capacity: a closed-model load scenario (connections
/// kept busy) whose trials are not sweeps. Open-model (fixed rate) scenarios, sweeps, cold
/// starts and subscriptions are not priced.
pub fn priced_scenario(s: &ScenarioResult) -> bool {
    s.kind == ScenarioKind::Load
        && s.load.model == "closed"
        && !s
            .targets
            .iter()
            .any(|t| t.trials.iter().any(|x| x.sweep.is_some()))
}

/// The trials a target's efficiency comes from: counted, valid, with CPU measured.
pub fn trials_used(t: &TargetResult) -> Vec<&TrialResult> {
    crate::summary::counted_trials(t)
        .into_iter()
        .filter(|x| x.valid && !x.vitals.cpu_source.is_empty() && x.vitals.cpu_avg_pct > 0.0)
        .collect()
}

/// req/s per core of one trial.
pub fn per_core(rps: f64, cpu_pct: f64) -> f64 {
    rps / (cpu_pct / 100.0)
}

/// req/s per GiB of one trial.
pub fn per_gib(rps: f64, rss_bytes: u64) -> f64 {
    rps / (rss_bytes as f64 / GIB)
}

/// Every measured target's efficiency in a priced scenario (none in the others).
pub fn efficiencies(s: &ScenarioResult) -> Vec<Efficiency> {
    if !priced_scenario(s) {
        return Vec::new();
    }
    s.targets
        .iter()
        .filter(|t| !crate::report::not_installed(t) && t.summary.is_some())
        .map(|t| of(s, t))
        .collect()
}

fn of(s: &ScenarioResult, t: &TargetResult) -> Efficiency {
    let mut e = Efficiency {
        target: t.name.clone(),
        kind: t.kind,
        per_core: None,
        per_gib: None,
        cpu_pct: None,
        rss_peak_bytes: None,
        notes: Vec::new(),
    };
    let Some(summary) = &t.summary else {
        return e;
    };
    if !summary.valid {
        e.notes
            .push("invalid (failed responses or a crash): not sized".into());
        return e;
    }
    if summary.saturated {
        e.notes
            .push("saturated (the generator, not the target, set the pace): not sized".into());
        return e;
    }
    let used = trials_used(t);
    if used.is_empty() {
        e.notes
            .push("CPU not measured in any valid trial: not sized".into());
        return e;
    }
    let cores: Vec<f64> = used
        .iter()
        .map(|x| per_core(x.load.throughput_rps, x.vitals.cpu_avg_pct))
        .collect();
    let gibs: Vec<f64> = used
        .iter()
        .filter(|x| x.vitals.rss_peak_bytes > 0)
        .map(|x| per_gib(x.load.throughput_rps, x.vitals.rss_peak_bytes))
        .collect();
    let cpu = stats::median(
        &used
            .iter()
            .map(|x| x.vitals.cpu_avg_pct)
            .collect::<Vec<_>>(),
    );
    e.per_core = Some(stats::estimate(&cores));
    e.per_gib = (!gibs.is_empty()).then(|| stats::estimate(&gibs));
    e.cpu_pct = Some(cpu);
    e.rss_peak_bytes = used
        .iter()
        .map(|x| x.vitals.rss_peak_bytes)
        .max()
        .filter(|b| *b > 0);
    if t.kind == TargetKind::Baseline {
        e.notes
            .push("baseline: the ceiling servers are measured against, not a server".into());
    }
    let room = available_pct(s);
    if cpu < CPU_BOUND * room {
        e.notes.push(format!(
            "not CPU-bound: it used {cpu:.0}% of the {room:.0}% it could, so req/s per core extrapolates"
        ));
    }
    if used.iter().any(|x| x.upstream.is_some()) {
        e.notes
            .push("the gateway's own CPU and memory only: its subgraphs' are not counted".into());
    }
    if used.iter().any(|x| x.database.is_some()) {
        e.notes
            .push("the server's own CPU and memory only: PostgreSQL's are not counted".into());
    }
    e
}

/// CPU the target could use, in % of one core: its quota, else its CPUs (one when unpinned
/// is unknown; 100% then).
fn available_pct(s: &ScenarioResult) -> f64 {
    match s.limits.cpus {
        Some(c) if c > 0.0 => c * 100.0,
        _ => {
            let cpus = s
                .targets
                .iter()
                .flat_map(|t| t.trials.iter())
                .filter_map(|x| x.vitals.verified_cpus.as_ref().map(|c| c.len()))
                .max()
                .unwrap_or(1)
                .max(1);
            cpus as f64 * 100.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_core_and_per_gib_are_req_s_over_what_was_used() {
        // 30,000 req/s at 75% of a core: 40,000 req/s per fully busy core.
        assert!((per_core(30_000.0, 75.0) - 40_000.0).abs() < 1e-9);
        // 200% (two cores): half per core.
        assert!((per_core(10_000.0, 200.0) - 5_000.0).abs() < 1e-9);
        // 1,000 req/s in 512 MiB: 2,000 req/s per GiB.
        assert!((per_gib(1_000.0, 512 * 1024 * 1024) - 2_000.0).abs() < 1e-9);
    }
}
