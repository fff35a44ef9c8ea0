//! A paired comparison measured in rounds of blocks, and the unit its interval rests on
//! (Kalibera & Jones' two-level variance). A *block* is the innermost measurement two
//! targets share (in an alternating round, a permutation of the round's targets and its
//! mirror, ~0.8 s of each target's own load); a *round* is a set of blocks measured on
//! the same processes, which a suite's race starts afresh (so a round carries the
//! processes' luck: JIT tiering, heap layout).
//!
//! With S₁² the pooled variance of blocks about their round's mean and S₂² the variance of
//! the round means, the round term is T₂² = S₂² − S₁²/K̄. When it is not there (an F test
//! of K̄·S₂²/S₁² with a large p-value) and neighbouring blocks are not correlated, blocks
//! are the unit: many degrees of freedom, decided sooner. Otherwise the rounds are: an
//! honest interval with J − 1 degrees of freedom, however many blocks each holds. Pooling
//! after a preliminary test distorts coverage when the test is weak (few rounds), so it
//! pools only from three rounds and a large p-value, and at two rounds only with a round
//! term assumed as large as any process luck seen (see `estimate`).
use serde::{Deserialize, Serialize};

use super::{mean, stdev, t};

/// Pool the blocks only when the round term's F test gives a p-value above this. Higher
/// than Bancroft's 0.25: with few rounds the test is weak, and a round term it misses
/// (the processes' luck) would rank identical servers apart (`summary::race` tests).
pub const POOL_P: f64 = 0.5;
/// The largest process luck assumed at two rounds (sd of a pair's log ratio between one
/// process pair and the next): ten times what `ab`'s A/A pairs of graphql-jit showed on a
/// quiet VM (0–0.9%, docs/runs/ab-sensitivity-2026-11-26), twice what they showed on a
/// noisy one (about 5%).
pub const TAU_MAX: f64 = 0.10;
/// Neighbouring blocks correlated beyond this are batched in pairs (batch means).
pub const LAG1_LIMIT: f64 = 0.2;

/// The unit an interval rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Blocks pooled across rounds (the rounds add no variance of their own).
    Blocks,
    /// Pairs of neighbouring blocks pooled across rounds (single blocks were correlated).
    BlockPairs,
    /// The rounds' means.
    Rounds,
    /// The rounds' means, their noise pooled over the scenario's targets
    /// (`summary::race::pooled`).
    PooledRounds,
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unit::Blocks => "blocks",
            Unit::BlockPairs => "pairs of blocks",
            Unit::Rounds => "rounds",
            Unit::PooledRounds => "rounds (noise pooled over the scenario's targets)",
        })
    }
}

/// The two-level figures of one comparison.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Levels {
    /// Rounds with at least one block (J).
    pub rounds: usize,
    /// Blocks in all (Σ K_j).
    pub blocks: usize,
    /// S₁²: blocks about their round's mean, pooled; None when no round has two blocks.
    pub s1: Option<f64>,
    /// S₂²: the variance of the round means; None below two rounds.
    pub s2: Option<f64>,
    /// T₂² = S₂² − S₁²/K̄, the round term (negative: no round term at all).
    pub t2: Option<f64>,
    /// The F test's p-value for a round term.
    pub f_p: Option<f64>,
    /// Lag-1 autocorrelation of neighbouring blocks within rounds, pooled.
    pub lag1: Option<f64>,
}

/// The center of a comparison on the log scale, its standard error and degrees of
/// freedom, and how they were reached.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct UnitEstimate {
    pub center: f64,
    pub se: f64,
    pub df: f64,
    pub unit: Unit,
    /// Units the standard error came from.
    pub n: usize,
    pub levels: Levels,
}

/// Kalibera and Jones' cost-optimal blocks per round, K* = √((c_round / c_block) · T₁²/T₂²),
/// from the two-level figures of the comparisons still open: T₁² their pooled block
/// variance, T₂² their round term (a negative estimate counts as none). `c_round` is what a
/// new round costs beyond its blocks (fresh processes started and warmed up), `c_block` a
/// block. Kept within `[min, max]`; `min` without any figure (a round term never seen, or
/// no blocks yet, asks for nothing new).
pub fn blocks_per_round(open: &[Levels], c_round: f64, c_block: f64, min: u32, max: u32) -> u32 {
    let s1: Vec<f64> = open.iter().filter_map(|l| l.s1).collect();
    let t2: Vec<f64> = open.iter().filter_map(|l| l.t2).collect();
    if s1.is_empty() || t2.is_empty() || c_block.is_nan() || c_block <= 0.0 {
        return min;
    }
    let t1 = mean(&s1);
    let t2 = mean(&t2).max(0.0);
    let k = if t2 <= 0.0 {
        f64::INFINITY
    } else {
        ((c_round.max(0.0) / c_block) * t1 / t2).sqrt()
    };
    if k.is_nan() {
        return min;
    }
    (k.ceil().min(max as f64) as u32).clamp(min, max.max(min))
}

/// Blocks (their log ratios) by round; empty rounds are ignored.
pub fn levels(rounds: &[Vec<f64>]) -> Levels {
    let rs: Vec<&Vec<f64>> = rounds.iter().filter(|r| !r.is_empty()).collect();
    let j = rs.len();
    let blocks: usize = rs.iter().map(|r| r.len()).sum();
    let df1: usize = rs.iter().map(|r| r.len() - 1).sum();
    let s1 = (df1 > 0).then(|| {
        rs.iter()
            .map(|r| {
                let m = mean(r);
                r.iter().map(|x| (x - m).powi(2)).sum::<f64>()
            })
            .sum::<f64>()
            / df1 as f64
    });
    let means: Vec<f64> = rs.iter().map(|r| mean(r)).collect();
    let s2 = (j >= 2).then(|| stdev(&means).powi(2));
    let k_bar = blocks as f64 / j.max(1) as f64;
    let t2 = match (s1, s2) {
        (Some(s1), Some(s2)) => Some(s2 - s1 / k_bar),
        _ => None,
    };
    let f_p = match (s1, s2) {
        (Some(s1), Some(s2)) if s1 > 0.0 => {
            Some(t::f_sf(k_bar * s2 / s1, (j - 1) as f64, df1 as f64))
        }
        // Identical blocks within every round: any round term is all there is.
        (Some(_), Some(s2)) => Some(if s2 > 0.0 { 0.0 } else { 1.0 }),
        _ => None,
    };
    Levels {
        rounds: j,
        blocks,
        s1,
        s2,
        t2,
        f_p,
        lag1: lag1(&rs),
    }
}

/// Pooled lag-1 autocorrelation of blocks about their round's mean (rounds of 3 blocks or
/// more; None without any).
fn lag1(rounds: &[&Vec<f64>]) -> Option<f64> {
    let (mut num, mut den, mut any) = (0.0, 0.0, false);
    for r in rounds.iter().filter(|r| r.len() >= 3) {
        let m = mean(r);
        let c: Vec<f64> = r.iter().map(|x| x - m).collect();
        num += c.windows(2).map(|w| w[0] * w[1]).sum::<f64>();
        den += c.iter().map(|x| x * x).sum::<f64>();
        any = true;
    }
    (any && den > 0.0).then(|| num / den)
}

/// Neighbouring blocks of each round averaged in pairs (an odd last block alone).
fn batched(rounds: &[Vec<f64>]) -> Vec<Vec<f64>> {
    rounds
        .iter()
        .map(|r| r.chunks(2).map(mean).collect())
        .collect()
}

/// The estimate of a comparison from its blocks by round (see the module):
/// - one round: its blocks, for a figure to show (nothing is decided on one round);
/// - two rounds: the blocks pooled, their standard error widened by a round term as large
///   as any process luck measured ([`TAU_MAX`]): two rounds cannot show a round term, so
///   only a gap no process could explain is decided there;
/// - three rounds or more: the blocks pooled (pairs of blocks when neighbours are
///   correlated) when the F test finds no round term (p above [`POOL_P`]), else the rounds'
///   means;
/// - and never a pooled standard error below the round means' own: when the rounds happen
///   to scatter more than the blocks allow, the rounds are the unit.
///
/// None with fewer than two blocks in all.
pub fn estimate(rounds: &[Vec<f64>]) -> Option<UnitEstimate> {
    let lv = levels(rounds);
    if lv.blocks < 2 {
        return None;
    }
    let pooled = |rs: &[Vec<f64>], unit: Unit| -> UnitEstimate {
        let all: Vec<f64> = rs.iter().flatten().copied().collect();
        UnitEstimate {
            center: mean(&all),
            se: stdev(&all) / (all.len() as f64).sqrt(),
            df: (all.len() - 1) as f64,
            unit,
            n: all.len(),
            levels: lv,
        }
    };
    let means: Vec<f64> = rounds
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| mean(r))
        .collect();
    let by_rounds = (lv.rounds >= 2).then(|| UnitEstimate {
        center: mean(&means),
        se: stdev(&means) / (means.len() as f64).sqrt(),
        df: (means.len() - 1) as f64,
        unit: Unit::Rounds,
        n: means.len(),
        levels: lv,
    });
    let at_least_rounds = |e: UnitEstimate| match by_rounds {
        Some(r) if r.se > e.se => r,
        _ => e,
    };
    match lv.rounds {
        0 => None,
        1 => Some(pooled(rounds, Unit::Blocks)),
        2 => {
            let mut e = pooled(rounds, Unit::Blocks);
            e.se = (e.se.powi(2) + TAU_MAX * TAU_MAX / 2.0).sqrt();
            Some(at_least_rounds(e))
        }
        _ => {
            if lv.f_p.is_some_and(|p| p > POOL_P) {
                if lv.lag1.is_none_or(|r| r <= LAG1_LIMIT) {
                    return Some(at_least_rounds(pooled(rounds, Unit::Blocks)));
                }
                let b = batched(rounds);
                if levels(&b).lag1.is_none_or(|r| r <= LAG1_LIMIT) {
                    let mut e = pooled(&b, Unit::BlockPairs);
                    e.levels = lv;
                    return Some(at_least_rounds(e));
                }
            }
            by_rounds
        }
    }
}

#[cfg(test)]
mod tests;
