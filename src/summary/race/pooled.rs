//! The noise of one target's round, pooled over the scenario's targets: the residual of a
//! two-way fit of their rounds' log rates (target + round, `stats::twoway`). A round's mean
//! carries its process's luck and its window's noise; one pair alone has one figure of that
//! per round (1 degree of freedom at two rounds), while the scenario's targets together have
//! (targets − 1) × (rounds − 1). A pair's difference over its R common rounds then has the
//! variance 2σ²/R: rounds as the unit, with the scenario's degrees of freedom. The model
//! assumes every target's rounds are about as noisy on the log scale; a pair whose own
//! rounds scatter more keeps its own, larger standard error.
use super::{Entrant, RoundObs};
use crate::stats::levels::{Unit, UnitEstimate};
use crate::stats::twoway;
use crate::stats::{mean, stdev};

/// The pooled variance of a target's round mean (log scale) and its degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pool {
    pub var: f64,
    pub df: usize,
}

/// The fewest degrees of freedom the pooled noise is used with: below this a pair's own
/// figures (blocks, or rounds) are no worse.
pub const MIN_DF: usize = 2;

/// A round of one target on the log scale: the mean of its blocks' logs, or its trial's.
fn level(o: &RoundObs) -> Option<f64> {
    let logs: Vec<f64> = o
        .blocks
        .values()
        .filter(|x| **x > 0.0)
        .map(|x| x.ln())
        .collect();
    if !logs.is_empty() {
        Some(mean(&logs))
    } else {
        (o.rate > 0.0).then(|| o.rate.ln())
    }
}

/// The pooled noise of `entrants`' rounds up to round `upto`; None below [`MIN_DF`].
pub fn pool(entrants: &[&Entrant], upto: u32) -> Option<Pool> {
    let cells: Vec<twoway::Cell> = entrants
        .iter()
        .enumerate()
        .flat_map(|(i, e)| {
            e.rounds
                .range(..=upto)
                .filter_map(move |(r, o)| level(o).map(|y| (i, *r, y)))
        })
        .collect();
    let (var, df) = twoway::fit(entrants.len(), &cells).residual?;
    (df >= MIN_DF && var.is_finite()).then_some(Pool { var, df })
}

/// The pair's estimate on the pooled noise, in place of `own` where the pair's own figures
/// cannot show the round term well: at two rounds (where `own` assumes the largest process
/// luck), and where the F test sent the pair to its rounds (J − 1 degrees of freedom) and
/// the pool has more. `rounds` are the pair's blocks' log ratios by common round.
pub fn prefer(own: UnitEstimate, rounds: &[Vec<f64>], pool: Option<Pool>) -> UnitEstimate {
    let Some(p) = pool else {
        return own;
    };
    let j = own.levels.rounds;
    let use_pool = match j {
        0 | 1 => false,
        2 => true,
        _ => own.unit == Unit::Rounds && p.df as f64 > own.df,
    };
    if !use_pool {
        return own;
    }
    let means: Vec<f64> = rounds
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| mean(r))
        .collect();
    let r = means.len() as f64;
    let pooled_se = (2.0 * p.var / r).sqrt();
    // The pair's own figures bound it from below where they show more noise than the
    // pool's: its rounds' scatter, and its blocks' within their rounds (a round's mean
    // varies at least by that, process luck aside).
    let own_rounds = stdev(&means) / r.sqrt();
    let own_blocks = own
        .levels
        .s1
        .map_or(0.0, |s1| (s1 / own.levels.blocks.max(1) as f64).sqrt());
    UnitEstimate {
        center: mean(&means),
        se: pooled_se.max(own_rounds).max(own_blocks),
        df: p.df as f64,
        unit: Unit::PooledRounds,
        n: means.len(),
        levels: own.levels,
    }
}

#[cfg(test)]
mod tests;
