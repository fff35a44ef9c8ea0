//! Cells shared by the report tables of several kinds: a dash for a missing figure, an
//! estimate in milliseconds with its spread.
use crate::results::Estimate;

pub fn dash() -> String {
    "-".into()
}

/// Seconds shown as "median [min – max]" milliseconds.
pub fn est_ms(e: &Estimate) -> String {
    if e.n == 0 {
        return dash();
    }
    format!(
        "{:.1} [{:.1} – {:.1}]",
        e.median * 1000.0,
        e.min * 1000.0,
        e.max * 1000.0
    )
}
