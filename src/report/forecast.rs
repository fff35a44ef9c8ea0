//! What each adjacent pair a race left open would take to decide (`summary::race`'s
//! forecast), in words, with the command that races the two alone. Display only: the
//! sequential rule decides.
use crate::results::ScenarioResult;

/// What each pair left open would take to decide, at the noise the race saw (display only:
/// the sequential rule decides), and the command that runs that much of it: "to decide
/// graphql-yoga ? apollo-server: about 39 more rounds of the two (about 7 min at 11 s a
/// round) toward faster: gqlbench run servers --scenarios simple --targets
/// graphql-yoga,apollo-server --max-time 9m".
pub fn forecast_notes(s: &ScenarioResult) -> Vec<String> {
    let Some(r) = s.ranking.as_ref() else {
        return Vec::new();
    };
    let per_round = pair_round_s(s);
    r.pairs
        .iter()
        .filter(|p| p.state == "undecided")
        .filter_map(|p| {
            let x = p.race.as_ref()?;
            Some(match &x.forecast {
                Some(f) => {
                    let secs = per_round.map(|r| r * f.more_rounds as f64);
                    let time = secs.map_or(String::new(), |t| {
                        format!(
                            " (about {} at {:.0} s a round)",
                            crate::units::fmt_minutes(t),
                            per_round.unwrap_or_default()
                        )
                    });
                    // Its own run: the rounds it has had and the ones forecast, with room.
                    let whole = per_round.map(|r| r * (x.rounds as f64 + f.more_rounds as f64) * 1.3 + 30.0);
                    format!(
                        "to decide {} ? {}: about {} more rounds of the two{time}, toward {}: {}",
                        p.faster,
                        p.slower,
                        f.more_rounds,
                        f.toward,
                        command(s, &p.faster, &p.slower, whole)
                    )
                }
                None => format!(
                    "to decide {} ? {}: more than {} rounds at the noise seen (its difference sits where neither verdict is near)",
                    p.faster,
                    p.slower,
                    crate::summary::race::FORECAST_HORIZON
                ),
            })
        })
        .collect()
}

/// Wall seconds a round of two racing targets takes, from the race's own rounds (each
/// round's time per target measured, for two).
fn pair_round_s(s: &ScenarioResult) -> Option<f64> {
    let race = s.rounds.as_ref()?.race.as_ref()?;
    let per: Vec<f64> = race
        .round_s
        .iter()
        .zip(&race.measured)
        .filter(|(_, m)| !m.is_empty())
        .skip(1)
        .map(|(t, m)| t / m.len() as f64)
        .collect();
    (!per.is_empty()).then(|| 2.0 * crate::stats::median(&per))
}

/// The command that races the two targets of a scenario alone, with a budget of `secs`.
fn command(s: &ScenarioResult, a: &str, b: &str, secs: Option<f64>) -> String {
    let budget = secs.map_or(String::new(), |t| {
        format!(" --max-time {}m", (t / 60.0).ceil().max(1.0))
    });
    format!(
        "gqlbench run {} --scenarios {} --targets {a},{b}{budget}",
        s.suite, s.name
    )
}
