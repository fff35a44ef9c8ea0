//! `gqlbench ab`'s statistics: from the slices of one pair of processes to that pair's
//! estimate, and from the pairs' estimates to the three-way decision (slower, faster,
//! equivalent) of a group-sequential test that may stop after any pair.
//!
//! Why the pair, not the slice, is the unit: two processes of the same build differ by a
//! fixed offset of their own (JIT tiering, code layout; 1–3%) that every slice of the pair
//! shares. Two hundred slices of one pair measure that pair's offset very precisely, not
//! the builds: a test on slices calls most A/A pairs different. So the slices only make a
//! pair's estimate d_k, and the decision uses the scatter of d_1..d_k across fresh pairs,
//! which carries the offsets, through `stats::sequential`'s repeated confidence intervals.
use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::stats::sequential::{Bounds, Design, Rci};
use crate::stats::{mean, stdev};

/// One slice of load: its position in the pair's sequence, which build took it, and its
/// throughput.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SliceObs {
    /// The slice's number in the pair's sequence; slices 4j..4j+3 form block j.
    pub index: u64,
    /// 0 = A (base), 1 = B (head).
    pub arm: usize,
    /// req/s of the slice's counted part.
    pub rate: f64,
}

/// What one pair of processes says about ln(B/A).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairEstimate {
    /// The mean over complete blocks of ln(B/A).
    pub d: f64,
    /// Complete blocks used.
    pub blocks: usize,
    /// The standard error of `d` from the blocks' scatter: a diagnostic only, since it
    /// leaves out the processes' offsets (see the module's header).
    pub within_se: f64,
}

/// The estimate of one pair from its slices. A block of four (ABBA or BAAB) counts only
/// with exactly two slices of each build, all with a positive rate, so warm-up or cut
/// slices at the window's edges drop out; its value is ½(ln b1 + ln b2 − ln a1 − ln a2),
/// in which a drift linear over the block cancels (both builds sit at its middle on
/// average). None with fewer than 2 complete blocks.
pub fn pair_estimate(slices: &[SliceObs]) -> Option<PairEstimate> {
    // Per block: the logs of A's and B's slices, and whether a slice spoiled it.
    let mut blocks: BTreeMap<u64, ([Vec<f64>; 2], bool)> = BTreeMap::new();
    for s in slices {
        let e = blocks.entry(s.index / 4).or_default();
        if s.arm > 1 || !(s.rate > 0.0 && s.rate.is_finite()) {
            e.1 = true;
        } else {
            e.0[s.arm].push(s.rate.ln());
        }
    }
    let xs: Vec<f64> = blocks
        .values()
        .filter(|([a, b], spoiled)| !spoiled && a.len() == 2 && b.len() == 2)
        .map(|([a, b], _)| 0.5 * (b[0] + b[1] - a[0] - a[1]))
        .collect();
    if xs.len() < 2 {
        return None;
    }
    Some(PairEstimate {
        d: mean(&xs),
        blocks: xs.len(),
        within_se: stdev(&xs) / (xs.len() as f64).sqrt(),
    })
}

/// The decision on B against A.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AbVerdict {
    /// B is worse, by more than the allowance or possibly so.
    Slower,
    /// B is worse, and by no more than the allowance.
    SlowerWithinAllowance,
    Faster,
    /// Any difference is within the allowance either way.
    Equivalent,
    /// The budget is spent and the interval holds 0.
    NoSignificantChange,
    /// Still running: no interval decides yet.
    Undecided,
    /// The budget ended before the first look.
    TooFewPairs,
}

impl fmt::Display for AbVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AbVerdict::Slower => "slower",
            AbVerdict::SlowerWithinAllowance => "slower, within the allowance",
            AbVerdict::Faster => "faster",
            AbVerdict::Equivalent => "equivalent, within the allowance",
            AbVerdict::NoSignificantChange => "no significant change",
            AbVerdict::Undecided => "undecided so far",
            AbVerdict::TooFewPairs => "too few pairs to decide",
        })
    }
}

/// The decision after some pairs, with the change of B against A in % of the metric
/// (100·(e^x − 1) of ln(B/A)) and its repeated confidence interval. With no interval yet
/// (`Undecided` or `TooFewPairs` before the first look) `low_pct` and `high_pct` equal
/// `pct`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AbDecision {
    pub verdict: AbVerdict,
    pub pairs: usize,
    pub pct: f64,
    pub low_pct: f64,
    pub high_pct: f64,
    /// Stop running pairs: the verdict is final.
    pub stop: bool,
    /// The gate fails: B is slower and a slowdown beyond the allowance is not ruled out.
    pub trips: bool,
}

/// Which way of a metric is good.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// Throughput: B's lower figure is a slowdown.
    Higher,
    /// Latency (p50, p99): B's higher figure is a slowdown.
    Lower,
}

/// The decision on pair estimates `ds` of ln(B/A) of a higher-is-better metric
/// (throughput), allowing B to be `allowance` (a fraction: 0.02 = 2%) worse. With ℓ =
/// ln(1 − allowance), u = ln(1 + allowance) and the repeated confidence interval at look
/// k = ds.len() (the last look when `budget_spent` or k ≥ K_max):
/// - inside (ℓ, u): stop, `Equivalent`, or `SlowerWithinAllowance` when it is below 0 as
///   well (the interval is valid at every look, so that much is shown);
/// - below ℓ: stop, `Slower`, the gate trips; above u: stop, `Faster`;
/// - on the last look: below 0 is `Slower` (tripping when the interval reaches below ℓ),
///   above 0 is `Faster`, else `NoSignificantChange`;
/// - otherwise `Undecided`, and before the first look on the last one `TooFewPairs`.
///
/// This works out the design's boundaries; `judge` takes them worked out once.
pub fn decide(ds: &[f64], allowance: f64, d: &Design, budget_spent: bool) -> AbDecision {
    judge(ds, allowance, &Bounds::new(d), budget_spent, Better::Higher)
}

/// `decide` for a lower-is-better metric (latency): `ds` are still ln(B/A) of the metric,
/// and the change and interval are reported on its own scale, but `Slower` means B's
/// figure is higher. The allowance bounds the same ratios, B/A in (1 − a, 1 + a).
pub fn decide_lower_is_better(
    ds: &[f64],
    allowance: f64,
    d: &Design,
    budget_spent: bool,
) -> AbDecision {
    judge(ds, allowance, &Bounds::new(d), budget_spent, Better::Lower)
}

/// The decision of `decide` with the boundaries given and either direction: the rule is
/// applied to y = ±ln(B/A) so that a lower y is always worse.
pub fn judge(
    ds: &[f64],
    allowance: f64,
    bounds: &Bounds,
    budget_spent: bool,
    better: Better,
) -> AbDecision {
    let a = if allowance.is_finite() {
        allowance.clamp(0.0, 0.999)
    } else {
        0.0
    };
    let sign = match better {
        Better::Higher => 1.0,
        Better::Lower => -1.0,
    };
    // The band of ln(B/A) within the allowance, on the y scale.
    let (l, u) = match better {
        Better::Higher => ((1.0 - a).ln(), (1.0 + a).ln()),
        Better::Lower => (-(1.0 + a).ln(), -(1.0 - a).ln()),
    };
    let k = ds.len();
    let last = budget_spent || k >= bounds.design.max_looks.max(1);
    let ys: Vec<f64> = ds.iter().map(|x| sign * x).collect();
    let pct = |x: f64| 100.0 * (x.clamp(-700.0, 700.0).exp() - 1.0);
    let Some(Rci {
        center, low, high, ..
    }) = bounds.rci(&ys, last)
    else {
        let p = if k > 0 && ds.iter().all(|x| x.is_finite()) {
            pct(mean(ds))
        } else {
            0.0
        };
        return AbDecision {
            verdict: if last {
                AbVerdict::TooFewPairs
            } else {
                AbVerdict::Undecided
            },
            pairs: k,
            pct: p,
            low_pct: p,
            high_pct: p,
            stop: last,
            trips: false,
        };
    };
    let (verdict, stop, trips) = if l < low && high < u {
        if high < 0.0 {
            (AbVerdict::SlowerWithinAllowance, true, false)
        } else {
            (AbVerdict::Equivalent, true, false)
        }
    } else if high < l {
        (AbVerdict::Slower, true, true)
    } else if low > u {
        (AbVerdict::Faster, true, false)
    } else if last && high < 0.0 {
        if low < l {
            (AbVerdict::Slower, true, true)
        } else {
            (AbVerdict::SlowerWithinAllowance, true, false)
        }
    } else if last && low > 0.0 {
        (AbVerdict::Faster, true, false)
    } else if last {
        (AbVerdict::NoSignificantChange, true, false)
    } else {
        (AbVerdict::Undecided, false, false)
    };
    // Back to ln(B/A) of the metric: for a lower-is-better one the interval turns over.
    let (lo_x, hi_x) = match better {
        Better::Higher => (low, high),
        Better::Lower => (-high, -low),
    };
    AbDecision {
        verdict,
        pairs: k,
        pct: pct(sign * center),
        low_pct: pct(lo_x),
        high_pct: pct(hi_x),
        stop,
        trips,
    }
}

#[cfg(test)]
mod tests;
