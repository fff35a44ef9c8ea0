//! A scenario's race as its results record it (`summary::race`): each ranked target's
//! counted rounds (its trial's rate and, when the round alternated, each whole block's rate
//! from its own slices) and the race's rule from the scenario's rounds. `rank` reports the
//! standing after the last round; the runner asks for it after every round, to know which
//! targets the next one measures.
use std::collections::BTreeMap;

use super::race::{self, Entrant, Looks, RoundObs, Rule, Standing};
use crate::catalog::TargetKind;
use crate::results::{ScenarioResult, StopReason, TargetResult, TrialResult};

/// A slice counts towards its block when its counted part is at least this share of the
/// fullest slice of its trial: the slices at the window's edges are cut short.
const FULL_SLICE: f64 = 0.9;

/// Whether each of an alternating trial's slices is whole (not cut short at the window's
/// edges: see [`FULL_SLICE`]), in the trial's order; all false without a counted slice.
pub fn whole_slices(x: &TrialResult) -> Vec<bool> {
    let full = x
        .load
        .slices
        .iter()
        .map(|s| s.counted_ms)
        .fold(0.0, f64::max);
    x.load
        .slices
        .iter()
        .map(|s| full > 0.0 && s.counted_ms >= FULL_SLICE * full)
        .collect()
}

/// The block rates of an alternating trial: for each block (a permutation of the round's
/// targets and its mirror, `2 × alternated` slices), this target's answers over the counted
/// time of its two slices, when both are whole.
pub fn block_rates(x: &TrialResult) -> BTreeMap<u64, f64> {
    let Some(n) = x.alternated.filter(|n| *n >= 2) else {
        return BTreeMap::new();
    };
    let mut blocks: BTreeMap<u64, (u64, f64, u32, bool)> = BTreeMap::new();
    for (s, whole) in x.load.slices.iter().zip(whole_slices(x)) {
        let b = blocks.entry(s.index / (2 * n as u64)).or_default();
        b.0 += s.ok;
        b.1 += s.counted_ms;
        b.2 += 1;
        b.3 |= !whole;
    }
    blocks
        .into_iter()
        .filter(|(_, (_, ms, k, short))| *k == 2 && !short && *ms > 0.0)
        .map(|(b, (ok, ms, _, _))| (b, ok as f64 / (ms / 1000.0)))
        .collect()
}

/// A target as the race sees it: its valid trials that count (not measured again) and
/// have the scenario's figure (`figure`: its rate of answers, or an efficiency scenario's
/// answers per CPU-second), by round.
pub fn entrant(
    t: &TargetResult,
    ranked: bool,
    figure: &dyn Fn(&TrialResult) -> Option<f64>,
) -> Entrant {
    Entrant {
        name: t.name.clone(),
        ranked,
        pooled: super::rankable(t),
        rounds: t
            .trials
            .iter()
            .filter(|x| x.valid && x.excluded.is_none())
            .filter_map(|x| {
                Some((
                    x.trial,
                    RoundObs {
                        rate: figure(x)?,
                        blocks: block_rates(x),
                    },
                ))
            })
            .collect(),
    }
}

/// Every target of the scenario as the race sees it; ranked are the valid, unsaturated ones
/// that are not baselines.
pub fn entrants(s: &ScenarioResult) -> Vec<Entrant> {
    let figure = crate::summary::efficiency::ranked_figure(s);
    s.targets
        .iter()
        .map(|t| {
            entrant(
                t,
                super::rankable(t) && t.kind != TargetKind::Baseline,
                &figure,
            )
        })
        .collect()
}

/// The race's rule for the scenario: its precision as the equivalence margin (none: no pair
/// can be equivalent), the looks its budget planned (else its most rounds) as the looks.
pub fn rule(s: &ScenarioResult) -> Rule {
    let r = s.rounds.as_ref();
    let margin = r.and_then(|r| r.target_pct).map_or(0.0, |p| p / 100.0);
    let max = r.map_or(s.trials_planned, |r| {
        let planned = r.race.as_ref().and_then(|x| x.looks).unwrap_or(r.max);
        planned.max(r.run)
    });
    // Rounds without a race's record (fixed rounds, or a file from before the race) are
    // judged by the first rule.
    let version = r.and_then(|r| r.race.as_ref()).map_or(1, |x| x.rule);
    // An efficiency scenario's targets differ in their noise by far more than a round's
    // (a Node gateway's CPU per request at 20 req/s swings with a GC or two, a native one's
    // hardly): pooled, the noisiest would set every pair's interval. Each pair judges on
    // its own rounds there.
    let cost = s.by_kind.has(&super::efficiency::RATE);
    Rule {
        pooled: version >= 2 && !cost,
        ..Rule::new(margin, max)
    }
}

/// How the scenario's rounds were looked at: after every one (rounds added until decided),
/// the last spending what was left when the rounds ended without a decision; or once at the
/// end (a fixed number of rounds).
pub fn looks(s: &ScenarioResult) -> Looks {
    match s.rounds.as_ref() {
        Some(r) if r.target_pct.is_some() => Looks::Sequential {
            last: matches!(
                r.stop,
                StopReason::Time | StopReason::MaxRounds | StopReason::Ended
            ),
        },
        _ => Looks::Once,
    }
}

/// The standing of the scenario's race after its last round, as `looks` says it was looked
/// at; `last` overrides whether the last look spends what is left (the runner asks before
/// it knows why the rounds stop).
pub fn standing(s: &ScenarioResult, looks: Looks) -> Standing {
    race::judge(&entrants(s), &rule(s), looks)
}
