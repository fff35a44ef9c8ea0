//! How many rounds a scenario runs. A round measures its targets in a rotating order, so a
//! round is a block: drift of the machine between rounds hits every target alike and
//! cancels out of their ratios. After the minimum, rounds are added until every adjacent
//! pair of the race's ranking is decided (`summary::race`: faster, or equivalent within
//! ±target), or, with no ranking to decide (one row), until its interval is within ±target
//! of its center; or until the budget (rounds, time) is spent. The rule is a pure function
//! of the figures so far, tested on its own.
pub use crate::plan::Precision;
pub use crate::results::StopReason;
use crate::stats::center_interval;
use crate::summary::race::Standing;

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
    /// A target's row: its valid trials that count (not excluded) and have the scenario's
    /// figure (`summary::efficiency::ranked_figure`), by round.
    pub fn of(
        t: &crate::results::TargetResult,
        ranked: bool,
        figure: &dyn Fn(&crate::results::TrialResult) -> Option<f64>,
    ) -> Row {
        Row {
            name: t.name.clone(),
            samples: t
                .trials
                .iter()
                .filter(|x| x.valid && x.excluded.is_none())
                .filter_map(|x| Some((x.trial, figure(x)?)))
                .collect(),
            ranked,
        }
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

/// Whether to run another round after `done` rounds; None to go on, else why to stop.
/// `standing`: the race's after the last round (None when the rounds do not race);
/// `nobody`: the race needs no target in a next round; `time_left`: the budget holds
/// another round.
pub fn decide(
    rows: &[Row],
    done: u32,
    p: &Precision,
    standing: Option<&Standing>,
    nobody: bool,
    time_left: bool,
) -> Option<StopReason> {
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
    match standing {
        // A ranking to decide: its pairs decide when to stop.
        Some(st) if !st.pairs.is_empty() => {
            if st.decided() || nobody {
                return Some(StopReason::Decided);
            }
        }
        // One row (or none ranked): its own interval does.
        _ => {
            if measured
                .iter()
                .all(|r| half_width(r).is_some_and(|h| h <= target))
            {
                return Some(StopReason::Precise);
            }
        }
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
    use crate::summary::race::{PairJudgement, State};

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

    fn standing(state: State) -> Standing {
        Standing {
            order: vec!["a".into(), "b".into()],
            pairs: vec![PairJudgement {
                faster: "a".into(),
                slower: "b".into(),
                state,
                change: None,
                estimate: None,
                multiplier: 2.0,
                look: 3,
                decided_after: None,
                alpha: 0.025,
                forecast: None,
            }],
            racing: Default::default(),
        }
    }

    #[test]
    fn the_minimum_runs_whatever_the_figures() {
        let rows = [row("a", &[100.0, 100.0])];
        let decided = standing(State::Faster);
        assert_eq!(
            decide(&rows, 2, &p(Some(0.05)), Some(&decided), false, true),
            None
        );
        assert_eq!(
            decide(&rows, 3, &p(None), None, false, true),
            Some(StopReason::Fixed)
        );
    }

    #[test]
    fn one_row_stops_when_precise_and_goes_on_until_the_budget_when_not() {
        let tight = [row("a", &[1000.0, 1005.0, 995.0])];
        assert_eq!(
            decide(&tight, 3, &p(Some(0.05)), None, false, true),
            Some(StopReason::Precise)
        );
        let noisy = [row("a", &[900.0, 1100.0, 980.0])];
        assert_eq!(decide(&noisy, 3, &p(Some(0.05)), None, false, true), None);
        assert_eq!(
            decide(&noisy, 3, &p(Some(0.05)), None, false, false),
            Some(StopReason::Time)
        );
        assert_eq!(
            decide(&noisy, 6, &p(Some(0.05)), None, false, true),
            Some(StopReason::MaxRounds)
        );
    }

    #[test]
    fn a_race_stops_when_its_pairs_are_decided_whatever_the_rows_intervals() {
        // The rows are noisy (±20% between rounds): the race's pairs decide, not them.
        let rows = [
            row("a", &[1000.0, 1300.0, 800.0]),
            row("b", &[700.0, 910.0, 560.0]),
        ];
        assert!(half_width(&rows[0]).unwrap() > 0.05);
        let q = p(Some(0.05));
        for state in [State::Faster, State::Equivalent] {
            assert_eq!(
                decide(&rows, 3, &q, Some(&standing(state)), false, true),
                Some(StopReason::Decided)
            );
        }
        let open = standing(State::Undecided);
        assert_eq!(decide(&rows, 3, &q, Some(&open), false, true), None);
        assert_eq!(
            decide(&rows, 3, &q, Some(&open), false, false),
            Some(StopReason::Time)
        );
        assert_eq!(
            decide(&rows, 6, &q, Some(&open), false, true),
            Some(StopReason::MaxRounds)
        );
        // Precise rows do not stop an open race.
        let tight = [
            row("a", &[1000.0, 1001.0, 999.0]),
            row("b", &[998.0, 999.0, 1000.0]),
        ];
        assert_eq!(decide(&tight, 3, &q, Some(&open), false, true), None);
        // Nothing left to race: decided as far as it goes.
        assert_eq!(
            decide(&rows, 3, &q, Some(&open), true, true),
            Some(StopReason::Decided)
        );
    }
}
