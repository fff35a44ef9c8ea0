//! An additive two-way fit, y = μ_row + ρ_column + e, of cells that may be missing (a
//! race's rounds: a target is a row, a round a column; a target that left the race has no
//! cell in later rounds), by backfitting, with the residual variance and its degrees of
//! freedom. The race orders its targets by μ and pools the noise of a target's round over
//! all its targets from the residuals (`summary::race::pooled`).
use std::collections::BTreeMap;

/// One observation: row, column, value.
pub type Cell = (usize, u32, f64);

/// The fit of `cells` over `rows` rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// Each row's effect; −∞ for a row without cells.
    pub mu: Vec<f64>,
    /// The residuals' variance, with its degrees of freedom (cells − rows − columns + 1,
    /// for rows and columns that hold a cell); None without a degree of freedom.
    pub residual: Option<(f64, usize)>,
}

/// Backfits `cells` (alternating means of rows and columns until they settle).
pub fn fit(rows: usize, cells: &[Cell]) -> Fit {
    let mut n = vec![0usize; rows];
    for &(r, _, _) in cells {
        n[r] += 1;
    }
    let mut mu: Vec<f64> = (0..rows)
        .map(|r| {
            if n[r] == 0 {
                return f64::NEG_INFINITY;
            }
            cells.iter().filter(|c| c.0 == r).map(|c| c.2).sum::<f64>() / n[r] as f64
        })
        .collect();
    let mut rho: BTreeMap<u32, f64> = BTreeMap::new();
    for _ in 0..200 {
        let mut sums: BTreeMap<u32, (f64, usize)> = BTreeMap::new();
        for &(r, c, y) in cells {
            let e = sums.entry(c).or_default();
            e.0 += y - mu[r];
            e.1 += 1;
        }
        let raw: BTreeMap<u32, f64> = sums
            .into_iter()
            .map(|(c, (s, k))| (c, s / k as f64))
            .collect();
        // Columns centred: the rows carry the level.
        let avg = raw.values().sum::<f64>() / raw.len().max(1) as f64;
        rho = raw.into_iter().map(|(c, v)| (c, v - avg)).collect();
        let mut change: f64 = 0.0;
        for (r, m) in mu.iter_mut().enumerate() {
            if n[r] == 0 {
                continue;
            }
            let new = cells
                .iter()
                .filter(|c| c.0 == r)
                .map(|&(_, c, y)| y - rho.get(&c).copied().unwrap_or(0.0))
                .sum::<f64>()
                / n[r] as f64;
            change = change.max((new - *m).abs());
            *m = new;
        }
        if change < 1e-12 {
            break;
        }
    }
    let used_rows = n.iter().filter(|&&k| k > 0).count();
    let df = (cells.len() + 1).saturating_sub(used_rows + rho.len());
    let residual = (df > 0).then(|| {
        let ss: f64 = cells
            .iter()
            .map(|&(r, c, y)| (y - mu[r] - rho.get(&c).copied().unwrap_or(0.0)).powi(2))
            .sum();
        (ss / df as f64, df)
    });
    Fit { mu, residual }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_complete_table_gives_the_classic_residual() {
        // Rows 0 and 1 apart by 1, columns 1 apart, an interaction of ±0.1.
        let cells = vec![(0, 1, 1.1), (1, 1, -0.1), (0, 2, 1.9), (1, 2, 1.1)];
        let f = fit(2, &cells);
        assert!((f.mu[0] - f.mu[1] - 1.0).abs() < 1e-9, "{f:?}");
        let (var, df) = f.residual.unwrap();
        assert_eq!(df, 1);
        // Residuals ±0.1 in every cell: SS 4 × 0.1², over 1 df.
        assert!((var - 0.04).abs() < 1e-9, "{var}");
    }

    #[test]
    fn a_missing_cell_is_not_read_as_a_difference_between_rows() {
        // Row 1 only in column 2, where everything ran 30% slower (log −0.357).
        let slow = (0.7f64).ln();
        let cells = vec![(0, 1, 0.0), (0, 2, slow), (1, 2, slow + 0.1)];
        let f = fit(2, &cells);
        assert!((f.mu[1] - f.mu[0] - 0.1).abs() < 1e-9, "{f:?}");
        // 3 cells, 2 rows, 2 columns: no degree of freedom left.
        assert_eq!(f.residual, None);
        assert_eq!(fit(3, &cells).mu[2], f64::NEG_INFINITY);
    }
}
