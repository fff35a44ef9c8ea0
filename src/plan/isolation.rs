//! Where the load generator and the targets run: the CPU sets (flags or the default split,
//! checked against the CPUs this process may use) and whether cgroups are used.
use anyhow::Result;

use super::IsolationOptions;
use crate::error::PlanError;
use crate::sys::cpus::CpuSet;

pub use crate::sys::cpus::IsolationPlan;

/// The CPU sets as asked, or by default: half and half, or, for a run that fronts gateways
/// (`gateways`: their subgraphs share the generator's CPUs), one CPU for the gateway and the
/// rest for the generator and subgraphs where there are 4 or more (`cpus::gateway_split`).
pub fn resolve_isolation(args: &IsolationOptions, gateways: bool) -> Result<IsolationPlan> {
    let mut notes = Vec::new();
    if args.no_pin {
        notes.push("CPU pinning disabled (--no-pin): generator and targets share CPUs".into());
        return Ok(IsolationPlan {
            generator: None,
            target: None,
            cgroups: !args.no_cgroups,
            notes,
        });
    }
    let allowed = crate::sys::cpus::allowed_cpus();
    let split = gateways
        .then(|| crate::sys::cpus::gateway_split(&allowed))
        .flatten()
        .filter(|_| args.generator_cpus.is_none() && args.target_cpus.is_none());
    if let Some((g, t)) = &split {
        notes.push(format!(
            "CPU split for gateways ({} CPUs): the gateway on CPU {}, the generator and the subgraphs on CPUs {} (--generator-cpus and --target-cpus change it)",
            allowed.len(),
            t.display(),
            g.display()
        ));
    }
    let (dg, dt) = split.unwrap_or_else(|| crate::sys::cpus::default_split(&allowed));
    let parse = |flag: &'static str, v: &Option<String>, default: CpuSet| -> Result<CpuSet> {
        let Some(s) = v else { return Ok(default) };
        let set = CpuSet::parse(s).map_err(|e| PlanError::Flag {
            flag,
            message: e.to_string(),
        })?;
        if let Some(c) = set.0.iter().find(|c| !allowed.contains(c)) {
            return Err(PlanError::Flag {
                flag,
                message: format!(
                    "CPU {c} is not available to this process (allowed: {})",
                    CpuSet(allowed.clone()).display()
                ),
            }
            .into());
        }
        Ok(set)
    };
    let g = parse("--generator-cpus", &args.generator_cpus, dg)?;
    let t = parse("--target-cpus", &args.target_cpus, dt)?;
    if g.0.iter().any(|c| t.0.contains(c)) {
        notes.push(format!(
            "generator CPUs {} and target CPUs {} overlap: the generator competes with the target",
            g.display(),
            t.display()
        ));
    }
    Ok(IsolationPlan {
        generator: Some(g),
        target: Some(t),
        cgroups: !args.no_cgroups,
        notes,
    })
}
