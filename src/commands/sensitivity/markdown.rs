//! The sensitivity summary as Markdown (also what the terminal shows).
use super::{Sensitivity, DETECTED};

/// The summary as a Markdown table (also what the terminal shows).
pub fn markdown(s: &Sensitivity) -> String {
    let (what, how) = if s.mode == "ab" {
        (
            format!("gqlbench ab --allowance {}%", s.fail_if_slower_pct),
            "one `gqlbench ab` per comparison (both sides in one run, over process pairs)",
        )
    } else {
        (
            format!("compare --fail-if-slower {}%", s.fail_if_slower_pct),
            "separate runs",
        )
    };
    let ab = s.mode == "ab";
    let (time_head, time_rule) = if ab {
        (" median time to decide |", "---|")
    } else {
        ("", "")
    };
    let mut m = format!(
        "# Sensitivity of `{what}`\n\nProfile `{}`, {} repetitions of {how}; reference {} (`simple`) with {}={} rounds: {:.0} µs per request, {:.0}% of it the work (probes: {:.0} req/s without work, {:.0} with).\n\n| comparison | work rounds | flagged | median change of req/s |{time_head} changes (each repetition) |\n|---|---|---|---|{time_rule}---|\n",
        s.profile,
        s.repetitions,
        s.target,
        s.work_var,
        s.work,
        s.reference_us,
        s.work_share * 100.0,
        s.probe_rps_no_work,
        s.probe_rps_work
    );
    for c in &s.cases {
        let each: Vec<String> = c
            .reps
            .iter()
            .map(|r| match r.change_pct {
                Some(p) => format!("{p:+.1}{}", if r.flagged { "!" } else { "" }),
                None => "-".into(),
            })
            .collect();
        let time = if ab {
            format!(
                " {} |",
                c.median_seconds.map_or("-".into(), |t| format!("{t:.0} s"))
            )
        } else {
            String::new()
        };
        m.push_str(&format!(
            "| {} | {} | {} of {} | {} |{time} {} |\n",
            c.name,
            c.work,
            c.flagged,
            c.compared,
            c.median_change_pct
                .map_or("-".into(), |p| format!("{p:+.1}%")),
            each.join(" ")
        ));
    }
    if ab {
        m.push_str("\nVerdicts:");
        for c in &s.cases {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for r in &c.reps {
                match counts.iter_mut().find(|(v, _)| *v == r.verdict) {
                    Some((_, n)) => *n += 1,
                    None => counts.push((r.verdict.clone(), 1)),
                }
            }
            let list: Vec<String> = counts.iter().map(|(v, n)| format!("{n} {v}")).collect();
            m.push_str(&format!(" {}: {}.", c.name, list.join("; ")));
        }
        m.push('\n');
    }
    m.push_str(&format!(
        "\nFalse alarms (A/A flagged): {}. Smallest slowdown flagged in at least {:.0}% of repetitions: {}. `!` marks a flagged repetition.\n",
        s.false_alarm_rate
            .map_or("not measured".into(), |r| format!("{:.0}%", r * 100.0)),
        DETECTED * 100.0,
        s.smallest_detected_pct
            .map_or("none of those tested".into(), |p| format!("+{p}% cost per request"))
    ));
    if !s.failed_runs.is_empty() {
        m.push_str(&format!(
            "\nRuns that did not exit 0 (their rows are not compared when invalid): {}\n",
            s.failed_runs
                .iter()
                .map(|(d, c)| format!("{d} (exit {c})"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if s.interrupted {
        m.push_str("\nInterrupted: the table holds the repetitions finished before.\n");
    }
    m
}
