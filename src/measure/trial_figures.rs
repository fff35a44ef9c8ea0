//! What a measured run's figures make of it (`trial::measure`'s last steps, after the
//! samplers are finished): the target's vitals, what its subgraphs did, and the judgement
//! beside the load's own: the subgraphs' saturation flags, what went wrong beside the
//! target, a warm-up that never settled.
use std::collections::BTreeMap;

use gqlbench_engine::LoadResult;

use super::session::Session;
use super::trial::{MeasureCx, SUBGRAPH_CPU_LIMIT};
use super::variant_watch::VariantFigures;
use super::vitals::Sampler;
use crate::results::*;
use crate::saturation;

/// The target's vitals over the window, with the CPUs it was found on when it started.
pub(super) fn target_vitals(sampler: Sampler, sess: &Session) -> Vitals {
    let mut vitals = sampler.finish();
    vitals.verified_cpus = sess.verified_cpus.clone();
    // The peak is the highest RSS seen since the target was ready, its idle sample
    // included: a server whose collector shrinks it under load still peaked where it
    // idled. A window in which nothing was read stays unmeasured: the idle figure is not
    // its peak.
    if let (Some(peak), Some(idle)) = (vitals.rss_peak_bytes, sess.rss_idle_bytes) {
        vitals.rss_peak_bytes = Some(peak.max(idle));
    }
    vitals
}

/// What a gateway's subgraphs did for the `client` requests sent: their calls (counted
/// before and after the run), CPU and memory, with the variant's headers and coprocessor
/// figures. None without subgraphs.
pub(super) fn upstream<K: ?Sized>(
    cx: &MeasureCx<'_, K>,
    sampler: Option<Sampler>,
    counters_before: Option<BTreeMap<String, u64>>,
    client: u64,
    variant: &mut VariantFigures,
    problems: &mut Vec<String>,
) -> Option<UpstreamUsage> {
    let (Some(s), Some(sampler)) = (cx.sess.subgraphs.as_ref(), sampler) else {
        return None;
    };
    let sv = sampler.finish();
    let after = s.counters();
    let calls: BTreeMap<String, u64> = match (&counters_before, &after) {
        (Some(a), Some(b)) => b
            .iter()
            .map(|(k, v)| (k.clone(), v.saturating_sub(a.get(k).copied().unwrap_or(0))))
            .collect(),
        _ => BTreeMap::new(),
    };
    if after.is_none() {
        problems.push(format!(
            "subgraph counters unreadable: did the subgraphs die? (their log: {})",
            s.process.log.display()
        ));
    }
    let total: u64 = calls.values().sum();
    let sub_cores = cx
        .plan
        .isolation
        .generator
        .as_ref()
        .map(|c| c.0.len())
        .unwrap_or(1);
    Some(UpstreamUsage {
        calls_per_request: if client > 0 {
            total as f64 / client as f64
        } else {
            0.0
        },
        calls,
        subgraph_cpu_pct: sv.cpu_avg_pct,
        subgraph_cores: sub_cores,
        gateway_cores: cx.plan.isolation.target.as_ref().map(|c| c.0.len()),
        subgraph_rss_peak_bytes: sv.rss_peak_bytes,
        headers: std::mem::take(&mut variant.headers),
        coprocessor_calls_per_request: variant.coprocessor_calls_per_request,
        coprocessor_cpu_pct: variant.coprocessor_cpu_pct,
    })
}

/// The subgraphs' saturation flags: their CPU and the generator's, which share CPUs, and
/// theirs alone. Subgraph CPU that could not be read raises no flag (and is shown
/// unmeasured).
pub(super) fn subgraph_flags(
    u: &UpstreamUsage,
    generator: &GeneratorUsage,
    result: &LoadResult,
) -> Vec<SaturationFlag> {
    let mut flags = Vec::new();
    let sub_cores = u.subgraph_cores;
    let Some(sub_cpu) = u.subgraph_cpu_pct else {
        return flags;
    };
    // The subgraphs share the generator's CPUs (the target has the others): their CPU and
    // the generator's together must leave headroom too.
    let shared = (generator.cpu_s + sub_cpu / 100.0 * result.elapsed_s)
        / (result.elapsed_s.max(1e-9) * sub_cores as f64);
    if shared > saturation::GENERATOR_CPU_LIMIT
        && sub_cpu <= SUBGRAPH_CPU_LIMIT * 100.0 * sub_cores as f64
    {
        flags.push(SaturationFlag {
            kind: crate::results::FlagKind::SharedCpu,
            detail: format!(
                "the generator and the subgraphs together used {:.0}% of the {} CPU(s) they share",
                shared * 100.0,
                sub_cores
            ),
        });
    }
    if sub_cpu > SUBGRAPH_CPU_LIMIT * 100.0 * sub_cores as f64 {
        flags.push(SaturationFlag {
            kind: crate::results::FlagKind::SubgraphCpu,
            detail: format!(
                "the subgraphs used {:.0}% CPU of their {} core(s): they may limit the gateway",
                sub_cpu, sub_cores
            ),
        });
    }
    flags
}

/// What went wrong beside the target during the run: its subgraphs exited, its cgroup's
/// memory cap was reached (hits counted since `cap_hits_before`).
pub(super) fn session_problems(sess: &mut Session, cap_hits_before: Option<u64>) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(s) = sess.subgraphs.as_mut() {
        if let Some(st) = s.process.exited() {
            problems.push(format!("the subgraphs exited ({st})"));
        }
    }
    if let (Some(before), Some(after)) = (
        cap_hits_before,
        sess.cgroup.as_ref().and_then(|c| c.memory_cap_hits()),
    ) {
        if after > before {
            problems.push(format!(
                "memory cap reached {} times during the trial (cgroup failcnt)",
                after - before
            ));
        }
    }
    problems
}

/// A warm-up until steady that never settled: the window may still include warm-up.
pub(super) fn unsteady_flag(warmup: Option<&WarmupInfo>) -> Option<SaturationFlag> {
    let w = warmup.filter(|w| !w.steady)?;
    Some(SaturationFlag {
        kind: crate::results::FlagKind::Unsteady,
        detail: format!(
            "the throughput did not settle within the warm-up's {:.0} s (last second: {}): the window may still include warm-up",
            w.max_s,
            w.rps
                .iter()
                .rev()
                .take(super::warmup::WINDOW)
                .rev()
                .map(|x| format!("{x:.0}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}
