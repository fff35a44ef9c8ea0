//! What set the pace of a gateway's row: the gateway's CPU, the CPUs the generator and the
//! subgraphs share (the federation layout: generator and subgraphs on one side, the
//! gateway pinned to the other), or neither (the arrival schedule in the open model, the
//! connections' round trips in the closed one). From the row's medians over its counted
//! trials: the summary's gateway CPU over the cores it was pinned to
//! (`UpstreamUsage::gateway_cores`) and subgraph CPU over the cores they share with the
//! generator, and the generator's utilization. Kernel work charged to no process (loopback
//! receive in softirq) is not measured here.
use crate::results::TargetResult;
use crate::saturation::GENERATOR_CPU_LIMIT;
use crate::stats::median;

/// The gateway's CPU at or above this share of its cores counts as what bound the row.
/// The shared CPUs count from the saturation guard's own limit (`GENERATOR_CPU_LIMIT`), so
/// a row the guard flags for them names them here too.
pub const BUSY: f64 = 0.9;

/// The row's bound and the shares it was read from (fractions of the cores each had).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bound {
    pub gateway: Option<f64>,
    pub generator: f64,
    pub subgraphs: Option<f64>,
    pub open: bool,
}

impl Bound {
    /// From `t`'s summary and its counted trials with upstream figures; None without any.
    pub fn of(t: &TargetResult) -> Option<Bound> {
        let s = t.summary.as_ref()?;
        let trials: Vec<_> = t
            .trials
            .iter()
            .filter(|x| x.valid && x.excluded.is_none() && x.upstream.is_some())
            .collect();
        // The cores are the run's: the same in every trial.
        let up = trials.last()?.upstream.as_ref()?;
        let utilization: Vec<f64> = trials.iter().map(|x| x.generator.utilization).collect();
        Some(Bound::of_shares(
            s.cpu_avg_pct,
            s.subgraph_cpu_pct,
            median(&utilization),
            up,
            trials.iter().all(|x| x.load.model == "open"),
        ))
    }

    /// From one reading: the gateway's and the subgraphs' CPU (% of one core) over the
    /// cores `up` says each had, and the generator's utilization.
    pub fn of_shares(
        gateway_pct: Option<f64>,
        subgraph_pct: Option<f64>,
        generator: f64,
        up: &crate::results::UpstreamUsage,
        open: bool,
    ) -> Bound {
        Bound {
            gateway: gateway_pct
                .zip(up.gateway_cores)
                .map(|(pct, cores)| pct / 100.0 / cores.max(1) as f64),
            generator,
            subgraphs: subgraph_pct.map(|pct| pct / 100.0 / up.subgraph_cores.max(1) as f64),
            open,
        }
    }

    /// The generator's and the subgraphs' CPU together, on the cores they share.
    pub fn shared(&self) -> f64 {
        self.generator + self.subgraphs.unwrap_or(0.0)
    }

    /// "gateway (CPU 97%)", "subgraphs (their CPUs 93%: generator 41%, subgraphs 52%)", ...
    pub fn label(&self) -> String {
        let pct = |x: f64| format!("{:.0}%", x * 100.0);
        let g = self.gateway.map_or("unmeasured".into(), pct);
        let shared = format!(
            "{}: generator {}, subgraphs {}",
            pct(self.shared()),
            pct(self.generator),
            self.subgraphs.map_or("unmeasured".into(), pct)
        );
        let gateway_busy = self.gateway.is_some_and(|x| x >= BUSY);
        let shared_busy = self.shared() >= GENERATOR_CPU_LIMIT;
        let side = if self.subgraphs.unwrap_or(0.0) > self.generator {
            "subgraphs"
        } else {
            "generator"
        };
        match (gateway_busy, shared_busy) {
            (false, false) if self.gateway.is_none() => {
                format!("unknown: the gateway's CPU share was not measured (shared CPUs {shared})")
            }
            (true, false) => format!("gateway (CPU {g})"),
            (false, true) => format!("{side} (shared CPUs {shared}; gateway {g})"),
            (true, true) => format!("gateway and {side} (gateway {g}; shared CPUs {shared})"),
            (false, false) if self.open => {
                format!("the arrival rate (no CPU busy: gateway {g}; shared CPUs {shared})")
            }
            (false, false) => format!(
                "round trips (no CPU busy: gateway {g}; shared CPUs {shared}; waiting, e.g. on subgraph delays)"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(gateway: Option<f64>, generator: f64, subgraphs: Option<f64>, open: bool) -> String {
        Bound {
            gateway,
            generator,
            subgraphs,
            open,
        }
        .label()
    }

    #[test]
    fn the_busy_side_is_named_with_the_shares_it_was_read_from() {
        assert_eq!(b(Some(0.97), 0.3, Some(0.2), false), "gateway (CPU 97%)");
        // The generator and the subgraphs share their CPUs: together they are busy, and
        // the larger of the two is named.
        assert_eq!(
            b(Some(0.6), 0.4, Some(0.55), false),
            "subgraphs (shared CPUs 95%: generator 40%, subgraphs 55%; gateway 60%)"
        );
        assert_eq!(
            b(Some(0.6), 0.8, Some(0.15), false),
            "generator (shared CPUs 95%: generator 80%, subgraphs 15%; gateway 60%)"
        );
        assert!(b(Some(0.95), 0.5, Some(0.45), false).starts_with("gateway and generator"));
        assert!(b(Some(0.2), 0.1, Some(0.1), true).starts_with("the arrival rate"));
        assert!(b(Some(0.2), 0.1, Some(0.1), false).starts_with("round trips"));
        // A gateway CPU that could not be read (or cores a file of an older version did not
        // record) never counts as busy, nor as idle.
        assert!(b(None, 0.1, None, false).starts_with("unknown"));
        assert!(b(None, 0.5, Some(0.45), false).ends_with("gateway unmeasured)"));
    }
}
