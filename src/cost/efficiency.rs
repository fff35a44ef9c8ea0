//! Efficiency of a target in a throughput scenario: requests per second per CPU core and per
//! GiB of memory, from each counted valid trial's own req/s, measured CPU (the process
//! tree's CPU time over the window, not a quota) and peak RSS, summarized like req/s itself
//! (`stats::estimate`: the geometric mean with its 95% t interval), so the figures carry
//! intervals. Rows that cannot be sized (invalid, saturated, CPU not measured) say why.
use crate::catalog::scenario::Model;
use crate::catalog::TargetKind;
use crate::results::{Estimate, ScenarioResult, TargetResult, TrialResult};
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
    s.kind.measures_throughput()
        && s.load.model == Model::Closed
        && !s
            .targets
            .iter()
            .any(|t| t.trials.iter().any(|x| x.sweep.is_some()))
}

/// The trials a target's efficiency comes from: counted, valid, with CPU measured.
pub fn trials_used(t: &TargetResult) -> Vec<&TrialResult> {
    crate::summary::counted_trials(t)
        .into_iter()
        .filter(|x| {
            x.valid
                && !x.vitals.cpu_source.is_empty()
                && x.vitals.cpu_avg_pct.is_some_and(|c| c > 0.0)
        })
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

/// Every measured target's efficiency in a priced scenario (none in the others): the sized
/// ones first, most req/s per core first, then the others in catalogue order.
pub fn efficiencies(s: &ScenarioResult) -> Vec<Efficiency> {
    if !priced_scenario(s) {
        return Vec::new();
    }
    let mut v: Vec<Efficiency> = s
        .targets
        .iter()
        .filter(|t| !crate::view::cells::not_installed(t) && t.summary.is_some())
        .map(|t| of(s, t))
        .collect();
    let key = |e: &Efficiency| {
        e.per_core
            .as_ref()
            .filter(|x| x.n > 0)
            .map_or(f64::NEG_INFINITY, |x| x.center_or_median())
    };
    v.sort_by(|a, b| key(b).total_cmp(&key(a)));
    v
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
    // Every trial used has its CPU read (trials_used); memory may still be unread.
    let cpus: Vec<f64> = used.iter().filter_map(|x| x.vitals.cpu_avg_pct).collect();
    let cores: Vec<f64> = used
        .iter()
        .filter_map(|x| {
            x.vitals
                .cpu_avg_pct
                .map(|c| per_core(x.load.throughput_rps, c))
        })
        .collect();
    let gibs: Vec<f64> = used
        .iter()
        .filter_map(|x| {
            x.vitals
                .rss_peak_bytes
                .filter(|b| *b > 0)
                .map(|b| per_gib(x.load.throughput_rps, b))
        })
        .collect();
    let cpu = stats::median(&cpus);
    e.per_core = Some(stats::estimate(&cores));
    e.per_gib = (!gibs.is_empty()).then(|| stats::estimate(&gibs));
    e.cpu_pct = Some(cpu);
    e.rss_peak_bytes = used
        .iter()
        .filter_map(|x| x.vitals.rss_peak_bytes)
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
    use crate::results::{SaturationFlag, Vitals};
    use serde_json::json;

    /// A trial at `rps` using `cpu` % of a core and `rss_mib` at its peak, CPU measured
    /// by `source` ("" = not measured).
    fn trial(n: u32, rps: f64, cpu: f64, rss_mib: u64, source: &str) -> TrialResult {
        TrialResult {
            vitals: Vitals {
                cpu_source: source.into(),
                cpu_avg_pct: Some(cpu),
                rss_peak_bytes: Some(rss_mib << 20),
                ..Default::default()
            },
            ..TrialResult::of_load(
                n,
                "2026-01-01T00:00:00Z".into(),
                gqlbench_engine::LoadResult {
                    requests: 1000,
                    ok: 1000,
                    elapsed_s: 1.0,
                    throughput_rps: rps,
                    ok_rps: rps,
                    ..Default::default()
                },
            )
        }
    }

    fn target(name: &str, trials: Vec<TrialResult>) -> TargetResult {
        let mut t: TargetResult = serde_json::from_value(json!({
            "name": name, "kind": "server", "package": null, "version": null,
            "settings": {}, "status": "ok", "problem": null, "log_tail": null,
            "log_file": null, "ready_s": 0.5, "rss_idle_bytes": null,
            "checks": [], "trials": [], "summary": null
        }))
        .unwrap();
        t.trials = trials;
        t.summary = crate::summary::summarize(&t);
        t
    }

    fn scenario(model: &str, targets: Vec<TargetResult>) -> ScenarioResult {
        let mut s: ScenarioResult = serde_json::from_value(json!({
            "suite": "servers", "name": "simple", "description": "", "workload": "social",
            "operations": [],
            "load": {"model": model, "connections": 50, "pipelining": 1,
                     "think_time_s": 0.0, "rate": null, "stages": [], "timeout_s": 10.0,
                     "unique_request_header": false},
            "trials_planned": 3, "warmup_s": 1.0, "duration_s": 3.0,
            "limits": {"cpus": null, "memory_bytes": null, "applied": ""},
            "ranking": null, "targets": []
        }))
        .unwrap();
        s.targets = targets;
        s
    }

    #[test]
    fn a_valid_row_is_sized_from_its_own_trials_and_the_others_say_why_not() {
        let good = target(
            "good",
            vec![
                trial(1, 9_000.0, 90.0, 100, "cgroup"),
                trial(2, 10_000.0, 100.0, 128, "cgroup"),
                trial(3, 9_900.0, 90.0, 110, "cgroup"),
            ],
        );
        let mut sat = target("sat", vec![trial(1, 5_000.0, 50.0, 100, "proc")]);
        sat.trials[0].saturation.push(SaturationFlag {
            kind: crate::results::FlagKind::GeneratorCpu,
            detail: String::new(),
        });
        sat.summary = crate::summary::summarize(&sat);
        let mut bad = target("bad", vec![trial(1, 5_000.0, 95.0, 100, "proc")]);
        bad.trials[0].valid = false;
        bad.summary = crate::summary::summarize(&bad);
        let blind = target("blind", vec![trial(1, 5_000.0, 95.0, 100, "")]);
        let idle = target("idle", vec![trial(1, 500.0, 20.0, 100, "proc")]);
        let s = scenario("closed", vec![good, sat, bad, blind, idle]);
        let e = efficiencies(&s);
        assert_eq!(e.len(), 5);
        // Sized first by req/s per core (good ~10,300, idle 2,500), then the rest in order.
        let names: Vec<&str> = e.iter().map(|x| x.target.as_str()).collect();
        assert_eq!(names, ["good", "idle", "sat", "bad", "blind"]);
        let e: Vec<Efficiency> = ["good", "sat", "bad", "blind", "idle"]
            .iter()
            .map(|n| e.iter().find(|x| x.target == *n).unwrap().clone())
            .collect();
        // By hand: 10,000, 10,000 and 11,000 req/s per core; geometric mean.
        let want = (10_000f64.ln() * 2.0 + 11_000f64.ln()) / 3.0;
        let pc = e[0].per_core.as_ref().unwrap();
        assert!((pc.center - want.exp()).abs() < 1e-6, "{pc:?}");
        assert_eq!(pc.n, 3);
        assert!(pc.ci_low < pc.center && pc.center < pc.ci_high);
        // Per GiB: 9,000 ÷ (100/1024), ...
        let g = e[0].per_gib.as_ref().unwrap();
        assert!((g.samples[0] - 9_000.0 / (100.0 / 1024.0)).abs() < 1e-6);
        assert_eq!(e[0].rss_peak_bytes, Some(128 << 20));
        assert_eq!(e[0].cpu_pct, Some(90.0));
        assert!(e[0].notes.is_empty(), "{:?}", e[0].notes);
        for (i, why) in [(1, "saturated"), (2, "invalid"), (3, "CPU not measured")] {
            assert!(!e[i].sized(), "{}", e[i].target);
            assert!(e[i].notes[0].contains(why), "{:?}", e[i].notes);
        }
        assert!(e[4].sized());
        assert!(e[4].notes[0].contains("not CPU-bound"), "{:?}", e[4].notes);
        // A fixed arrival rate is not a capacity: nothing is priced.
        let open = scenario(
            "open",
            vec![target("o", vec![trial(1, 100.0, 10.0, 100, "proc")])],
        );
        assert!(efficiencies(&open).is_empty());
    }

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
