//! How a closed-model scenario's req/s were taken, in words under its table: the rows whose
//! figure is the requests' own timing (their count was coarse), the rows whose interval is
//! their count's step rather than their trials' spread, and every row's req/s against
//! Little's law (connections × pipelining / (mean latency + think time)). Every figure here
//! is one the run measured (`summary::checks`).
use crate::catalog::scenario::Model;
use crate::results::{ScenarioResult, TargetResult};
use crate::units::{fmt_rps, pct};
use crate::view::cells::not_installed;

/// The lines for `s`: none for an open-model scenario or one without rows.
pub fn notes(s: &ScenarioResult) -> Vec<String> {
    if s.load.model != Model::Closed || !s.kind.measures_throughput() {
        return Vec::new();
    }
    let rows: Vec<&TargetResult> = s
        .targets
        .iter()
        .filter(|t| !not_installed(t) && t.summary.as_ref().is_some_and(|x| x.rps.n > 0))
        .collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    out.extend(timed_line(&rows));
    out.extend(widened_line(&rows));
    out.extend(little_line(s, &rows));
    out
}

/// Rows whose counted trials' req/s came from the requests' timing.
fn timed_line(rows: &[&TargetResult]) -> Option<String> {
    let timed: Vec<&str> = rows
        .iter()
        .filter(|t| {
            crate::summary::used_trials(t)
                .iter()
                .any(|x| x.load.rps_source.as_deref() == Some("timing"))
        })
        .map(|t| t.name.as_str())
        .collect();
    (!timed.is_empty()).then(|| {
        format!(
            "req/s from the requests' own timing, a request cut by the window's edge counted in part: {} (fewer than {} requests per connection in a window, so a count would move in steps of more than {}%)",
            timed.join(", "),
            (1.0 / crate::measure::throughput::COARSE).round(),
            pct(crate::measure::throughput::COARSE * 100.0)
        )
    })
}

/// Rows whose interval was widened to their trials' step.
fn widened_line(rows: &[&TargetResult]) -> Option<String> {
    let widened: Vec<String> = rows
        .iter()
        .filter_map(|t| {
            let s = t.summary.as_ref().filter(|s| s.rps_widened)?;
            Some(format!(
                "{} ±{:.1}%",
                t.name,
                s.rps_resolution.unwrap_or_default() * 100.0
            ))
        })
        .collect();
    (!widened.is_empty()).then(|| {
        format!(
            "interval widened to the count's step (one request per connection at each edge of the counted time; the trials agreed more closely than that): {}",
            widened.join(", ")
        )
    })
}

/// Every checked row against Little's law: all within, or those that are not.
fn little_line(s: &ScenarioResult, rows: &[&TargetResult]) -> Option<String> {
    const LAW: &str = "Little's law (connections × pipelining / (mean latency + think time))";
    if !s.load.stages.is_empty() {
        return Some(format!(
            "{LAW}: not checked, the connections ramp (their number is not one figure)"
        ));
    }
    let checked: Vec<(&str, &crate::results::LittleCheck)> = rows
        .iter()
        .filter_map(|t| Some((t.name.as_str(), t.summary.as_ref()?.little.as_ref()?)))
        .collect();
    let far = checked
        .iter()
        .max_by(|a, b| a.1.diff_pct.abs().total_cmp(&b.1.diff_pct.abs()))?;
    let off: Vec<String> = checked
        .iter()
        .filter(|(_, l)| !l.agrees)
        .map(|(name, l)| {
            format!(
                "{name} {} req/s, the law {} ({:+.1}%, beyond ±{:.1}%)",
                fmt_rps(l.measured_rps),
                fmt_rps(l.expected_rps),
                l.diff_pct,
                l.allowed_pct
            )
        })
        .collect();
    if off.is_empty() {
        return Some(format!(
            "{LAW}: every row within its interval and {}% (farthest {}, {:+.1}%)",
            pct(crate::summary::little::TOLERANCE * 100.0),
            far.0,
            far.1.diff_pct
        ));
    }
    Some(format!(
        "{LAW} disagrees beyond the row's interval and {}% (caveat `littles_law`): {}",
        pct(crate::summary::little::TOLERANCE * 100.0),
        off.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TrialResult;
    use gqlbench_engine::LoadResult;

    /// A closed-model row of 20 connections: its trials' req/s, each counted or timed, and
    /// its merged mean latency; its summary made and checked as a run does.
    fn row(name: &str, rps: &[f64], timed: bool, mean_ms: f64) -> TargetResult {
        let mut t = TargetResult::new(name.into(), Default::default());
        for (i, x) in rps.iter().enumerate() {
            let mut load = LoadResult {
                model: "closed".into(),
                requests: *x as u64,
                elapsed_s: 1.0,
                throughput_rps: *x,
                ..Default::default()
            };
            load.connections.planned = 20;
            load.connections.connections_used = 20;
            if timed {
                load.rps_source = Some("timing".into());
                load.rps_resolution = Some(0.0);
            }
            t.trials
                .push(TrialResult::of_load(i as u32 + 1, String::new(), load));
        }
        let mut s = crate::summary::summarize(&t).expect("trials");
        s.latency.mean_us = mean_ms * 1000.0;
        t.summary = Some(s);
        t
    }

    fn scenario(targets: Vec<TargetResult>) -> ScenarioResult {
        let mut s = ScenarioResult::default();
        s.load.connections = 20;
        s.load.pipelining = 1;
        s.targets = targets;
        for t in &mut s.targets {
            crate::summary::checks::apply(&s.load, t);
        }
        s
    }

    #[test]
    fn timed_widened_and_law_lines_name_their_rows() {
        let s = scenario(vec![
            row("timed", &[33.5, 33.9, 33.6], true, 593.0),
            row("counted", &[40.0, 40.0, 40.0], false, 593.0),
        ]);
        let n = notes(&s);
        assert_eq!(n.len(), 3, "{n:?}");
        assert!(n[0].starts_with("req/s from the requests' own timing") && n[0].ends_with("timed (fewer than 100 requests per connection in a window, so a count would move in steps of more than 1%)"), "{}", n[0]);
        assert_eq!(
            n[1],
            "interval widened to the count's step (one request per connection at each edge of the counted time; the trials agreed more closely than that): counted ±50.0%"
        );
        assert!(
            n[2].starts_with("Little's law (connections × pipelining / (mean latency + think time)): every row within its interval and 3% (farthest counted, +18.6%)"),
            "{}",
            n[2]
        );
        // The precision cell says why the interval is that wide.
        let counted = &s.targets[1];
        assert_eq!(
            crate::report::precision::cell(&s, counted),
            "±50.0% (the count's step)"
        );
    }

    #[test]
    fn rows_far_from_the_law_are_named_with_both_figures_and_ramps_are_not_checked() {
        // 20 connections at 100 ms: the law says 200 a second.
        let mut s = scenario(vec![row("idle", &[120.0, 121.0, 119.0], false, 100.0)]);
        let n = notes(&s);
        let law = n.last().expect("a line");
        assert!(
            law.contains("disagrees beyond the row's interval and 3% (caveat `littles_law`): idle 120 req/s, the law 200 (-40.0%, beyond ±19.7%)"),
            "{law}"
        );
        assert_eq!(
            crate::view::cells::validity(&s.targets[0]),
            "valid (3/3 trials), littles_law"
        );
        s.load.stages = vec![(4.0, 100.0)];
        assert!(notes(&s)
            .last()
            .is_some_and(|l| l
                .ends_with("not checked, the connections ramp (their number is not one figure)")));
        s.load.model = Model::Open;
        assert!(notes(&s).is_empty());
    }
}
