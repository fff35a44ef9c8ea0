//! The variance between target processes, as far as two runs can show it. Each run starts
//! one process per target and scenario, and a process carries luck of its own (JIT tiering,
//! code layout, heap sizing) that no number of rounds inside it averages away; the interval
//! of a change between two runs covers only the noise within them. Across the rows of a
//! comparison (scenario × target, each its own pair of processes), the changes scatter by
//! that luck as well as by their within-run noise: the excess scatter, estimated by the
//! method of moments of DerSimonian and Laird (the random-effects τ² of a meta-analysis),
//! is added to every row's variance before it is judged.
//!
//! A slowdown confined to some rows raises the estimate as process luck would, so this
//! widening costs the gate power; it cannot tell the two apart, which is why two builds are
//! best compared in one run (the A/B design), not across two.
use super::{logs, mean, stdev, Change, MIN_TRIALS};

/// Rows a spread needs before it says anything (two degrees of freedom).
pub const MIN_ROWS: usize = 3;

/// The change of one row on the log scale: the difference of the mean logarithms, the
/// variance of that difference within the runs (Welch) and its degrees of freedom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogChange {
    pub d: f64,
    pub var: f64,
    pub df: f64,
    /// Both sides have at least `MIN_TRIALS` trials.
    pub enough: bool,
}

impl LogChange {
    /// From the trials of two runs (every value positive), or None.
    pub fn of(a: &[f64], b: &[f64]) -> Option<LogChange> {
        let (la, lb) = (logs(a)?, logs(b)?);
        if la.is_empty() || lb.is_empty() {
            return None;
        }
        let (na, nb) = (la.len() as f64, lb.len() as f64);
        let (va, vb) = (stdev(&la).powi(2) / na, stdev(&lb).powi(2) / nb);
        // Welch–Satterthwaite; undefined with one trial on a side (no spread to estimate).
        let df = if na >= 2.0 && nb >= 2.0 && va + vb > 0.0 {
            (va + vb).powi(2) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0))
        } else {
            0.0
        };
        Some(LogChange {
            d: mean(&lb) - mean(&la),
            var: va + vb,
            df,
            enough: la.len() >= MIN_TRIALS && lb.len() >= MIN_TRIALS,
        })
    }

    /// The change with its 95% t interval, within the runs only.
    pub fn change(&self) -> Change {
        Change::from_log(self.d, self.var.sqrt(), self.df, self.enough)
    }

    /// The change with the variance between processes added (`tau2` on the log scale,
    /// estimated with `tau_df` degrees of freedom); the degrees of freedom of the sum by
    /// Satterthwaite's rule.
    pub fn widened(&self, between: &Between) -> Change {
        let tau2 = between.tau2;
        if tau2 <= 0.0 {
            return self.change();
        }
        let var = self.var + tau2;
        let within = if self.df > 0.0 {
            self.var * self.var / self.df
        } else {
            0.0
        };
        let df = var * var / (within + tau2 * tau2 / between.df);
        Change::from_log(self.d, var.sqrt(), df, self.enough)
    }
}

/// The variance between process pairs, estimated over the rows of a comparison.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Between {
    /// τ²: the variance of a row's log change that its within-run interval does not cover
    /// (0 when the rows scatter no more than their intervals say).
    pub tau2: f64,
    /// Its degrees of freedom: rows − 1.
    pub df: f64,
    /// Rows it was estimated from.
    pub rows: usize,
    /// Cochran's Q: the weighted scatter of the rows around their common change.
    pub q: f64,
}

impl Between {
    /// τ as a percentage of throughput: the standard deviation of one pair of processes'
    /// luck, on the scale of req/s.
    pub fn sd_pct(&self) -> f64 {
        (self.tau2.sqrt().exp() - 1.0) * 100.0
    }
}

/// DerSimonian–Laird's estimate over `rows` (those with a within-run spread), or None when
/// fewer than [`MIN_ROWS`] have one.
pub fn estimate(rows: &[LogChange]) -> Option<Between> {
    let used: Vec<&LogChange> = rows.iter().filter(|r| r.var > 0.0 && r.enough).collect();
    if used.len() < MIN_ROWS {
        return None;
    }
    let w: Vec<f64> = used.iter().map(|r| 1.0 / r.var).collect();
    let sw: f64 = w.iter().sum();
    let center = used.iter().zip(&w).map(|(r, w)| w * r.d).sum::<f64>() / sw;
    let q: f64 = used
        .iter()
        .zip(&w)
        .map(|(r, w)| w * (r.d - center).powi(2))
        .sum();
    let k = used.len() as f64;
    let c = sw - w.iter().map(|x| x * x).sum::<f64>() / sw;
    let tau2 = ((q - (k - 1.0)) / c).max(0.0);
    Some(Between {
        tau2,
        df: k - 1.0,
        rows: used.len(),
        q,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic normal sample (Box–Muller over a xorshift).
    struct Normal(u64);
    impl Normal {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
        fn next(&mut self) -> f64 {
            let (u, v) = (self.uniform().max(1e-12), self.uniform());
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        }
    }

    /// `n` trials of a process whose level is `level` (log scale), each with noise `sd`.
    fn trials(g: &mut Normal, level: f64, sd: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| (10.0 + level + sd * g.next()).exp())
            .collect()
    }

    #[test]
    fn rows_that_scatter_as_their_intervals_say_add_nothing() {
        let rows: Vec<LogChange> = [0.001, -0.002, 0.0015, -0.0005, 0.0]
            .iter()
            .map(|d| LogChange {
                d: *d,
                var: 0.01f64.powi(2),
                df: 8.0,
                enough: true,
            })
            .collect();
        let b = estimate(&rows).unwrap();
        assert_eq!(b.tau2, 0.0);
        assert_eq!(rows[0].widened(&b), rows[0].change());
    }

    #[test]
    fn too_few_rows_give_no_estimate() {
        let r = LogChange {
            d: 0.1,
            var: 1e-4,
            df: 8.0,
            enough: true,
        };
        assert!(estimate(&[r, r]).is_none());
        let short = LogChange { enough: false, ..r };
        assert!(estimate(&[r, r, short]).is_none());
    }

    /// Simulated A/A comparisons where every process carries its own offset (sd 3%) and
    /// trials vary by 1% around it: the within-run interval alone calls many rows
    /// significantly changed; widened by the estimate from the comparison's own six rows,
    /// the false alarms at a 5% allowance fall to a few in a hundred.
    #[test]
    fn a_per_process_offset_does_not_raise_false_alarms() {
        let mut g = Normal(0x9e37_79b9_7f4a_7c15);
        let (process_sd, trial_sd, n, rows) = (0.03, 0.01, 7, 6);
        let (mut narrow, mut wide, mut total) = (0, 0, 0);
        for _ in 0..2000 {
            let changes: Vec<LogChange> = (0..rows)
                .map(|_| {
                    let (pa, pb) = (process_sd * g.next(), process_sd * g.next());
                    let a = trials(&mut g, pa, trial_sd, n);
                    let b = trials(&mut g, pb, trial_sd, n);
                    LogChange::of(&a, &b).unwrap()
                })
                .collect();
            let between = estimate(&changes).unwrap();
            for c in &changes {
                total += 1;
                let trips = |x: Change| x.significant && x.ci_low_pct < -5.0;
                narrow += usize::from(trips(c.change()));
                wide += usize::from(trips(c.widened(&between)));
            }
        }
        let (narrow, wide) = (narrow as f64 / total as f64, wide as f64 / total as f64);
        assert!(narrow > 0.10, "the within-run interval alone: {narrow}");
        assert!(wide < 0.03, "widened: {wide}");
    }

    /// The same simulation without process offsets: the widening costs little power, a
    /// 10% slowdown in every row is still found in nearly every row.
    #[test]
    fn a_real_slowdown_of_every_row_is_still_found() {
        let mut g = Normal(0x2545_f491_4f6c_dd1d);
        let (mut found, mut total) = (0, 0);
        for _ in 0..500 {
            let changes: Vec<LogChange> = (0..6)
                .map(|_| {
                    let a = trials(&mut g, 0.0, 0.01, 7);
                    let b = trials(&mut g, (1.0f64 / 1.1).ln(), 0.01, 7);
                    LogChange::of(&a, &b).unwrap()
                })
                .collect();
            let between = estimate(&changes).unwrap();
            for c in &changes {
                total += 1;
                let w = c.widened(&between);
                found += usize::from(w.significant && w.ci_low_pct < -5.0);
            }
        }
        assert!(found as f64 / total as f64 > 0.9, "{found} of {total}");
    }
}
