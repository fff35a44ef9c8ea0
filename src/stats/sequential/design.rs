//! A sequential design: the error budget, the looks it is spread over, and how it is spent
//! from look to look (`Spending`), which `stats::sequential` turns into boundaries.
use super::{normal_cdf, normal_quantile};

/// How the error budget is spent over the looks, α(t) for information time t in (0, 1].
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Spending {
    /// Lan and DeMets' O'Brien–Fleming type: almost nothing early (ab's pairs: a decision
    /// on the first pairs would rest on too few processes).
    #[default]
    OBrienFleming,
    /// Kim and DeMets' power family α·t^ρ: ρ = 1 spends evenly (Pocock-like), ρ = 3 is
    /// close to O'Brien–Fleming. A race spends more early than ab, so that pairs far apart
    /// leave it after the second round.
    Power(f64),
}

/// How a sequential comparison spends its error budget.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Design {
    /// Two-sided error budget over all looks (0 < alpha < 1).
    pub alpha: f64,
    /// K_max: looks (pairs) at most; the budget is all spent at the last one.
    pub max_looks: usize,
    /// The first look: looks before it spend nothing (their boundary is infinite).
    pub min_look: usize,
    #[serde(default)]
    pub spending: Spending,
}

impl Design {
    /// `max_looks` looks at the default budget (5%) with the first look at 3 pairs.
    pub fn new(max_looks: usize) -> Design {
        Design {
            alpha: 0.05,
            max_looks,
            min_look: 3,
            spending: Spending::OBrienFleming,
        }
    }

    /// K_max, at least 1.
    pub(super) fn k_max(&self) -> usize {
        self.max_looks.max(1)
    }

    /// The first look, within 1..=K_max.
    pub(super) fn first(&self) -> usize {
        self.min_look.clamp(1, self.k_max())
    }

    /// The alpha planned to be spent by the end of look `k`: α(k / K_max), nothing before
    /// the first look, all of it from the last look on.
    pub fn spent(&self, k: usize) -> f64 {
        if k < self.first() {
            0.0
        } else if k >= self.k_max() {
            self.alpha
        } else {
            let t = k as f64 / self.k_max() as f64;
            match self.spending {
                // Lan–DeMets O'Brien–Fleming type, spent per side (α/2 each), as gsDesign
                // and ldbounds do: the two-sided total is 4 − 4Φ(z_{1−α/4}/√t).
                Spending::OBrienFleming => {
                    let z = -normal_quantile(self.alpha / 4.0);
                    4.0 * normal_cdf(-z / t.sqrt())
                }
                Spending::Power(rho) => self.alpha * t.powf(rho.max(0.1)),
            }
        }
    }
}

impl Default for Design {
    fn default() -> Design {
        Design::new(20)
    }
}
