use super::*;

/// splitmix64: a tiny seeded generator, so the simulations need no crate and repeat.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform on (0, 1).
    pub(crate) fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub(crate) fn normal(&mut self) -> f64 {
        let (u1, u2) = (self.uniform(), self.uniform());
        (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
    }

    /// Student's t with `df` degrees of freedom, scaled to unit variance (df > 2).
    pub(crate) fn t_unit(&mut self, df: usize) -> f64 {
        let chi2: f64 = (0..df).map(|_| self.normal().powi(2)).sum();
        let t = self.normal() / (chi2 / df as f64).sqrt();
        t / (df as f64 / (df as f64 - 2.0)).sqrt()
    }
}

#[test]
fn the_normal_cdf_and_quantile_match_reference_values() {
    // 0.5·erfc(−x/√2) from Python's math.erfc.
    for (x, want) in [
        (-1.0, 0.158_655_253_931_457_07),
        (-1.96, 0.024_997_895_148_220_435),
        (-3.0, 0.001_349_898_031_630_095_7),
        (-5.0, 2.866_515_718_791_946e-7),
        (-8.0, 6.220_960_574_271_819e-16),
        (-12.0, 1.776_482_112_077_702e-33),
        (-20.0, 2.753_624_118_606_331_4e-89),
        (-30.0, 4.906_713_927_148_764e-198),
        (0.5, 0.691_462_461_274_013_1),
        (2.0, 0.977_249_868_051_820_8),
    ] {
        let got = normal_cdf(x);
        assert!(
            ((got - want) / want).abs() < 1e-9,
            "Φ({x}) = {got}, not {want}"
        );
    }
    for p in [
        1e-300, 1e-30, 1e-8, 0.001, 0.024, 0.025, 0.3, 0.5, 0.7, 0.975, 0.999_999,
    ] {
        let x = normal_quantile(p);
        let back = normal_cdf(x);
        assert!(
            ((back - p) / p.min(1.0 - p)).abs() < 1e-9,
            "p {p}: {x} → {back}"
        );
    }
    assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-12);
}

#[test]
fn obrien_fleming_type_boundaries_match_the_published_ones() {
    // Lan–DeMets O'Brien–Fleming spending, 5 equally spaced looks, two-sided 5%, spent
    // per side (α/2 each) as the design does: the figures gsDesign and ldbounds print.
    let d = Design {
        alpha: 0.05,
        max_looks: 5,
        min_look: 1,
        spending: Spending::OBrienFleming,
    };
    let b = boundaries(&d);
    for (got, want) in b.iter().zip([4.877, 3.357, 2.680, 2.290, 2.031]) {
        assert!((got - want).abs() < 1e-3, "{b:?}");
    }
    // The same recursion with Lan and DeMets' two-sided function 2 − 2Φ(z_{1−α/2}/√t)
    // spends more on the early looks: its first boundary is z_{1−α/2}·√5 exactly.
    let z = -normal_quantile(0.05 / 2.0);
    let two_sided = |k: usize| 2.0 - 2.0 * normal_cdf(z / (k as f64 / 5.0).sqrt());
    let (b, _) = z_bounds_of(5, 0.05, |k| if k == 0 { 0.0 } else { two_sided(k) }, false);
    assert!((b[0] - 1.959_964 * 5f64.sqrt()).abs() < 1e-5, "{b:?}");
    for (got, want) in b.iter().zip([4.3826, 3.0997, 2.5534, 2.2538, 2.0635]) {
        assert!((got - want).abs() < 2e-4, "{b:?}");
    }
}

#[test]
fn boundaries_are_infinite_before_the_first_look_then_fall() {
    for (k_max, first) in [(5, 3), (10, 3), (20, 3), (50, 5)] {
        let d = Design {
            alpha: 0.05,
            max_looks: k_max,
            min_look: first,
            spending: Spending::OBrienFleming,
        };
        let b = boundaries(&d);
        assert_eq!(b.len(), k_max);
        assert!(b[..first - 1].iter().all(|x| x.is_infinite()), "{b:?}");
        assert!(b[first - 1..].windows(2).all(|w| w[1] < w[0]), "{b:?}");
        // The last boundary is a little above the fixed design's 1.96, never below.
        let last = b[k_max - 1];
        assert!(last > 1.96 && last < 2.25, "{b:?}");
    }
}

#[test]
fn degenerate_designs_still_give_a_boundary() {
    let one = boundaries(&Design::new(1));
    assert_eq!(one.len(), 1);
    assert!((one[0] - 1.959_964).abs() < 1e-5, "{one:?}");
    // The first look past the last: the last look is the only one, and spends it all.
    let two = boundaries(&Design::new(2));
    assert!(
        two[0].is_infinite() && (two[1] - 1.959_964).abs() < 1e-5,
        "{two:?}"
    );
    let zero = Design {
        max_looks: 0,
        min_look: 0,
        spending: Spending::OBrienFleming,
        ..Design::default()
    };
    assert_eq!(boundaries(&zero).len(), 1);
    // Before the first look a final boundary spends everything at once.
    assert!((final_boundary(&Design::new(20), 1) - 1.959_964).abs() < 1e-5);
}

/// The chance, under no difference, of first crossing at each look, recomputed on a grid
/// `step` wide for boundaries `bs`.
fn crossing(bs: &[f64], step: f64) -> Vec<f64> {
    let mut state = State::Free;
    let mut out = Vec::new();
    for (i, b) in bs.iter().enumerate() {
        out.push(state.cross(i + 1, *b).0);
        state = state.advance(i + 1, *b, step);
    }
    out
}

#[test]
fn the_spent_alpha_is_the_planned_one_on_a_finer_grid() {
    for k_max in [5, 20, 60] {
        let d = Design::new(k_max);
        let b = boundaries(&d);
        let spent = crossing(&b, STEP / 4.0);
        let mut sum = 0.0;
        for (k, s) in spent.iter().enumerate() {
            sum += s;
            let want = d.spent(k + 1);
            assert!(
                (sum - want).abs() < 1e-5,
                "K {k_max}, look {}: {sum} vs {want}",
                k + 1
            );
        }
        assert!((sum - 0.05).abs() < 1e-5);
    }
}

#[test]
fn a_final_boundary_spends_what_is_left() {
    let d = Design::new(20);
    let b = boundaries(&d);
    let bounds = Bounds::new(&d);
    for k in [3, 7, 12, 19] {
        let f = final_boundary(&d, k);
        assert!((f - bounds.last[k - 1]).abs() < 1e-9);
        assert!(f < b[k - 1], "look {k}: final {f} vs planned {}", b[k - 1]);
        let mut bs = b[..k - 1].to_vec();
        bs.push(f);
        let total: f64 = crossing(&bs, STEP / 4.0).iter().sum();
        assert!((total - 0.05).abs() < 1e-5, "look {k}: {total}");
    }
    assert!((final_boundary(&d, 20) - b[19]).abs() < 1e-12);
}

#[test]
fn a_simulated_brownian_motion_crosses_at_the_planned_rate() {
    // K_max = 10, first look at 3: P(any |Z_k| ≥ b_k) = 5% by Monte Carlo.
    let d = Design::new(10);
    let b = boundaries(&d);
    let mut rng = Rng::new(7);
    let runs = 40_000;
    let (mut any, mut first_look) = (0, 0);
    for _ in 0..runs {
        let mut s = 0.0;
        for (i, bk) in b.iter().enumerate() {
            s += rng.normal();
            if (s / ((i + 1) as f64).sqrt()).abs() >= *bk {
                any += 1;
                first_look += usize::from(i == 2);
                break;
            }
        }
    }
    let p = any as f64 / runs as f64;
    assert!((p - 0.05).abs() < 0.005, "{p}");
    // The first look spends next to nothing (α(0.3) = 0.0003): no Pocock-like early spend.
    assert!((first_look as f64 / runs as f64) < 0.002, "{first_look}");
}

#[test]
fn an_rci_is_a_t_interval_at_the_looks_boundary() {
    let d = Design::new(10);
    assert!(rci(&[0.01, 0.02], &d, false).is_none());
    assert!(rci(&[0.01, 0.02], &d, true).is_none());
    assert!(rci(&[0.01, f64::NAN, 0.0], &d, false).is_none());
    let ds = [0.01, 0.03, 0.02, 0.025, 0.015];
    let r = rci(&ds, &d, false).unwrap();
    let b = boundaries(&d)[4];
    let c = t::quantile(normal_cdf(b), 4.0);
    let se = stdev(&ds) / 5f64.sqrt();
    assert!((r.center - 0.02).abs() < 1e-12 && r.look == 5 && r.level_z == b);
    assert!((r.high - 0.02 - c * se).abs() < 1e-9 && (0.02 - r.low - c * se).abs() < 1e-9);
    // Ending the budget here spends all that is left: a narrower interval.
    let l = rci(&ds, &d, true).unwrap();
    assert!(l.high - l.low < r.high - r.low);
    // More pairs than planned: the last boundary, with the pairs' degrees of freedom.
    let many: Vec<f64> = (0..12).map(|i| 0.01 * (i % 3) as f64).collect();
    let m = rci(&many, &d, true).unwrap();
    assert!(m.level_z == boundaries(&d)[9] && m.high > m.low);
}

#[test]
fn a_tiny_tail_keeps_a_finite_multiplier() {
    // Φ(−12) is 1.8e−33: 1 − Φ(12) is 0 in floating point, the tail itself is not.
    let m = t_multiplier(12.0, 5);
    assert!(m.is_finite() && m > 100.0, "{m}");
    assert!((t::cdf(-m, 5.0) / normal_cdf(-12.0) - 1.0).abs() < 1e-6);
    assert!(t_multiplier(2.0, 0).is_infinite());
    assert_eq!(t_multiplier(-1.0, 3), 0.0);
}

#[test]
fn boundaries_for_a_hundred_looks_are_quick() {
    let start = std::time::Instant::now();
    let b = boundaries(&Design::new(100));
    let took = start.elapsed();
    println!("K_max 100: {took:?}");
    assert!(b[99] > 1.96 && b[99] < 2.3, "{:?}", &b[90..]);
    // A debug build is ~20x slower than release (where this is well under 50 ms).
    assert!(took.as_secs_f64() < 2.0, "{took:?}");
}

#[test]
fn ending_early_lowers_a_boundary_and_t_widens_every_one() {
    for (k_max, first) in [(5, 1), (5, 3), (20, 1), (20, 3)] {
        let d = Design {
            alpha: 0.05,
            max_looks: k_max,
            min_look: first,
            spending: Spending::OBrienFleming,
        };
        let b = Bounds::new(&d);
        println!("K {k_max} first {first}: z {:.4?}", b.regular);
        println!("  last z {:.4?}", b.last);
        println!("  t {:.4?}", b.t_regular);
        for k in 1..=k_max {
            let i = k - 1;
            assert!(b.last[i] <= b.regular[i] && b.last[i] >= 1.959_96, "{b:?}");
            assert!(
                b.t_regular[i] >= b.regular[i] && b.t_last[i] > b.last[i],
                "{b:?}"
            );
        }
        assert_eq!(b.last[k_max - 1], b.regular[k_max - 1]);
    }
}
