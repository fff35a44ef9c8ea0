//! Comparing two runs row by row (scenario × target): the change of median req/s and p99
//! with a bootstrap interval, whether it is significant, and the CI gate.
use serde::Serialize;

use crate::results::RunResults;
use crate::stats::{relative_change, Change};

#[derive(Serialize, Debug, Clone)]
pub struct CompareRow {
    pub scenario: String,
    pub target: String,
    pub baseline_rps: Option<f64>,
    pub candidate_rps: Option<f64>,
    pub rps_change: Option<Change>,
    pub baseline_p99_us: Option<f64>,
    pub candidate_p99_us: Option<f64>,
    pub p99_change: Option<Change>,
    /// Both sides valid (no failures, no crash, not saturated).
    pub comparable: bool,
    pub note: Option<String>,
    /// This row trips --fail-if-slower.
    pub regression: bool,
}

#[derive(Serialize, Debug, Clone)]
pub struct Comparison {
    pub baseline: String,
    pub candidate: String,
    pub fail_if_slower_pct: Option<f64>,
    pub rows: Vec<CompareRow>,
    pub regressions: usize,
}

pub fn compare(
    a: &RunResults,
    b: &RunResults,
    a_name: &str,
    b_name: &str,
    fail_pct: Option<f64>,
) -> Comparison {
    let mut rows = Vec::new();
    for sb in &b.scenarios {
        let sa = a
            .scenarios
            .iter()
            .find(|s| s.suite == sb.suite && s.name == sb.name);
        for tb in &sb.targets {
            let ta = sa.and_then(|s| s.targets.iter().find(|t| t.name == tb.name));
            let key_b = tb.summary.as_ref();
            let key_a = ta.and_then(|t| t.summary.as_ref());
            let comparable =
                ta.map(crate::summary::rankable).unwrap_or(false) && crate::summary::rankable(tb);
            let rps_change = match (key_a, key_b) {
                (Some(x), Some(y)) => relative_change(&x.rps.samples, &y.rps.samples),
                _ => None,
            };
            let p99_change = match (key_a, key_b) {
                (Some(x), Some(y)) => relative_change(&x.p99_us.samples, &y.p99_us.samples),
                _ => None,
            };
            let note = if ta.is_none() {
                Some("only in candidate".into())
            } else if !comparable {
                Some(format!(
                    "not comparable: baseline {}, candidate {}",
                    ta.map(crate::report::validity).unwrap_or_default(),
                    crate::report::validity(tb)
                ))
            } else {
                None
            };
            let regression = match fail_pct {
                None => false,
                Some(limit) => {
                    let slower = rps_change
                        .map(|c| c.significant && c.pct < -limit)
                        .unwrap_or(false);
                    // A candidate row that became invalid is a regression for a CI gate.
                    let broke = ta.map(crate::summary::rankable).unwrap_or(false)
                        && !crate::summary::rankable(tb);
                    (comparable && slower) || broke
                }
            };
            rows.push(CompareRow {
                scenario: format!("{}/{}", sb.suite, sb.name),
                target: tb.name.clone(),
                baseline_rps: key_a.map(|s| s.rps.median),
                candidate_rps: key_b.map(|s| s.rps.median),
                rps_change,
                baseline_p99_us: key_a.map(|s| s.p99_us.median),
                candidate_p99_us: key_b.map(|s| s.p99_us.median),
                p99_change,
                comparable,
                note,
                regression,
            });
        }
    }
    for sa in &a.scenarios {
        for ta in &sa.targets {
            let present = b.scenarios.iter().any(|s| {
                s.suite == sa.suite
                    && s.name == sa.name
                    && s.targets.iter().any(|t| t.name == ta.name)
            });
            if !present {
                rows.push(CompareRow {
                    scenario: format!("{}/{}", sa.suite, sa.name),
                    target: ta.name.clone(),
                    baseline_rps: ta.summary.as_ref().map(|s| s.rps.median),
                    candidate_rps: None,
                    rps_change: None,
                    baseline_p99_us: ta.summary.as_ref().map(|s| s.p99_us.median),
                    candidate_p99_us: None,
                    p99_change: None,
                    comparable: false,
                    note: Some("only in baseline".into()),
                    regression: false,
                });
            }
        }
    }
    let regressions = rows.iter().filter(|r| r.regression).count();
    Comparison {
        baseline: a_name.into(),
        candidate: b_name.into(),
        fail_if_slower_pct: fail_pct,
        rows,
        regressions,
    }
}

pub fn render(c: &Comparison) -> String {
    use comfy_table::presets::UTF8_FULL_CONDENSED;
    let mut t = comfy_table::Table::new();
    t.load_preset(UTF8_FULL_CONDENSED).set_header([
        "scenario",
        "target",
        "req/s baseline → candidate",
        "change [95% CI]",
        "p99 ms baseline → candidate",
        "p99 change",
        "verdict",
    ]);
    let fmt_change = |c: &Option<Change>| match c {
        Some(c) => format!(
            "{:+.1}% [{:+.1}, {:+.1}]",
            c.pct, c.ci_low_pct, c.ci_high_pct
        ),
        None => "-".into(),
    };
    let num = |x: Option<f64>, f: fn(f64) -> String| x.map(f).unwrap_or_else(|| "-".into());
    for r in &c.rows {
        let verdict = if r.regression {
            "REGRESSION".to_string()
        } else if let Some(n) = &r.note {
            n.clone()
        } else {
            match r.rps_change {
                Some(ch) if ch.significant && ch.pct > 0.0 => "faster (significant)".into(),
                Some(ch) if ch.significant => "slower (significant)".into(),
                Some(_) => "within noise".into(),
                None => "-".into(),
            }
        };
        t.add_row([
            r.scenario.clone(),
            r.target.clone(),
            format!(
                "{} → {}",
                num(r.baseline_rps, crate::report::fmt_rps),
                num(r.candidate_rps, crate::report::fmt_rps)
            ),
            fmt_change(&r.rps_change),
            format!(
                "{} → {}",
                num(r.baseline_p99_us, crate::report::fmt_ms),
                num(r.candidate_p99_us, crate::report::fmt_ms)
            ),
            fmt_change(&r.p99_change),
            verdict,
        ]);
    }
    let mut out = format!(
        "baseline: {}\ncandidate: {}\n{t}\n",
        c.baseline, c.candidate
    );
    if let Some(p) = c.fail_if_slower_pct {
        out.push_str(&format!(
            "gate --fail-if-slower {p}%: {}\n",
            if c.regressions > 0 {
                format!("FAILED ({} regression(s))", c.regressions)
            } else {
                "passed".into()
            }
        ));
    }
    out
}
