//! The reload scenario's table from a saved result: per gateway, how long a reload took to
//! be served, the first request after it against the second, failed requests, and why a
//! row failed.
use super::*;
use crate::view::cells::{dash, not_installed};
use crate::view::Table;

/// Milliseconds of an estimate's median or maximum, or a dash when nothing was measured.
fn ms(e: &crate::results::Estimate, of: fn(&crate::results::Estimate) -> f64) -> String {
    if e.n == 0 {
        dash()
    } else {
        format!("{:.1}", of(e) * 1000.0)
    }
}

pub(super) fn table(s: &ScenarioResult) -> Option<Table> {
    let spec = s.by_kind.get(&SPEC)?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !not_installed(t))
        .map(|t| {
            let why = problem(t);
            match t.by_kind.get(&SUMMARY) {
                None => {
                    let mut row = vec![t.name.clone(), format!("0/{}", spec.reloads)];
                    row.extend(std::iter::repeat_n(dash(), 6));
                    row.push(why);
                    row
                }
                Some(r) => vec![
                    t.name.clone(),
                    format!("{}/{}", r.ok, spec.reloads),
                    ms(&r.reload_s, |e| e.median),
                    ms(&r.reload_s, |e| e.max),
                    ms(&r.first_request_s, |e| e.median),
                    ms(&r.first_request_s, |e| e.max),
                    ms(&r.second_request_s, |e| e.median),
                    r.failed_requests.to_string(),
                    why,
                ],
            }
        })
        .collect();
    Some(Table {
        title: format!(
            "supergraph reload: file rewritten → new schema served (introspection polled every {:.0} ms, at most {:.0} s), then the operation twice (ms)",
            spec.poll_ms, spec.timeout_s
        ),
        headers: [
            "target",
            "reloads ok",
            "reload p50",
            "reload max",
            "first request p50",
            "first request max",
            "second request p50",
            "failed requests",
            "problems",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// Why a row has no figures or fewer reloads than asked: the first failed reload, else
/// the target's own problem (not started, wrong answers), else a dash.
fn problem(t: &TargetResult) -> String {
    t.trials
        .iter()
        .flat_map(|tr| tr.by_kind.get(&SAMPLES).unwrap_or_default())
        .find_map(|s| s.problem.map(|p| format!("reload {}: {p}", s.reload)))
        .or_else(|| t.problem.clone())
        .or_else(|| {
            t.trials
                .iter()
                .find(|x| !x.valid)
                .and_then(|x| x.problems.first().cloned())
        })
        .unwrap_or_else(dash)
}
