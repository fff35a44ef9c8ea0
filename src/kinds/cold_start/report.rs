//! The cold-start scenario's report from a saved result: starts that worked, ready and
//! first-request times, memory at ready (table), and their charts.
use super::*;

/// Cold starts: spawn to ready, first request, memory at start.
pub(super) fn table(s: &ScenarioResult) -> Option<Table> {
    if s.kind != crate::results::ScenarioKind::ColdStart {
        return None;
    }
    let rows = s
        .targets
        .iter()
        .filter(|t| !crate::view::cells::not_installed(t))
        .map(|t| match &t.by_kind.get(&SUMMARY) {
            None => vec![
                t.name.clone(),
                format!("0/{}", t.cold_starts.len()),
                crate::view::cells::dash(),
                crate::view::cells::dash(),
                crate::view::cells::dash(),
                crate::view::cells::dash(),
                cold_problem(t),
            ],
            Some(c) => vec![
                t.name.clone(),
                format!("{}/{}", c.ok, c.starts),
                crate::view::cells::est_ms(&c.ready_s),
                crate::view::cells::est_ms(&c.first_request_s),
                crate::view::cells::est_ms(&c.second_request_s),
                // Starts that worked but whose memory could not be read: unmeasured.
                crate::units::fmt_bytes_or_unmeasured(
                    (c.rss_at_ready_bytes.n > 0).then_some(c.rss_at_ready_bytes.median as u64),
                ),
                cold_problem(t),
            ],
        })
        .collect();
    Some(Table {
        title: "cold start: median [min – max] over fresh starts (ms)".into(),
        headers: [
            "target",
            "starts ok",
            "spawn → ready ms",
            "first request ms",
            "second request ms",
            "RSS at ready",
            "problems",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

pub(super) fn cold_problem(t: &TargetResult) -> String {
    let mut seen = Vec::new();
    for c in &t.cold_starts {
        if let Some(p) = &c.problem {
            let line = format!("{}: {p}", c.outcome);
            if !seen.contains(&line) {
                seen.push(line);
            }
        }
    }
    // When no start worked, the target's problem repeats a start's; it is shown only when
    // the starts say nothing (e.g. not installed).
    if seen.is_empty() {
        if let Some(p) = &t.problem {
            seen.push(p.clone());
        }
    }
    if seen.is_empty() {
        "-".into()
    } else {
        seen.join("; ")
    }
}

/// Cold starts in report.html: spawn → ready and the first request per target, each start
/// a ring, the median with the spread of the starts that worked.
pub(super) fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    use crate::view::intervals::{Intervals, Row};
    use crate::view::{color_of, legend, Figure};
    if s.kind != ScenarioKind::ColdStart {
        return Vec::new();
    }
    let chart = |of: fn(&ColdStartSummary) -> &crate::results::Estimate,
                 each: fn(&ColdStartSample) -> Option<f64>| {
        let rows = s
            .targets
            .iter()
            .filter_map(|t| {
                let summary = t.by_kind.get(&SUMMARY)?;
                let e = of(&summary);
                (e.n > 0).then(|| Row {
                    label: t.name.clone(),
                    color: color_of(s, t),
                    center: e.median * 1000.0,
                    interval: Some((e.min * 1000.0, e.max * 1000.0)),
                    samples: t
                        .cold_starts
                        .iter()
                        .filter(|c| c.outcome.is_ok())
                        .filter_map(|c| each(c).map(|v| v * 1000.0))
                        .collect(),
                })
            })
            .collect();
        Intervals {
            x_desc: "milliseconds".into(),
            from_zero: true,
            zero_line: false,
            rows,
        }
    };
    let legend = legend(s, |t| t.by_kind.has(&SUMMARY));
    vec![
        Figure::of(
            "cold-start-ready",
            "Cold start: spawn to ready",
            "For each fresh start that worked (cold_starts[] with outcome ok): the time from spawning the target to its first correct { __typename } answer, polled every 2 ms. The dot is the median, the whisker runs from the fastest to the slowest start (as the table's median [min – max]), the rings are the starts. Failed starts are counted in the table, never drawn as times.",
            legend.clone(),
            chart(|c| &c.ready_s, |c| c.ready_s),
        ),
        Figure::of(
            "cold-start-first-request",
            "Cold start: the first request",
            "The latency of the first real request after ready (the scenario's first operation, its answer checked), per start that worked: cold_starts[].first_request_s; the dot is the median, the whisker the fastest to the slowest start, the rings the starts. The table beside it gives the second request, for contrast.",
            legend,
            chart(|c| &c.first_request_s, |c| c.first_request_s),
        ),
    ]
}

/// The report's load line: the starts, not a load.
pub fn load_line(s: &ScenarioResult) -> Option<String> {
    s.kind.measures_starts().then(|| {
        format!(
            "{} fresh starts per target, interleaved; no load",
            s.targets
                .iter()
                .map(|t| t.cold_starts.len())
                .max()
                .unwrap_or(0)
        )
    })
}
