//! Where the load generator and the targets run: the CPU sets (flags or the default split,
//! checked against the CPUs this process may use) and whether cgroups are used.
use anyhow::Result;

use super::IsolationOptions;
use crate::error::PlanError;
use crate::sys::cpus::CpuSet;

pub use crate::sys::cpus::IsolationPlan;

pub fn resolve_isolation(args: &IsolationOptions) -> Result<IsolationPlan> {
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
    let (dg, dt) = crate::sys::cpus::default_split(&allowed);
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
