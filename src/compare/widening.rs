//! The widening of every row's interval by the variance between target processes: each
//! row valid in both runs is its own pair of processes, so how far the rows' changes scatter
//! beyond their within-run intervals estimates it (`stats::between`).
use super::matching::RowSpec;
use super::speed;
use crate::stats::between::LogChange;

/// The change of every row valid in both runs, on the logarithms of its req/s samples.
pub(super) fn logs(specs: &[RowSpec]) -> Vec<LogChange> {
    specs
        .iter()
        .filter_map(|s| {
            let (x, y) = row_samples(s)?;
            LogChange::of(&x, &y)
        })
        .collect()
}

/// The req/s samples of a row valid in both runs, as its change is judged: scaled by the
/// canary when both sides have one, else as measured.
fn row_samples(&(named, other, ta, tb): &RowSpec) -> Option<(Vec<f64>, Vec<f64>)> {
    let (a, b, sb) = (ta?, tb?, other?);
    if !named.kind.has_trials() || !crate::summary::rankable(a) || !crate::summary::rankable(b) {
        return None;
    }
    match speed::adjusted_samples(named, a).zip(speed::adjusted_samples(sb, b)) {
        Some(xy) => Some(xy),
        None => Some((
            a.summary.as_ref()?.rps.samples.clone(),
            b.summary.as_ref()?.rps.samples.clone(),
        )),
    }
}
