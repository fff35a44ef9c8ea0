//! The notes of a comparison, what to keep in mind that is not a problem: what the variance
//! between target processes added to every interval, runs measured by different engines,
//! and rows whose req/s the two runs took differently (counted, or from the requests'
//! timing).
use super::matching::RowSpec;
use crate::results::{RunResults, TargetResult};
use crate::stats::between::{self, Between};

/// What the rows' scatter added to every interval, or why nothing could be added.
pub(super) fn between_note(b: Option<&Between>, rows: usize) -> String {
    match b {
        Some(b) if b.tau2 > 0.0 => format!(
            "each row's interval includes the variance between target processes that the {} rows compared show beyond their own intervals (one process pair per row; sd {:.1}% of req/s, DerSimonian–Laird over the rows): two runs cannot tell a change confined to some rows from that luck, which costs the gate power",
            b.rows,
            b.sd_pct()
        ),
        Some(b) => format!(
            "the {} rows compared scatter no more than their own intervals say: no variance between target processes was added",
            b.rows
        ),
        None => format!(
            "the variance between target processes could not be estimated ({rows} row(s) valid in both runs with {} trials a side, need {}): each interval covers the noise within the runs only, not the luck of each run's target process",
            crate::stats::MIN_TRIALS,
            between::MIN_ROWS
        ),
    }
}

/// Runs measured by different load testers (gqlbench, an imported k6 run) differ by how
/// each measures as well as by the targets: said beside the comparison.
pub(super) fn engine_note(a: &RunResults, b: &RunResults) -> Option<String> {
    (a.engine != b.engine).then(|| {
        format!(
            "the runs were measured by different engines ({} and {}): a difference is also how each measures (latency points, warm-up, connection handling), not only the targets",
            a.engine, b.engine
        )
    })
}

/// Rows whose req/s one run counted and the other took from the requests' own timing
/// (`load.rps_source`: a run of a version before the timing was taken for a coarse count,
/// against one after): a slow row's count ran up to one request per connection above its
/// timing, so its change is partly the method's.
pub(super) fn source_note(specs: &[RowSpec<'_>]) -> Option<String> {
    let timed = |t: &TargetResult| {
        crate::summary::used_trials(t)
            .iter()
            .any(|x| x.load.rps_source.is_some())
    };
    let rows: Vec<String> = specs
        .iter()
        .filter_map(|(s, _, a, b)| {
            let (a, b) = (a.as_ref()?, b.as_ref()?);
            (timed(a) != timed(b)).then(|| format!("{}/{}", s.name, a.name))
        })
        .collect();
    (!rows.is_empty()).then(|| {
        format!(
            "req/s counted in one run and taken from the requests' own timing in the other (a count too coarse for its window): {}; a slow row's count runs up to one request per connection above its timing, so its change is partly how each was measured",
            rows.join(", ")
        )
    })
}

/// Two A/B runs: their rows are the sides' labels, so a row of one run is compared with the
/// row of the same label in the other whatever each side measured. Said when a label
/// stands for another target, folder or environment in the two runs.
pub(super) fn ab_sides_note(a: &RunResults, b: &RunResults) -> Option<String> {
    use crate::kinds::ab::AB;
    let mut differ = Vec::new();
    for (sa, sb) in a.scenarios.iter().zip(&b.scenarios) {
        let (Some(ra), Some(rb)) = (sa.by_kind.get(&AB), sb.by_kind.get(&AB)) else {
            continue;
        };
        for x in &ra.arms {
            let Some(y) = rb.arms.iter().find(|y| y.label == x.label) else {
                continue;
            };
            let mut what = Vec::new();
            if x.target != y.target {
                what.push(format!("target {} and {}", x.target, y.target));
            }
            if x.root != y.root {
                what.push(format!(
                    "folder {} and {}",
                    x.root.display(),
                    y.root.display()
                ));
            }
            if x.env != y.env {
                what.push("its environment".to_string());
            }
            if !what.is_empty() {
                differ.push(format!("side {} ({})", x.label, what.join(", ")));
            }
        }
    }
    (!differ.is_empty()).then(|| {
        format!(
            "A/B runs are compared side by side label, and these labels stand for something else in each run: {}; their change is between different things, not a change of one",
            differ.join("; ")
        )
    })
}
