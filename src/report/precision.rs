//! How precise a scenario's figures are, in words: each row's interval against the precision
//! asked for and, when it is wider, why the rounds stopped; the adjacent pairs of the
//! ranking; and the rounds, warm-ups, repeated trials and the machine's speed drift under
//! the table. Every figure here is one the run measured (`results.rs`).
use crate::results::StopReason;
use crate::results::{ScenarioResult, TargetResult};

/// Half-width of a row's 95% interval relative to its center, %: the measure the stopping
/// rule uses (`summary::rounds::half_width`).
pub fn half_width_pct(t: &TargetResult) -> Option<f64> {
    t.summary
        .as_ref()?
        .rps
        .relative_half_width()
        .map(|h| h * 100.0)
}

pub use crate::units::pct;

/// The precision cell of a row: "±1.4%", "±1.4% (within ±3%)", "±7.2% (wanted ±5%:
/// budget: the run's time)", or for an interval widened to its count's step "±50.0% (the
/// count's step; wanted ±5%)".
pub fn cell(s: &ScenarioResult, t: &TargetResult) -> String {
    let Some(hw) = half_width_pct(t) else {
        return match t.summary.as_ref().map(|x| x.rps.n) {
            Some(1) => "1 trial: none".into(),
            _ => "-".into(),
        };
    };
    // An interval widened to the count's step says so: no more rounds narrow it.
    let step = t.summary.as_ref().is_some_and(|x| x.rps_widened);
    let Some(r) = s.rounds.as_ref() else {
        return if step {
            format!("±{hw:.1}% (the count's step)")
        } else {
            format!("±{hw:.1}%")
        };
    };
    match r.target_pct {
        None if step => format!("±{hw:.1}% (the count's step)"),
        None => format!("±{hw:.1}%"),
        Some(p) if step => {
            let wanted = if hw <= p { "within" } else { "wanted" };
            format!("±{hw:.1}% (the count's step; {wanted} ±{}%)", pct(p))
        }
        Some(p) if hw <= p => format!("±{hw:.1}% (within ±{}%)", pct(p)),
        Some(p) => {
            let why = match r.stop {
                // The ranking was decided: more rounds would not change the verdict.
                StopReason::Decided => "not needed: the ranking is decided".to_string(),
                StopReason::Precise => "rounds stopped for the other rows".to_string(),
                other => other.label().to_string(),
            };
            format!("±{hw:.1}% (wanted ±{}%: {why})", pct(p))
        }
    }
}

/// "rounds: 5 of 3..6, stopped: every interval within the target; machine speed (canary)
/// varied 3.1% between rounds".
pub fn rounds_note(s: &ScenarioResult) -> Option<String> {
    let r = s.rounds.as_ref()?;
    let mut line = format!(
        "rounds: {} (at least {}, at most {}{}); stopped: {}",
        r.run,
        r.min,
        r.max,
        r.target_pct
            .map(|p| format!(
                ", until every interval is within ±{}% or the ranking is decided",
                pct(p)
            ))
            .unwrap_or_default(),
        r.stop.label()
    );
    if let Some(sl) = &r.slices {
        line.push_str(&format!(
            "; targets measured together in {}, alternating in {} ms slices (balanced blocks; the first {} ms of each not counted; CPU % over each target's own slices)",
            if sl.rounds == r.run {
                "every round".to_string()
            } else {
                format!("{} of {} rounds", sl.rounds, r.run)
            },
            crate::units::pct(sl.slice_ms),
            crate::units::pct(sl.guard_ms)
        ));
    }
    if let Some(race) = &r.race {
        line.push_str(&race_line(s, race));
    }
    let speeds: Vec<f64> = (1..=r.run).filter_map(|k| r.canary_ms(k)).collect();
    if speeds.len() >= 2 {
        let (lo, hi) = speeds
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
        line.push_str(&format!(
            "; machine speed by the canary varied {:.1}% between rounds ({lo:.2}–{hi:.2} ms)",
            (hi / lo - 1.0) * 100.0
        ));
    }
    Some(line)
}

/// How a race judged a pair: "on 14 blocks, 13 df, after round 7" (or "so far" for one
/// still open), with the round term the unit was chosen by.
pub fn judged(x: &crate::results::RacePair) -> String {
    let when = match x.decided_after {
        Some(k) => format!("decided after round {k}"),
        None => format!("open after {} rounds", x.rounds),
    };
    format!(
        "{when}, on {} {} ({:.0} df) at a {}% error rate",
        x.units,
        x.unit,
        x.df,
        pct(x.alpha * 100.0)
    )
}

/// "; targets per round 5, 5, 4, 2; 12 fresh processes started (43 s of 266 s), windows of
/// 2–6 blocks; the processes' luck (round term beyond the blocks' noise): 0.8–3.1%".
fn race_line(s: &ScenarioResult, race: &crate::results::RaceInfo) -> String {
    let counts: Vec<String> = race.measured.iter().map(|m| m.len().to_string()).collect();
    let total: f64 = race.round_s.iter().sum();
    let mut line = format!("; targets measured per round {}", counts.join(", "));
    if race.restarts > 0 {
        line.push_str(&format!(
            "; {} fresh processes started for later rounds ({:.0} s of the rounds' {:.0} s)",
            race.restarts, race.restart_s, total
        ));
    }
    if let (Some(lo), Some(hi)) = (race.blocks.iter().min(), race.blocks.iter().max()) {
        line.push_str(&if lo == hi {
            format!(", windows of {}", plural(*lo as usize, "block"))
        } else {
            format!(", windows of {lo}–{hi} blocks")
        });
    }
    let luck: Vec<f64> = s
        .ranking
        .iter()
        .flat_map(|r| r.pairs.iter())
        .filter_map(|p| p.race.as_ref()?.levels.t2)
        .map(|t2| t2.max(0.0).sqrt() * 100.0)
        .collect();
    if !luck.is_empty() {
        let (lo, hi) = luck
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
        line.push_str(&format!(
            "; between rounds (fresh processes), the pairs' ratios moved by {lo:.1}–{hi:.1}% beyond their blocks' noise"
        ));
    }
    line
}

/// The adjacent pairs of the ranking: "graphql-jit > mercurius +21.4% [+18.0, +24.9]",
/// "≈" for equivalent, "?" for undecided; a race's pairs say how each was judged.
pub fn pairs_note(s: &ScenarioResult) -> Option<String> {
    let r = s.ranking.as_ref()?;
    let raced = r.pairs.first().is_some_and(|p| p.race.is_some());
    if !raced && r.pairs.len() < 2 {
        return None;
    }
    let parts: Vec<String> = r.pairs.iter().map(race_pair).collect();
    let how = if raced {
        "each adjacent pair on the rounds both ran"
    } else {
        "each pair paired by round"
    };
    Some(format!(
        "ranking, {how} (> faster, ≈ equivalent, ? undecided): {}",
        parts.join("; ")
    ))
}

/// "graphql-jit > mercurius +22.1% [+2.0, +46.0] (decided after round 7, on 14 blocks...)";
/// without a race, the pair and its interval alone.
fn race_pair(p: &crate::results::RankPair) -> String {
    let sign = match p.state.as_str() {
        "faster" => ">",
        "equivalent" => "≈",
        _ => "?",
    };
    let m = p.margin.as_ref().map_or(String::new(), |m| {
        format!(
            " {:+.1}% [{}, {}]",
            m.pct,
            signed(m.ci_low_pct),
            signed(m.ci_high_pct)
        )
    });
    let how = p
        .race
        .as_ref()
        .map_or(String::new(), |x| format!(" ({})", judged(x)));
    format!("{} {sign} {}{m}{how}", p.faster, p.slower)
}

/// "+2.0", "-inf" for an interval no look has bounded yet.
fn signed(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1}")
    } else if x > 0.0 {
        "+∞".into()
    } else {
        "-∞".into()
    }
}

/// Trials measured again, and warm-ups that never settled, per target.
pub fn trial_notes(t: &TargetResult) -> Vec<String> {
    let mut out = Vec::new();
    for x in t.trials.iter().filter(|x| x.excluded.is_some()) {
        out.push(format!(
            "{} (trial {}): not counted: {}",
            t.name,
            x.trial,
            x.excluded.as_deref().unwrap_or_default()
        ));
    }
    let warm: Vec<f64> = t
        .trials
        .iter()
        .filter_map(|x| x.warmup.as_ref().map(|w| w.used_s))
        .collect();
    if !warm.is_empty() {
        let unsteady = t
            .trials
            .iter()
            .filter(|x| x.warmup.as_ref().is_some_and(|w| !w.steady))
            .count();
        let (lo, hi) = warm
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), x| (a.min(*x), b.max(*x)));
        if unsteady > 0 {
            out.push(format!(
                "{}: warm-up {lo:.1}–{hi:.1} s; {unsteady} of {} never steady within the most allowed (caveat `unsteady`)",
                t.name,
                warm.len()
            ));
        }
    }
    out
}

/// A target that names its own warm-up (`[start] warmup`): how long its fresh processes
/// were loaded alone before they counted (the warm-ups recorded as `own`).
pub fn own_warmup_note(t: &TargetResult) -> Option<String> {
    let own: Vec<&crate::results::WarmupInfo> = t
        .trials
        .iter()
        .filter_map(|x| x.warmup.as_ref())
        .filter(|w| w.own)
        .collect();
    let least = own.first()?.min_s;
    let (lo, hi) = own.iter().fold((f64::INFINITY, 0.0f64), |(a, b), w| {
        (a.min(w.used_s), b.max(w.used_s))
    });
    Some(format!(
        "{}: its own warm-up (its target.toml's, at least {least:.0} s until steady) ran alone on {} fresh process{}: {lo:.1}–{hi:.1} s",
        t.name,
        own.len(),
        if own.len() == 1 { "" } else { "es" }
    ))
}

/// Trials whose sentinels could not be read: interference could not be detected there.
pub fn sentinel_note(s: &ScenarioResult) -> Option<String> {
    let trials: Vec<_> = s.targets.iter().flat_map(|t| &t.trials).collect();
    let unmeasured = trials
        .iter()
        .filter(|x| x.noise.as_ref().is_none_or(|n| n.foreign_cpu_pct.is_none()))
        .count();
    // Only throughput scenarios watch the sentinels.
    let load = s.kind.measures_throughput();
    (unmeasured > 0 && load && s.rounds.is_some()).then(|| {
        format!(
            "noise sentinels unmeasured in {unmeasured} of {} trials (/proc/stat unreadable): other processes' CPU use could not be detected there",
            trials.len()
        )
    })
}

/// The run's precision in one line, counted over its throughput scenarios (those whose
/// rounds aim at a precision): rows whose interval is within it (not an efficiency
/// scenario's, whose req/s is the rate sent), scenarios that named a fastest (or cheapest)
/// target, and adjacent pairs of the rankings decided (faster or equivalent). None when the
/// run has no such scenario.
pub fn run_line(r: &crate::results::RunResults) -> Option<String> {
    let (mut rows, mut within, mut scenarios, mut named, mut pairs, mut decided) =
        (0, 0, 0, 0, 0, 0);
    let mut wanted = Vec::new();
    for s in &r.scenarios {
        let Some(p) = s.rounds.as_ref().and_then(|x| x.target_pct) else {
            continue;
        };
        if !super::has_main_table(s) {
            continue;
        }
        if !wanted.contains(&pct(p)) {
            wanted.push(pct(p));
        }
        scenarios += 1;
        // An efficiency scenario's req/s is the rate it sent: its rows are ranked by their
        // cost, and only its ranking counts here.
        let rows_count = !s.by_kind.has(&crate::summary::efficiency::RATE);
        for t in s.targets.iter().filter(|_| rows_count) {
            if let Some(hw) = half_width_pct(t) {
                rows += 1;
                within += usize::from(hw <= p);
            }
        }
        if let Some(k) = &s.ranking {
            named += usize::from(k.significant);
            pairs += k.pairs.len();
            decided += k.pairs.iter().filter(|x| x.state != "undecided").count();
        }
    }
    (scenarios > 0).then(|| {
        // A run of efficiency scenarios alone has no rows to count.
        let rows = if rows > 0 {
            format!(
                "{within} of {rows} throughput rows within ±{}%; ",
                wanted.join("% or ±")
            )
        } else {
            String::new()
        };
        format!(
            "precision: {rows}a fastest target named in {named} of {scenarios} throughput scenarios; {decided} of {pairs} adjacent pairs decided (faster or equivalent)"
        )
    })
}

/// The run's time budget in one line: how long it was and what the run used, and what it
/// cut (rounds stopped by it, sweeps it ended). None for runs without one.
pub fn budget_line(r: &crate::results::RunResults) -> Option<String> {
    let b = r.budget?;
    let rounds: Vec<String> = r
        .scenarios
        .iter()
        .filter(|s| {
            s.rounds
                .as_ref()
                .is_some_and(|x| x.stop == StopReason::Time)
        })
        .map(|s| s.name.clone())
        .collect();
    let sweeps: Vec<String> = r
        .scenarios
        .iter()
        .flat_map(|s| {
            s.targets
                .iter()
                .filter(|t| {
                    t.trials.iter().any(|x| {
                        x.saturation
                            .iter()
                            .any(|f| f.kind == crate::results::FlagKind::Budget)
                    })
                })
                .map(move |t| format!("{}/{}", s.name, t.name))
        })
        .collect();
    let mut cut = Vec::new();
    if !rounds.is_empty() {
        cut.push(format!(
            "rounds added for precision in {} ({})",
            plural(rounds.len(), "scenario"),
            rounds.join(", ")
        ));
    }
    if !sweeps.is_empty() {
        cut.push(format!(
            "{} before its limit was found to its resolution ({}; caveat `budget`)",
            plural(sweeps.len(), "sweep"),
            sweeps.join(", ")
        ));
    }
    let mins = |s: f64| format!("{}m {:02}s", (s / 60.0).floor(), (s % 60.0).floor());
    Some(format!(
        "time budget: {} after the installs, {} used; {}",
        mins(b.max_s),
        mins(b.used_s),
        if cut.is_empty() {
            "it cut nothing".to_string()
        } else {
            format!("it cut {}", cut.join("; "))
        }
    ))
}

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
