//! The race of a scenario's rounds: the ranking of its targets, decided pair by pair with
//! the error control of a sequential design, and which targets the next round still needs.
//!
//! After each round (a *look*) the ranked targets are ordered (a two-way fit of their
//! rounds' log rates, so a round that only some targets ran does not shift them against
//! the rest) and every adjacent pair is judged on the rounds both ran: its blocks or its
//! rounds (`stats::levels`), an interval whose multiplier comes from an α·t² spending
//! (`SPENDING`, `stats::sequential`) over the pair's looks (so looking after every round
//! keeps its error rate), and Holm's step-down over the scenario's adjacent pairs (the
//! family: a pair decided frees its share of the error rate for the others). A pair is
//! *faster* when its interval excludes 0, *equivalent* when it lies within ±margin. Once
//! decided a pair stays decided (its look is recorded), as a sequential test stops. A
//! target whose pairs with both neighbours are decided leaves the race: the next round
//! measures only the targets of pairs still open.
//!
//! The judgement is a pure function of the rounds' figures, replayed look by look, so the
//! report made from a results file says exactly what the run decided while it ran.
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::stats::levels::UnitEstimate;
use crate::stats::sequential::Spending;

use crate::results::Forecast;
use crate::stats::Change;

/// One round of one target: its trial's rate and, when the round alternated, each block's
/// rate (block index → req/s).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoundObs {
    pub rate: f64,
    pub blocks: BTreeMap<u64, f64>,
}

/// A target as the race sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Entrant {
    pub name: String,
    /// Takes part in the ranking (valid, unsaturated, not a baseline).
    pub ranked: bool,
    /// Its rounds inform the scenario's pooled noise (valid and unsaturated: the ranked
    /// targets and a baseline measured with them).
    pub pooled: bool,
    /// Its counted rounds.
    pub rounds: BTreeMap<u32, RoundObs>,
}

/// The race's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rule {
    /// Equivalence margin, a fraction (0.05: within ±5%).
    pub margin: f64,
    /// Error rate of the scenario's adjacent pairs together (two-sided).
    pub alpha: f64,
    /// The looks the spending plans for (the most rounds).
    pub max_looks: usize,
    /// The first look at which a pair may be decided (common rounds).
    pub min_look: usize,
    /// How the error rate is spent over the looks.
    pub spending: Spending,
    /// The noise of a round pooled over the scenario's targets (`pooled`; rule 2).
    pub pooled: bool,
}

impl Rule {
    pub fn new(margin: f64, max_rounds: u32) -> Rule {
        Rule {
            margin,
            alpha: ALPHA,
            max_looks: (max_rounds as usize).max(MIN_LOOK),
            min_look: MIN_LOOK,
            spending: SPENDING,
            pooled: true,
        }
    }
}

/// The race's rule as this build judges (`RaceInfo::rule`).
pub const RULE: u32 = 2;

/// A pair is first judged on two rounds: one round is one set of processes.
pub const MIN_LOOK: usize = 2;
/// The error rate of a scenario's ranking (all its adjacent pairs together, both
/// directions). Nominally 2.5%: its intervals' multipliers turn z boundaries into t ones
/// look by look, which with the few degrees of freedom of rounds as the unit lets more
/// through than planned: twins ranked apart in 1–5% of simulated races (`tests`), where
/// 5% gave up to 7%.
pub const ALPHA: f64 = 0.025;
/// The race's spending: α·t² (see `Spending::Power`), more early than ab's O'Brien–Fleming
/// so that pairs far apart are decided after two or three rounds.
pub const SPENDING: Spending = Spending::Power(2.0);

/// How an adjacent pair stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Faster,
    Equivalent,
    Undecided,
}

impl State {
    pub fn as_str(&self) -> &'static str {
        match self {
            State::Faster => "faster",
            State::Equivalent => "equivalent",
            State::Undecided => "undecided",
        }
    }
}

/// One adjacent pair of the ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct PairJudgement {
    pub faster: String,
    pub slower: String,
    pub state: State,
    /// faster over slower in %, with the interval of the look that decided it (or of the
    /// last look).
    pub change: Option<Change>,
    pub estimate: Option<UnitEstimate>,
    /// The interval's multiplier.
    pub multiplier: f64,
    /// Rounds both ran, at the look that decided it (or the last one).
    pub look: usize,
    /// The round after which it was decided.
    pub decided_after: Option<u32>,
    /// The error rate its interval was made at (Holm's share).
    pub alpha: f64,
    pub forecast: Option<Forecast>,
}

/// The race after its last look.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Standing {
    /// Ranked targets, fastest first.
    pub order: Vec<String>,
    pub pairs: Vec<PairJudgement>,
    /// Targets in a pair still open: what the next round measures.
    pub racing: BTreeSet<String>,
}

impl Standing {
    pub fn decided(&self) -> bool {
        self.pairs.iter().all(|p| p.state != State::Undecided)
    }
}

mod pair;
mod pooled;
pub use pair::FORECAST_HORIZON;
use pair::{judge_pair, pair_estimate, Boundaries};

/// A decision made at some look, kept.
#[derive(Debug, Clone)]
struct Frozen {
    judgement: PairJudgement,
}

/// How a race's rounds are looked at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looks {
    /// After every round (rounds added until decided); the last look spends what is left
    /// of the error rate when `last` (the rounds ended on the budget or the most rounds).
    Sequential { last: bool },
    /// Once, after a fixed number of rounds, with the whole error rate.
    Once,
}

/// The race over `entrants`' rounds: replayed look by look (`Sequential`), or judged once
/// at its last round.
pub fn judge(entrants: &[Entrant], rule: &Rule, looks: Looks) -> Standing {
    let rounds: BTreeSet<u32> = entrants
        .iter()
        .flat_map(|e| e.rounds.keys().copied())
        .collect();
    let mut frozen: BTreeMap<(String, String), Frozen> = BTreeMap::new();
    let Some(final_round) = rounds.iter().next_back().copied() else {
        return Standing::default();
    };
    match looks {
        Looks::Once => {
            // One look with all of the error rate: a design of one look.
            let once = Rule {
                max_looks: 1,
                min_look: 1,
                ..*rule
            };
            let mut bounds = Boundaries::new(&once);
            look(entrants, final_round, &once, true, &mut bounds, &mut frozen)
        }
        Looks::Sequential { last } => {
            let mut bounds = Boundaries::new(rule);
            let mut standing = Standing::default();
            for &r in &rounds {
                let is_last = last && r == final_round;
                standing = look(entrants, r, rule, is_last, &mut bounds, &mut frozen);
            }
            standing
        }
    }
}

fn key(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// The look after round `r`.
fn look(
    entrants: &[Entrant],
    r: u32,
    rule: &Rule,
    last: bool,
    bounds: &mut Boundaries,
    frozen: &mut BTreeMap<(String, String), Frozen>,
) -> Standing {
    let seen: Vec<Entrant> = entrants
        .iter()
        .filter(|e| e.ranked)
        .map(|e| Entrant {
            rounds: e.rounds.range(..=r).map(|(k, v)| (*k, v.clone())).collect(),
            ..e.clone()
        })
        .filter(|e| !e.rounds.is_empty())
        .collect();
    let pool = if rule.pooled {
        let pooled: Vec<&Entrant> = entrants.iter().filter(|e| e.ranked || e.pooled).collect();
        pooled::pool(&pooled, r)
    } else {
        None
    };
    let mut order = fitted_order(&seen);
    // Adjacent pairs, each as (upper, lower) of the order, made to agree with what their
    // own comparison says (a frozen decision, or the sign of the paired estimate).
    for _ in 0..order.len() {
        let mut swapped = false;
        for i in 0..order.len().saturating_sub(1) {
            let (a, b) = (&seen[order[i]], &seen[order[i + 1]]);
            let lower_ahead = match frozen.get(&key(&a.name, &b.name)) {
                Some(f) => f.judgement.faster == b.name,
                None => pair_estimate(a, b).is_some_and(|e| e.center < 0.0),
            };
            if lower_ahead {
                order.swap(i, i + 1);
                swapped = true;
            }
        }
        if !swapped {
            break;
        }
    }
    let adjacent: Vec<(usize, usize)> = order.windows(2).map(|w| (w[0], w[1])).collect();
    // Holm's step-down over the adjacent pairs still open.
    let mut open: Vec<(usize, usize)> = adjacent
        .iter()
        .copied()
        .filter(|(a, b)| !frozen.contains_key(&key(&seen[*a].name, &seen[*b].name)))
        .collect();
    let mut current: BTreeMap<(String, String), PairJudgement> = BTreeMap::new();
    loop {
        if open.is_empty() {
            break;
        }
        let m = open.len();
        let mut decided_any = false;
        let mut still = Vec::new();
        for (a, b) in open {
            let j = judge_pair(&seen[a], &seen[b], rule, m, last, r, bounds, pool);
            if j.state != State::Undecided {
                decided_any = true;
                frozen.insert(
                    key(&seen[a].name, &seen[b].name),
                    Frozen {
                        judgement: j.clone(),
                    },
                );
            } else {
                still.push((a, b));
            }
            current.insert(key(&seen[a].name, &seen[b].name), j);
        }
        open = still;
        if !decided_any {
            break;
        }
    }
    let mut pairs = Vec::new();
    let mut racing = BTreeSet::new();
    for (a, b) in adjacent {
        let k = key(&seen[a].name, &seen[b].name);
        let j = match frozen.get(&k) {
            Some(f) => f.judgement.clone(),
            None => current
                .remove(&k)
                .unwrap_or_else(|| judge_pair(&seen[a], &seen[b], rule, 1, last, r, bounds, pool)),
        };
        if j.state == State::Undecided {
            racing.insert(seen[a].name.clone());
            racing.insert(seen[b].name.clone());
        }
        pairs.push(j);
    }
    Standing {
        order: order.iter().map(|&i| seen[i].name.clone()).collect(),
        pairs,
        racing,
    }
}

/// The ranked entrants ordered fastest first by a two-way fit of their log rates
/// (target + round), so rounds that only some targets ran compare them fairly: indexes
/// into `seen`.
fn fitted_order(seen: &[Entrant]) -> Vec<usize> {
    let mu = fit(seen);
    let mut idx: Vec<usize> = (0..seen.len()).collect();
    idx.sort_by(|&a, &b| {
        mu[b]
            .total_cmp(&mu[a])
            .then_with(|| seen[a].name.cmp(&seen[b].name))
    });
    idx
}

/// μ_t of log rate = μ_t + ρ_round (`stats::twoway`).
pub fn fit(seen: &[Entrant]) -> Vec<f64> {
    let cells: Vec<crate::stats::twoway::Cell> = seen
        .iter()
        .enumerate()
        .flat_map(|(t, e)| {
            e.rounds
                .iter()
                .filter(|(_, o)| o.rate > 0.0)
                .map(move |(r, o)| (t, *r, o.rate.ln()))
        })
        .collect();
    crate::stats::twoway::fit(seen.len(), &cells).mu
}

#[cfg(test)]
mod tests;
