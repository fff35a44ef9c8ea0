//! Group-sequential repeated confidence intervals (Jennison & Turnbull, ch. 9): a change
//! looked at after every pair of processes, with an interval at each look whose coverage
//! holds jointly over all looks, so the comparison may stop as soon as an interval decides.
//!
//! Why not a fixed-size t interval looked at after every pair: looking ten times at a 95%
//! interval calls a difference where there is none about 20% of the time. The looks share
//! one error budget `alpha`, spent by Lan and DeMets' O'Brien–Fleming-type function per
//! side, α(t) = 4 − 4Φ(z_{1−α/4}/√t) in all: almost nothing on the first looks (where few pairs would
//! otherwise decide on luck), nearly the fixed design's z at the last one, so running to
//! the end costs little against a fixed design.
//!
//! The boundaries are worked out deterministically by the recursion of Armitage, McPherson
//! and Rowe: the density of the partial sum S_k of unit-variance increments that has not
//! yet crossed is carried from look to look on a grid (Simpson's rule), and each look's
//! boundary is the root at which the mass crossing it is the alpha the look may spend. The
//! z boundaries assume a known variance; a look with k pairs estimates it with k − 1
//! degrees of freedom, so each boundary is turned into a t multiplier with the same tail.
use super::{mean, stdev, t};

mod design;
pub use design::{Design, Spending};

/// Φ(x), the standard normal CDF, accurate *relatively* far into the lower tail, where
/// the boundaries' small spends live.
pub fn normal_cdf(x: f64) -> f64 {
    let (q, _) = upper_tail(x.abs());
    if x > 0.0 {
        1.0 - q
    } else if x.is_nan() {
        f64::NAN
    } else {
        q
    }
}

/// 1 − Φ(a) and φ(a) for a ≥ 0, sharing one exponential: Hart's rational approximation as
/// given by West (2005), and Laplace's continued fraction Q(a) = φ(a)/(a + 1/(a + 2/…))
/// in the tail, which beyond a = 7 settles to ~1e-13 within 14 terms.
fn upper_tail(a: f64) -> (f64, f64) {
    const NUM: [f64; 7] = [
        0.035_262_496_599_891_1,
        0.700_383_064_443_688,
        6.373_962_203_531_65,
        33.912_866_078_383,
        112.079_291_497_871,
        221.213_596_169_931,
        220.206_867_912_376,
    ];
    const DEN: [f64; 8] = [
        0.088_388_347_648_318_4,
        1.755_667_163_182_64,
        16.064_177_579_207,
        86.780_732_202_946_1,
        296.564_248_779_674,
        637.333_633_378_831,
        793.826_512_519_948,
        440.413_735_824_752,
    ];
    const ROOT_2PI: f64 = 2.506_628_274_631_000_5;
    if a > 38.0 {
        return (0.0, 0.0);
    }
    let e = (-a * a / 2.0).exp();
    let q = if a < 7.071_067_811_865_47 {
        e * NUM.iter().fold(0.0, |s, c| s * a + c) / DEN.iter().fold(0.0, |s, c| s * a + c)
    } else {
        e / (1..=14).rev().fold(a, |b, n| a + n as f64 / b) / ROOT_2PI
    };
    (q, e / ROOT_2PI)
}

/// Φ⁻¹(p), by Newton's method on ln Φ(x) = ln p from the tail's asymptote: ln Φ is
/// concave, so past the first step the iterates climb steadily to the root, and the
/// tail's relative precision carries over to tiny p.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p > 0.5 {
        return -normal_quantile(1.0 - p);
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    let l = -2.0 * p.ln();
    let mut x = if p < 0.1 {
        -(l - l.ln() - (2.0 * std::f64::consts::PI).ln()).sqrt()
    } else {
        0.0
    };
    for _ in 0..100 {
        let (q, phi) = upper_tail(-x);
        let step = (q.ln() - p.ln()) * q / phi;
        x -= step;
        if step.abs() <= 1e-15 * x.abs().max(1.0) {
            break;
        }
    }
    x
}

/// Grid spacing on the partial-sum scale (the increments have sd 1): Simpson's rule at
/// this step keeps the spent alpha within ~1e-6 of a grid four times finer.
const STEP: f64 = 0.2;
/// Beyond 8.5 sd a normal density is below 1e-16: such grid points add nothing.
const KERNEL_REACH: f64 = 8.5;

/// The sub-density of S_k over the paths that have not crossed by look k.
enum State {
    /// No finite boundary yet: S_k is exactly N(0, k).
    Free,
    /// Grid points x0 + i·h and their mass (density × Simpson weight).
    Grid { x0: f64, h: f64, mass: Vec<f64> },
}

impl State {
    /// The probability of crossing ±b√k at look k (S_k = S_{k−1} + N(0, 1)) and not
    /// before, and its derivative in b.
    fn cross(&self, k: usize, b: f64) -> (f64, f64) {
        if b.is_infinite() {
            return (0.0, 0.0);
        }
        let rk = (k as f64).sqrt();
        let c = b * rk;
        match self {
            State::Free => {
                let (q, phi) = upper_tail(b);
                (2.0 * q, -2.0 * phi)
            }
            State::Grid { x0, h, mass } => {
                let (mut p, mut dp) = (0.0, 0.0);
                for (i, m) in mass.iter().enumerate() {
                    let x = x0 + i as f64 * h;
                    // Either side: beyond the bound and below it, each 1 − Φ of a distance.
                    for z in [c - x, c + x] {
                        let (q, phi) = if z >= 0.0 {
                            upper_tail(z)
                        } else {
                            let (q, phi) = upper_tail(-z);
                            (1.0 - q, phi)
                        };
                        p += m * q;
                        dp -= m * rk * phi;
                    }
                }
                (p, dp)
            }
        }
    }

    /// The state after look k with boundary b (on the z scale).
    fn advance(&self, k: usize, b: f64, step: f64) -> State {
        let (x_old, h_old, mass_old) = match self {
            // Boundaries only become finite under a spending function: no finite one yet,
            // nothing truncated.
            State::Free if b.is_infinite() => return State::Free,
            State::Free => (0.0, 0.0, &Vec::new()),
            State::Grid { x0, h, mass } => (*x0, *h, mass),
        };
        let c = b.min(40.0) * (k as f64).sqrt();
        let n = (((2.0 * c / step).ceil() as usize).max(2) + 1) & !1;
        let h = 2.0 * c / n as f64;
        let sd = (k as f64).sqrt();
        let phi = |z: f64| upper_tail(z.abs()).1;
        // φ(u − g) = φ(u)·e^{ug − g²/2}: along the old grid the kernel is a product of
        // ratios that shrink by e^{−g²} each step, so one exponential per new point.
        let shrink = (-h_old * h_old).exp();
        let mass = (0..=n)
            .map(|j| {
                let s = -c + j as f64 * h;
                let density = if let State::Free = self {
                    phi(s / sd) / sd
                } else {
                    let last = mass_old.len() as f64 - 1.0;
                    let lo = ((s - KERNEL_REACH - x_old) / h_old).ceil().clamp(0.0, last);
                    let hi = ((s + KERNEL_REACH - x_old) / h_old)
                        .floor()
                        .clamp(0.0, last);
                    let u = s - (x_old + lo * h_old);
                    let (mut term, mut ratio) = (phi(u), (u * h_old - h_old * h_old / 2.0).exp());
                    let mut sum = 0.0;
                    for m in &mass_old[lo as usize..=hi as usize] {
                        sum += m * term;
                        term *= ratio;
                        ratio *= shrink;
                    }
                    sum
                };
                let w = match j {
                    0 => 1.0,
                    j if j == n => 1.0,
                    j if j % 2 == 1 => 4.0,
                    _ => 2.0,
                };
                density * w * h / 3.0
            })
            .collect();
        State::Grid { x0: -c, h, mass }
    }

    /// The boundary at look k that spends `spend`, from a guess near it: the root of
    /// `cross`, which falls as the boundary rises. Newton's method on ln P (P falls about
    /// exponentially), kept inside a bracket that bisection narrows when a step leaves it.
    fn solve(&self, k: usize, spend: f64, guess: f64) -> f64 {
        if spend <= 0.0 || spend.is_nan() {
            return f64::INFINITY;
        }
        if let State::Free = self {
            return -normal_quantile(spend / 2.0);
        }
        let (mut lo, mut hi) = (0.0, 40.0);
        let mut b = if guess.is_finite() { guess } else { 3.0 };
        for _ in 0..200 {
            let (p, dp) = self.cross(k, b);
            if p > spend {
                lo = b;
            } else {
                hi = b;
            }
            // A step that leaves the bracket, or is no number (P underflowed), bisects.
            let next = b - (p.ln() - spend.ln()) * p / dp;
            let next = if next > lo && next < hi {
                next
            } else {
                0.5 * (lo + hi)
            };
            if (next - b).abs() < 1e-10 || hi - lo < 1e-10 {
                // All the mass left is not worth the spend: no boundary can hold it back.
                return if hi - lo < 1e-10 && lo == 0.0 {
                    0.0
                } else {
                    next
                };
            }
            b = next;
        }
        b
    }
}

/// Every look's boundary, both as planned (`regular`) and as it is when the budget ends
/// at that look (`last`), with the t multipliers of each (k − 1 degrees of freedom).
/// Worked out once per design: a comparison then reads it at every look.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    pub design: Design,
    /// z boundary of look k at index k − 1 (+inf before the first look).
    pub regular: Vec<f64>,
    /// z boundary of look k when it spends all the alpha left (α − α(t_{k−1})).
    pub last: Vec<f64>,
    /// The t multipliers of `regular` and `last` (+inf where there is no interval).
    pub t_regular: Vec<f64>,
    pub t_last: Vec<f64>,
}

impl Bounds {
    pub fn new(d: &Design) -> Bounds {
        let (regular, last) = z_bounds(d, true);
        let to_t = |bs: &[f64]| -> Vec<f64> {
            bs.iter()
                .enumerate()
                .map(|(i, b)| t_multiplier(*b, i))
                .collect()
        };
        Bounds {
            design: *d,
            t_regular: to_t(&regular),
            t_last: to_t(&last),
            regular,
            last,
        }
    }

    /// The z boundary of look `k` (as planned, or as the last look when `last`): +inf
    /// before the first look; past K_max, the last planned one.
    pub fn z(&self, k: usize, last: bool) -> f64 {
        if k == 0 || k < self.design.first() {
            return f64::INFINITY;
        }
        let i = k.min(self.design.k_max()) - 1;
        if last || k >= self.design.k_max() {
            self.last[i]
        } else {
            self.regular[i]
        }
    }

    /// The repeated confidence interval of the pair estimates `ds` at look k = ds.len()
    /// (see `rci`).
    pub fn rci(&self, ds: &[f64], last: bool) -> Option<Rci> {
        let k = ds.len();
        if k < 2 || k < self.design.first() || ds.iter().any(|x| !x.is_finite()) {
            return None;
        }
        // Past K_max (more pairs than planned) the last boundary, its multiplier worked
        // out again for the pairs there are.
        let i = k.min(self.design.k_max()) - 1;
        let (z, mult) = match last {
            true => (self.last[i], self.t_last[i]),
            false => (self.regular[i], self.t_regular[i]),
        };
        let mult = if i + 1 < k {
            t_multiplier(z, k - 1)
        } else {
            mult
        };
        let center = mean(ds);
        let half = mult * stdev(ds) / (k as f64).sqrt();
        Some(Rci {
            center,
            low: center - half,
            high: center + half,
            look: k,
            level_z: z,
        })
    }
}

/// The planned z boundaries of looks 1..=K_max and, with `lasts`, those of each look
/// when the budget ends there (empty without).
fn z_bounds(d: &Design, lasts: bool) -> (Vec<f64>, Vec<f64>) {
    z_bounds_of(d.k_max(), d.alpha, |k| d.spent(k), lasts)
}

/// `z_bounds` for any cumulative spending `spent` of a budget `alpha` over `k_max` looks.
fn z_bounds_of(
    k_max: usize,
    alpha: f64,
    spent: impl Fn(usize) -> f64,
    lasts: bool,
) -> (Vec<f64>, Vec<f64>) {
    let (mut regular, mut last) = (Vec::with_capacity(k_max), Vec::new());
    let mut state = State::Free;
    let mut guess = f64::INFINITY;
    for k in 1..=k_max {
        let before = spent(k - 1);
        let b = state.solve(k, spent(k) - before, guess);
        if lasts {
            last.push(if k == k_max {
                b
            } else {
                state.solve(k, alpha - before, b.min(guess))
            });
        }
        regular.push(b);
        if k < k_max {
            state = state.advance(k, b, STEP);
        }
        guess = b;
    }
    (regular, last)
}

/// t_{df}⁻¹(Φ(b)): the t quantile with the same upper tail as the z boundary `b`, found
/// from the tail itself (1 − Φ(b) would round to 0 for a large b).
pub fn t_multiplier(b: f64, df: usize) -> f64 {
    if df == 0 || b.is_infinite() || b.is_nan() {
        return f64::INFINITY;
    }
    let q = normal_cdf(-b);
    if b <= 0.0 || q <= 0.0 {
        return if b <= 0.0 { 0.0 } else { f64::INFINITY };
    }
    let tail = |x: f64| t::cdf(-x, df as f64);
    let (mut lo, mut hi) = (0.0, 1.0);
    while tail(hi) > q {
        (lo, hi) = (hi, hi * 2.0);
    }
    while hi - lo > 1e-12 * hi {
        let mid = 0.5 * (lo + hi);
        *(if tail(mid) > q { &mut lo } else { &mut hi }) = mid;
    }
    0.5 * (lo + hi)
}

/// The two-sided z boundaries of looks 1..=K_max (+inf before the first look): look k
/// rejects when |Z_k| ≥ b_k, and the chance under no difference of doing so first at look
/// k is α(t_k) − α(t_{k−1}).
pub fn boundaries(d: &Design) -> Vec<f64> {
    z_bounds(d, false).0
}

/// The boundary at look k when the budget ends there: it spends all the alpha left,
/// α − α(t_{k−1}). At K_max it is the planned boundary. Looks past K_max use K_max's.
pub fn final_boundary(d: &Design, k: usize) -> f64 {
    let k = k.clamp(1, d.k_max());
    let spent = |j: usize| if j >= k { d.alpha } else { d.spent(j) };
    z_bounds_of(k, d.alpha, spent, false).0[k - 1]
}

/// A repeated confidence interval on the log scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rci {
    /// The mean of the pair estimates.
    pub center: f64,
    pub low: f64,
    pub high: f64,
    /// The look: pairs so far.
    pub look: usize,
    /// The look's z boundary the interval was made from.
    pub level_z: f64,
}

/// The repeated confidence interval of `ds` at look k = ds.len() (see `Bounds::rci`, which
/// reuses the boundaries' recursion over many looks).
pub fn rci(ds: &[f64], d: &Design, last: bool) -> Option<Rci> {
    Bounds::new(d).rci(ds, last)
}

/// Tests, and their seeded generator (shared with `summary::ab`'s simulations).
#[cfg(test)]
pub(crate) mod tests;
