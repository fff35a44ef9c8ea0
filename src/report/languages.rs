//! The "servers by language" table of a scenario whose measured servers run in more than one
//! language (issue 40: teams pick a language with the server): one row per language, its
//! servers fastest first with their req/s, languages in the order of their fastest server.
//! Only rows that can be ranked (valid, generator not saturated) are grouped; the main table
//! above has every row, and only its pairs decide which server is faster.
use std::collections::BTreeMap;

use crate::results::{ScenarioResult, TargetResult};
use crate::sys::runtime::Runtime;
use crate::units::fmt_rps;
use crate::view::Table;

/// The language a runtime label ("node v20.20.2", "python 3.11.7", "go 1.26.8") runs; a
/// runtime the catalogue does not know is its own group, under its first word.
fn language(runtime: &str) -> &str {
    match Runtime::of_label(runtime) {
        Some(r) => r.language(),
        None => runtime.split_whitespace().next().unwrap_or(runtime),
    }
}

/// None unless the scenario's rankable rows run in two languages or more.
pub fn table(s: &ScenarioResult) -> Option<Table> {
    let mut by: BTreeMap<&str, Vec<(&TargetResult, f64)>> = BTreeMap::new();
    for t in s.targets.iter().filter(|t| crate::summary::rankable(t)) {
        let (Some(runtime), Some(sum)) = (t.runtime.as_deref(), t.summary.as_ref()) else {
            continue;
        };
        if sum.rps.n == 0 {
            continue;
        }
        by.entry(language(runtime))
            .or_default()
            .push((t, sum.rps.center_or_median()));
    }
    if by.len() < 2 {
        return None;
    }
    let mut groups: Vec<(&str, Vec<(&TargetResult, f64)>)> = by.into_iter().collect();
    for (_, rows) in &mut groups {
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
    }
    groups.sort_by(|a, b| b.1[0].1.total_cmp(&a.1[0].1));
    let rows = groups
        .into_iter()
        .map(|(lang, rows)| {
            let mut runtimes: Vec<&str> = rows
                .iter()
                .filter_map(|(t, _)| t.runtime.as_deref())
                .collect();
            runtimes.sort_unstable();
            runtimes.dedup();
            vec![
                lang.to_string(),
                runtimes.join(", "),
                rows.iter()
                    .map(|(t, rps)| format!("{} {}", t.name, fmt_rps(*rps)))
                    .collect::<Vec<_>>()
                    .join(" · "),
            ]
        })
        .collect();
    Some(Table {
        title: "servers by language (req/s, the center of each row's counted trials; \
                which are faster is the main table's pairs)"
            .into(),
        headers: ["language", "runtime", "servers, fastest first (req/s)"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::TargetSummary;

    fn row(name: &str, runtime: Option<&str>, rps: f64, valid: bool) -> TargetResult {
        let mut t = TargetResult::new(name.into(), Default::default());
        t.runtime = runtime.map(String::from);
        let mut sum = TargetSummary {
            valid,
            valid_trials: 3,
            ..Default::default()
        };
        sum.rps = crate::stats::estimate(&[rps, rps, rps]);
        t.summary = Some(sum);
        t
    }

    #[test]
    fn languages_are_grouped_fastest_first_and_one_language_has_no_table() {
        let mut s = ScenarioResult {
            targets: vec![
                row("graphql-yoga", Some("node v20.20.2"), 1400.0, true),
                row("strawberry", Some("python 3.11.7"), 300.0, true),
                row("mercurius", Some("node v20.20.2"), 5000.0, true),
                row("yoga-bun", Some("bun 1.4.4"), 2000.0, true),
            ],
            ..Default::default()
        };
        let tb = table(&s).expect("two languages");
        assert_eq!(tb.rows.len(), 2);
        assert_eq!(tb.rows[0][0], "JavaScript");
        assert_eq!(tb.rows[0][1], "bun 1.4.4, node v20.20.2");
        assert_eq!(
            tb.rows[0][2],
            "mercurius 5,000 · yoga-bun 2,000 · graphql-yoga 1,400"
        );
        assert_eq!(tb.rows[1][0], "Python");
        // An invalid row is not grouped: with it gone, one language is left, and no table.
        s.targets[1].summary.as_mut().unwrap().valid = false;
        assert!(table(&s).is_none());
        // A row without a runtime (a native gateway) is not grouped either.
        s.targets[1] = row("hive-router", None, 9000.0, true);
        assert!(table(&s).is_none());
    }
}
