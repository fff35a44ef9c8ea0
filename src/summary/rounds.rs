//! How many rounds a scenario runs. A round measures every target once, in a rotating
//! order, so a round is a block: drift of the machine between rounds hits every target
//! alike and cancels out of their ratios. After the minimum, rounds are added until every
//! valid row's interval is within ±target of its center, or every adjacent pair of the
//! ranking is decided (its ratio's interval excludes 1, or lies within ±target:
//! equivalent), or the budget (rounds, time) is spent. The rule is a pure function of the
//! figures so far, tested on its own.
pub use crate::plan::Precision;
pub use crate::results::StopReason;
use crate::stats::{center_interval, paired_change, Change};

/// One row as the rule sees it: its valid samples by round.
#[derive(Debug, Clone)]
pub struct Row {
    pub name: String,
    /// (round, figure) of every valid trial counted in the summary.
    pub samples: Vec<(u32, f64)>,
    /// Ranked rows take part in the ranking (valid, unsaturated, not a baseline).
    pub ranked: bool,
}

impl Row {
    /// A target's row: its valid trials that count (not excluded), by round.
    pub fn of(t: &crate::results::TargetResult, ranked: bool) -> Row {
        Row {
            name: t.name.clone(),
            samples: t
                .trials
                .iter()
                .filter(|x| x.valid && x.excluded.is_none())
                .map(|x| (x.trial, x.load.throughput_rps))
                .collect(),
            ranked,
        }
    }
}

/// How an adjacent pair of the ranking stands.
#[derive(Debug, Clone, PartialEq)]
pub enum PairState {
    /// The faster one is faster (the interval of the ratio excludes 1).
    Faster(Change),
    /// Within ±target of each other, surely (the whole interval is).
    Equivalent(Change),
    Undecided(Option<Change>),
}

impl PairState {
    pub fn decided(&self) -> bool {
        !matches!(self, PairState::Undecided(_))
    }
}

/// Half-width of a row's interval relative to its center, once it has two samples.
pub fn half_width(row: &Row) -> Option<f64> {
    let xs: Vec<f64> = row.samples.iter().map(|s| s.1).collect();
    if xs.len() < 2 {
        return None;
    }
    let (c, lo, hi) = center_interval(&xs);
    (c > 0.0).then(|| (hi - lo) / 2.0 / c)
}

fn center(row: &Row) -> f64 {
    let xs: Vec<f64> = row.samples.iter().map(|s| s.1).collect();
    center_interval(&xs).0
}

/// The ranked rows from fastest to slowest, and how each adjacent pair stands.
pub fn pairs(rows: &[Row], target: f64) -> Vec<(String, String, PairState)> {
    let mut ranked: Vec<&Row> = rows
        .iter()
        .filter(|r| r.ranked && !r.samples.is_empty())
        .collect();
    ranked.sort_by(|a, b| center(b).total_cmp(&center(a)));
    ranked
        .windows(2)
        .map(|w| {
            let (fast, slow) = (w[0], w[1]);
            // The rounds both were measured in: the pair's blocks, as (slower, faster), so
            // the change is the faster one's margin over the slower.
            let common: Vec<(f64, f64)> = slow
                .samples
                .iter()
                .filter_map(|(r, s)| {
                    fast.samples
                        .iter()
                        .find(|(rf, _)| rf == r)
                        .map(|(_, f)| (*s, *f))
                })
                .collect();
            let state = match paired_change(&common) {
                Some(c) if c.significant => PairState::Faster(c),
                Some(c)
                    if common.len() >= crate::stats::MIN_TRIALS
                        && c.ci_low_pct >= -target * 100.0
                        && c.ci_high_pct <= target * 100.0 =>
                {
                    PairState::Equivalent(c)
                }
                other => PairState::Undecided(other),
            };
            (fast.name.clone(), slow.name.clone(), state)
        })
        .collect()
}

/// Whether to run another round after `done` rounds; None to go on, else why to stop.
pub fn decide(rows: &[Row], done: u32, p: &Precision, time_left: bool) -> Option<StopReason> {
    if done < p.min_rounds {
        return None;
    }
    let Some(target) = p.target else {
        return Some(StopReason::Fixed);
    };
    let measured: Vec<&Row> = rows.iter().filter(|r| !r.samples.is_empty()).collect();
    if measured.is_empty() {
        return Some(StopReason::Ended);
    }
    if measured
        .iter()
        .all(|r| half_width(r).is_some_and(|h| h <= target))
    {
        return Some(StopReason::Precise);
    }
    let ps = pairs(rows, target);
    if !ps.is_empty() && ps.iter().all(|(_, _, s)| s.decided()) {
        return Some(StopReason::Decided);
    }
    if done >= p.max_rounds {
        return Some(StopReason::MaxRounds);
    }
    if !time_left {
        return Some(StopReason::Time);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, xs: &[f64]) -> Row {
        Row {
            name: name.into(),
            samples: xs
                .iter()
                .enumerate()
                .map(|(i, x)| (i as u32 + 1, *x))
                .collect(),
            ranked: true,
        }
    }

    fn p(target: Option<f64>) -> Precision {
        Precision {
            min_rounds: 3,
            max_rounds: 6,
            target,
        }
    }

    #[test]
    fn the_minimum_runs_whatever_the_figures() {
        let rows = [row("a", &[100.0, 100.0])];
        assert_eq!(decide(&rows, 2, &p(Some(0.05)), true), None);
        assert_eq!(decide(&rows, 3, &p(None), true), Some(StopReason::Fixed));
    }

    #[test]
    fn precise_rows_stop_noisy_rows_go_on_until_the_budget() {
        let tight = [
            row("a", &[1000.0, 1005.0, 995.0]),
            row("b", &[500.0, 502.0, 498.0]),
        ];
        assert_eq!(
            decide(&tight, 3, &p(Some(0.05)), true),
            Some(StopReason::Precise)
        );
        // b is noisy and too close to a to be decided: more rounds, then the budget.
        let noisy = [
            row("a", &[1000.0, 1005.0, 995.0]),
            row("b", &[900.0, 1100.0, 980.0]),
        ];
        assert_eq!(decide(&noisy, 3, &p(Some(0.05)), true), None);
        assert_eq!(
            decide(&noisy, 3, &p(Some(0.05)), false),
            Some(StopReason::Time)
        );
        assert_eq!(
            decide(&noisy, 6, &p(Some(0.05)), true),
            Some(StopReason::MaxRounds)
        );
    }

    #[test]
    fn a_ranking_decided_round_by_round_stops_even_when_rows_are_noisy() {
        // Every round moves both alike (drift of ±20%), b always 30% slower: each row's
        // own interval is wide, but the pair is decided within the rounds.
        let a = [1000.0, 1300.0, 800.0];
        let b: Vec<f64> = a.iter().map(|x| x * 0.7).collect();
        let rows = [row("a", &a), row("b", &b)];
        assert!(half_width(&rows[0]).unwrap() > 0.05);
        let ps = pairs(&rows, 0.05);
        assert!(matches!(ps[0].2, PairState::Faster(_)), "{ps:?}");
        assert_eq!(ps[0].0, "a");
        assert_eq!(
            decide(&rows, 3, &p(Some(0.05)), true),
            Some(StopReason::Decided)
        );
    }

    #[test]
    fn equal_rows_are_decided_as_equivalent_only_when_the_whole_interval_says_so() {
        let a = [1000.0, 1300.0, 800.0];
        let b: Vec<f64> = a.iter().map(|x| x * 1.002).collect();
        let eq = pairs(&[row("a", &a), row("b", &b)], 0.05);
        assert!(matches!(eq[0].2, PairState::Equivalent(_)), "{eq:?}");
        // The same centers with ratios that wander by ±8%: undecided.
        let c = [1000.0 * 1.08, 1300.0 * 0.92, 800.0];
        let un = pairs(&[row("a", &a), row("c", &c)], 0.05);
        assert!(matches!(un[0].2, PairState::Undecided(_)), "{un:?}");
    }
}
