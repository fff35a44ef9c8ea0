//! One adjacent pair of a race judged at one look (`summary::race`): its blocks' log ratios
//! by common round, the unit its interval rests on (`stats::levels`), the multiplier of the
//! look's boundary at its share of the error rate (worked out once per design and kept),
//! its verdict, and for a pair left open a forecast of what deciding it would take.
use std::collections::BTreeMap;

use super::pooled::Pool;
use super::{Entrant, PairJudgement, RoundObs, Rule, State, MIN_LOOK};
use crate::results::Forecast;
use crate::stats::levels::{self, UnitEstimate};
use crate::stats::sequential::{t_multiplier, Bounds, Design, Spending};
use crate::stats::Change;

/// Boundaries by Holm share (α/m for m pairs open). Worked out once per design in the
/// process (a design's recursion takes milliseconds, and a run judges its races after every
/// round), then read.
pub(super) struct Boundaries {
    rule: Rule,
    by_m: BTreeMap<usize, std::sync::Arc<Bounds>>,
}

/// Designs worked out so far, keyed by their figures.
type BoundsCache = std::sync::Mutex<BTreeMap<(u64, usize, usize, u64), std::sync::Arc<Bounds>>>;

fn cached_bounds(d: &Design) -> std::sync::Arc<Bounds> {
    static CACHE: std::sync::OnceLock<BoundsCache> = std::sync::OnceLock::new();
    let rho = match d.spending {
        Spending::OBrienFleming => u64::MAX,
        Spending::Power(r) => r.to_bits(),
    };
    let key = (d.alpha.to_bits(), d.max_looks, d.min_look, rho);
    let cache = CACHE.get_or_init(Default::default);
    if let Some(b) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return b;
    }
    let b = std::sync::Arc::new(Bounds::new(d));
    if let Ok(mut c) = cache.lock() {
        c.insert(key, b.clone());
    }
    b
}

/// `t_multiplier`, remembered: a race asks for the same few (boundary, df) pairs over and
/// over, and each answer is a bisection over the t distribution.
fn multiplier(z: f64, df: usize) -> f64 {
    type Cache = std::sync::Mutex<BTreeMap<(u64, usize), f64>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let key = (z.to_bits(), df);
    if let Some(m) = cache.lock().ok().and_then(|c| c.get(&key).copied()) {
        return m;
    }
    let m = t_multiplier(z, df);
    if let Ok(mut c) = cache.lock() {
        c.insert(key, m);
    }
    m
}

impl Boundaries {
    pub(super) fn new(rule: &Rule) -> Boundaries {
        Boundaries {
            rule: *rule,
            by_m: BTreeMap::new(),
        }
    }

    pub(super) fn z(&mut self, open: usize, look: usize, last: bool) -> f64 {
        let rule = self.rule;
        let b = self.by_m.entry(open).or_insert_with(|| {
            cached_bounds(&Design {
                alpha: rule.alpha / open.max(1) as f64,
                max_looks: rule.max_looks,
                min_look: rule.min_look,
                spending: rule.spending,
            })
        });
        b.z(look, last)
    }
}

/// The blocks' log ratios ln(a/b) by common round (a round without blocks: its trials'
/// ratio as its one value).
fn pair_blocks(a: &Entrant, b: &Entrant) -> Vec<Vec<f64>> {
    a.rounds
        .iter()
        .filter_map(|(r, x)| {
            let y = b.rounds.get(r)?;
            let common: Vec<f64> = x
                .blocks
                .iter()
                .filter_map(|(k, ra)| {
                    let rb = b_block(y, *k)?;
                    (*ra > 0.0 && rb > 0.0).then(|| (ra / rb).ln())
                })
                .collect();
            if !common.is_empty() {
                Some(common)
            } else if x.blocks.is_empty() && y.blocks.is_empty() && x.rate > 0.0 && y.rate > 0.0 {
                Some(vec![(x.rate / y.rate).ln()])
            } else {
                None
            }
        })
        .collect()
}

fn b_block(y: &RoundObs, k: u64) -> Option<f64> {
    y.blocks.get(&k).copied()
}

pub(super) fn pair_estimate(a: &Entrant, b: &Entrant) -> Option<UnitEstimate> {
    levels::estimate(&pair_blocks(a, b))
}

/// `a` against `b` at this look, at Holm's share 1/m of the error rate; `pool`: the
/// scenario's pooled noise of a round at this look (`pooled`).
#[allow(clippy::too_many_arguments)]
pub(super) fn judge_pair(
    a: &Entrant,
    b: &Entrant,
    rule: &Rule,
    m: usize,
    last: bool,
    r: u32,
    bounds: &mut Boundaries,
    pool: Option<Pool>,
) -> PairJudgement {
    let blocks = pair_blocks(a, b);
    let looks = blocks.len();
    let est = levels::estimate(&blocks).map(|e| super::pooled::prefer(e, &blocks, pool));
    let alpha = rule.alpha / m.max(1) as f64;
    // One round is one set of processes: never a decision on it.
    let z = if looks >= MIN_LOOK.max(rule.min_look) {
        bounds.z(m, looks, last)
    } else {
        f64::INFINITY
    };
    let (faster, slower, sign) = match &est {
        Some(e) if e.center < 0.0 => (b.name.clone(), a.name.clone(), -1.0),
        _ => (a.name.clone(), b.name.clone(), 1.0),
    };
    let Some(e) = est else {
        return PairJudgement {
            faster,
            slower,
            state: State::Undecided,
            change: None,
            estimate: None,
            multiplier: f64::INFINITY,
            look: looks,
            decided_after: None,
            alpha,
            forecast: None,
        };
    };
    let mult = if e.df > 0.0 && e.se > 0.0 {
        multiplier(z, e.df.round().max(1.0) as usize)
    } else {
        f64::INFINITY
    };
    let center = sign * e.center;
    let half = mult * e.se;
    let (lo, hi) = (center - half, center + half);
    let pct = |x: f64| (x.clamp(-700.0, 700.0).exp() - 1.0) * 100.0;
    let (lo_m, hi_m) = ((1.0 - rule.margin).ln(), (1.0 + rule.margin).ln());
    let state = if !half.is_finite() {
        State::Undecided
    } else if lo > 0.0 {
        State::Faster
    } else if lo > lo_m && hi < hi_m {
        State::Equivalent
    } else {
        State::Undecided
    };
    let finite = |x: f64| {
        if x.is_finite() {
            pct(x)
        } else {
            x.signum() * f64::INFINITY
        }
    };
    let change = Change {
        pct: pct(center),
        ci_low_pct: finite(lo),
        ci_high_pct: finite(hi),
        significant: state == State::Faster,
    };
    let forecast = (state == State::Undecided)
        .then(|| forecast(&e, center, rule, m, bounds))
        .flatten();
    PairJudgement {
        faster,
        slower,
        state,
        change: Some(change),
        estimate: Some(e),
        multiplier: mult,
        look: looks,
        decided_after: (state != State::Undecided).then_some(r),
        alpha,
        forecast,
    }
}

/// Rounds a forecast looks ahead at most.
pub const FORECAST_HORIZON: usize = 100;

/// How many more rounds would bring the interval inside a verdict (faster, or equivalent),
/// with the difference and the spread seen so far taken as true (ranking-fast.md §4): at
/// each later look the units grow as they have per round, the degrees of freedom with
/// them, and the multiplier is that look's. About half the time the pair decides by then.
/// None when no look within [`FORECAST_HORIZON`] rounds would.
fn forecast(
    e: &UnitEstimate,
    d: f64,
    rule: &Rule,
    m: usize,
    bounds: &mut Boundaries,
) -> Option<Forecast> {
    let s = e.se * (e.n as f64).sqrt();
    let looks = e.levels.rounds.max(1);
    if s.is_nan() || s <= 0.0 {
        return None;
    }
    let d = d.abs();
    let delta = (1.0 + rule.margin).ln().min(-(1.0 - rule.margin).ln());
    let per_round = e.n as f64 / looks as f64;
    for more in 1..=FORECAST_HORIZON {
        let look = looks + more;
        let n = e.n as f64 + per_round * more as f64;
        let df = (e.df + per_round * more as f64).round().max(1.0) as usize;
        let z = bounds.z(m, look, look >= rule.max_looks);
        let half = multiplier(z, df) * s / n.sqrt();
        let toward = if half < d {
            Some(State::Faster)
        } else if d + half < delta {
            Some(State::Equivalent)
        } else {
            None
        };
        if let Some(toward) = toward {
            return Some(Forecast {
                more_units: per_round * more as f64,
                more_rounds: more as u32,
                toward: toward.as_str().into(),
            });
        }
    }
    None
}
