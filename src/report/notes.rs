//! The lines under a scenario's main table: the verdict (the fastest target named, or why
//! none is) and the notes (faults, imprecision, extended windows, failures, saturation,
//! crashes, leaks, how a closed model's req/s were taken), one line each.
use super::precision;
use crate::results::ScenarioResult;
use crate::view::cells::not_installed;

/// "fastest: X, +N% over Y (95% CI ...)" only when the interval of the margin excludes 0;
/// otherwise why no single fastest is named.
pub fn verdict(s: &ScenarioResult) -> String {
    let Some(r) = &s.ranking else {
        if crate::summary::fixed_rate(s) {
            return "no throughput ranking: at a fixed arrival rate every target that keeps up serves the rate; compare latency".into();
        }
        if s.by_kind.has(&crate::kinds::ab::AB) {
            return "no ranking: an A/B run decides side B against side A in its A/B table".into();
        }
        return "no ranking: fewer than two valid, unsaturated targets (baselines are not ranked)"
            .into();
    };
    // An efficiency scenario ranks answers per CPU-second: its leader is the cheapest per
    // request, its margin in answers per CPU-second.
    let (best, per) = match s.by_kind.get(&crate::summary::efficiency::RATE) {
        Some(r) => (
            format!("cheapest per request at {} req/s", r.rate),
            " answers per CPU-second",
        ),
        None => ("fastest".to_string(), ""),
    };
    // A race's pair says how it was judged; a ranking from before races, by rounds at 95%.
    let raced = r.pairs.first().and_then(|p| p.race.as_ref());
    let ci = match raced {
        Some(_) => format!(
            "interval {:+.1}% to {:+.1}%",
            r.margin_ci_pct.0, r.margin_ci_pct.1
        ),
        None => format!(
            "95% CI {:+.1}% to {:+.1}%",
            r.margin_ci_pct.0, r.margin_ci_pct.1
        ),
    };
    if r.significant {
        return match raced {
            Some(x) => format!(
                "{best}: {}, {:+.1}%{per} over {} ({ci}, {})",
                r.fastest,
                r.margin_pct,
                r.runner_up,
                precision::judged(x)
            ),
            None => format!(
                "{best}: {}, {:+.1}%{per} over {} ({ci}, paired over {} rounds)",
                r.fastest, r.margin_pct, r.runner_up, r.min_trials
            ),
        };
    }
    let top = r.pairs.first().map(|p| p.state.as_str());
    let too_few = match raced {
        Some(x) => x.rounds < crate::summary::race::MIN_LOOK,
        None => (r.min_trials as usize) < crate::stats::MIN_TRIALS,
    };
    if too_few {
        format!(
            "no {best} named: {} leads {} by {:+.1}%{per}, but {} trial(s) are too few to judge; use --trials {} or more",
            r.fastest,
            r.runner_up,
            r.margin_pct,
            r.min_trials,
            crate::stats::MIN_TRIALS
        )
    } else if top == Some("equivalent") {
        format!(
            "no {best} named: {} and {} are equivalent ({:+.1}%{per}, {ci}: within ±{}%)",
            r.fastest,
            r.runner_up,
            r.margin_pct,
            precision::pct(
                s.rounds
                    .as_ref()
                    .and_then(|x| x.target_pct)
                    .unwrap_or_default()
            )
        )
    } else {
        format!(
            "no {best} named: {} leads {} by {:+.1}%{per}, but the {ci} includes 0 (within noise)",
            r.fastest, r.runner_up, r.margin_pct
        )
    }
}

/// Problems worth a line under the table: failures, saturation, crashes.
pub fn notes(s: &ScenarioResult) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(f) = &s.catalogue_fault {
        out.push(format!("CATALOGUE FAULT — {f}"));
    }
    out.extend(precision::pairs_note(s));
    out.extend(super::forecast::forecast_notes(s));
    out.extend(precision::rounds_note(s));
    out.extend(precision::sentinel_note(s));
    out.extend(super::rates::notes(s));
    for t in s.targets.iter().filter(|t| !not_installed(t)) {
        out.extend(precision::trial_notes(t));
        out.extend(precision::own_warmup_note(t));
    }
    for t in s.targets.iter().filter(|t| !not_installed(t)) {
        let ext: Vec<String> = t
            .trials
            .iter()
            .filter_map(|x| {
                x.load
                    .window_extended_s
                    .map(|e| format!("trial {}: +{e:.1} s", x.trial))
            })
            .collect();
        if !ext.is_empty() {
            out.push(format!(
                "{}: measured window extended so every connection completed a request in it ({}; planned {} s): its requests take about as long as the window",
                t.name,
                ext.join(", "),
                s.duration_s
            ));
        }
    }
    for t in s.targets.iter().filter(|t| !not_installed(t)) {
        if let Some(p) = &t.problem {
            out.push(format!("{}: {} — {}", t.name, t.status.label(), p));
        }
        if let Some(d) = t.depth_check.as_ref().filter(|d| !d.passed()) {
            out.push(format!(
                "{}: DEPTH LIMIT CHECK FAILED — depth {}: {}; depth {}: {}",
                t.name,
                d.limit,
                d.at_limit_detail.as_deref().unwrap_or("answered"),
                d.limit + 1,
                d.over_limit_detail
            ));
        }
        if let Some(l) = t
            .summary
            .as_ref()
            .and_then(|x| x.leak.as_ref())
            .filter(|l| l.verdict == "growing")
        {
            out.push(format!("{}: memory leak suspected — {}", t.name, l.detail));
        }
        let mut seen = std::collections::BTreeSet::new();
        for tr in &t.trials {
            for p in &tr.problems {
                if seen.insert(format!("problem-{p}")) {
                    out.push(format!("{} (trial {}): {p}", t.name, tr.trial));
                }
            }
            // Unsteady warm-ups are summed up per target by `precision::trial_notes`.
            for f in tr
                .saturation
                .iter()
                .filter(|f| f.kind != crate::results::FlagKind::Unsteady)
            {
                if seen.insert(f.kind.to_string()) {
                    let what = if crate::saturation::is_caveat(f) {
                        "caveat"
                    } else {
                        "saturation"
                    };
                    out.push(format!(
                        "{} (trial {}): {what} {}: {}",
                        t.name, tr.trial, f.kind, f.detail
                    ));
                }
            }
            for ex in tr.load.failure_examples.iter().take(1) {
                if seen.insert(format!("ex-{}", crate::results::kind_name(ex.kind))) {
                    out.push(format!(
                        "{} (trial {}): {} on {}: {}",
                        t.name,
                        tr.trial,
                        crate::results::kind_name(ex.kind),
                        ex.operation,
                        ex.detail
                    ));
                }
            }
        }
    }
    out
}
