use super::*;
use crate::stats::sequential::tests::Rng;

/// The slices of one pair: `blocks` blocks of four in ABBA / BAAB order, A's rate `a` and
/// B's `b` times `noise(slice index)`.
fn slices(blocks: u64, a: f64, b: f64, mut noise: impl FnMut(u64) -> f64) -> Vec<SliceObs> {
    (0..blocks * 4)
        .map(|i| {
            let abba = (i / 4) % 2 == 0;
            let arm = match i % 4 {
                0 | 3 => usize::from(!abba),
                _ => usize::from(abba),
            };
            let base = if arm == 0 { a } else { b };
            SliceObs {
                index: i,
                arm,
                rate: base * noise(i),
            }
        })
        .collect()
}

#[test]
fn a_pair_estimate_is_the_blocks_mean_log_ratio() {
    let e = pair_estimate(&slices(10, 1000.0, 1050.0, |_| 1.0)).unwrap();
    assert!((e.d - 1.05f64.ln()).abs() < 1e-12 && e.blocks == 10 && e.within_se < 1e-12);
    // A drift linear over the slices (on the log scale, 0.5% a slice) cancels in every
    // block; a drift linear in the rate nearly does.
    let e = pair_estimate(&slices(10, 1000.0, 980.0, |i| (0.005 * i as f64).exp())).unwrap();
    assert!((e.d - 0.98f64.ln()).abs() < 1e-12, "{e:?}");
    let e = pair_estimate(&slices(10, 1000.0, 980.0, |i| 1.0 + 0.005 * i as f64)).unwrap();
    assert!((e.d - 0.98f64.ln()).abs() < 1e-4, "{e:?}");
}

#[test]
fn incomplete_blocks_drop_out() {
    let mut s = slices(6, 1000.0, 1100.0, |_| 1.0);
    // Block 0: a warm-up slice at 0 req/s. Block 1: one of B's slices missing. Block 2:
    // a slice of neither build. Block 4: an infinite rate.
    s[0].rate = 0.0;
    s.remove(5);
    s[9].arm = 2;
    s[17].rate = f64::INFINITY;
    let e = pair_estimate(&s).unwrap();
    assert_eq!(e.blocks, 2, "{e:?}");
    assert!((e.d - 1.1f64.ln()).abs() < 1e-12);
    // Block 3 alone is too few.
    assert!(pair_estimate(&s[..19]).is_none());
    let two = pair_estimate(&slices(2, 1000.0, 1100.0, |_| 1.0)).unwrap();
    assert_eq!(two.blocks, 2);
    assert!(pair_estimate(&[]).is_none());
    // A fifth slice in a block (a duplicate) spoils it as well.
    let mut dup = slices(3, 1000.0, 1100.0, |_| 1.0);
    dup.push(dup[0]);
    assert_eq!(pair_estimate(&dup).unwrap().blocks, 2);
}

fn design(k_max: usize) -> Bounds {
    Bounds::new(&Design::new(k_max))
}

#[test]
fn every_verdict_is_reachable() {
    let d = Design::new(5);
    let v = |ds: &[f64], spent: bool| decide(ds, 0.02, &d, spent);
    let eq = v(&[0.001, -0.001, 0.0], false);
    assert_eq!(
        (eq.verdict, eq.stop, eq.trips),
        (AbVerdict::Equivalent, true, false)
    );
    let slow = v(&[-0.10, -0.11, -0.09], false);
    assert_eq!(
        (slow.verdict, slow.stop, slow.trips),
        (AbVerdict::Slower, true, true)
    );
    assert!((slow.pct - 100.0 * ((-0.10f64).exp() - 1.0)).abs() < 1e-9);
    assert!(slow.low_pct < slow.pct && slow.pct < slow.high_pct && slow.high_pct < -2.0);
    let fast = v(&[0.10, 0.11, 0.09], false);
    assert_eq!((fast.verdict, fast.trips), (AbVerdict::Faster, false));
    let within = v(&[-0.010, -0.011, -0.009], false);
    assert_eq!(
        (within.verdict, within.stop),
        (AbVerdict::SlowerWithinAllowance, true)
    );
    // Not decided at look 4, decided on the last (5 = K_max): slower, reaching past the
    // allowance, so the gate trips; or 0 inside the interval.
    let ds = [-0.02, -0.03, -0.01, -0.025, -0.015];
    assert_eq!(v(&ds[..4], false).verdict, AbVerdict::Undecided);
    assert!(!v(&ds[..4], false).stop);
    let last = v(&ds, false);
    assert_eq!(
        (last.verdict, last.stop, last.trips),
        (AbVerdict::Slower, true, true)
    );
    let flat = v(&[-0.02, 0.03, -0.01, 0.025, -0.015], false);
    assert_eq!(
        (flat.verdict, flat.trips),
        (AbVerdict::NoSignificantChange, false)
    );
    let up: Vec<f64> = ds.iter().map(|x| -x).collect();
    assert_eq!(v(&up, false).verdict, AbVerdict::Faster);
    // The budget ends early: the look spends all that is left.
    assert_eq!(v(&ds[..4], true).verdict, AbVerdict::Slower);
    let few = v(&[-0.5, -0.6], true);
    assert_eq!(
        (few.verdict, few.stop, few.trips),
        (AbVerdict::TooFewPairs, true, false)
    );
    assert!((few.low_pct - few.pct).abs() < 1e-12);
    assert_eq!(v(&[-0.5, -0.6], false).verdict, AbVerdict::Undecided);
    assert_eq!(v(&[], false).pct, 0.0);
}

#[test]
fn the_allowance_decides_between_slower_and_within_it() {
    let d = Design::new(5);
    // A 1% slowdown, measured tightly: within a 2% allowance, past a 0.5% one.
    let ds = [-0.010, -0.011, -0.009, -0.0105, -0.0095];
    assert_eq!(
        decide(&ds, 0.02, &d, false).verdict,
        AbVerdict::SlowerWithinAllowance
    );
    let strict = decide(&ds, 0.005, &d, false);
    assert_eq!((strict.verdict, strict.trips), (AbVerdict::Slower, true));
    // No allowance: nothing is equivalent, a significant slowdown always trips.
    let none = decide(&[0.001, -0.001, 0.0005, -0.0005, 0.0], 0.0, &d, false);
    assert_eq!(none.verdict, AbVerdict::NoSignificantChange);
    assert_eq!(decide(&ds, 0.0, &d, false).verdict, AbVerdict::Slower);
}

#[test]
fn latency_is_judged_the_other_way_round() {
    let d = Design::new(5);
    // p99 10% higher in B: slower, and the interval stays on the latency's scale.
    let up = decide_lower_is_better(&[0.10, 0.11, 0.09], 0.02, &d, false);
    assert_eq!((up.verdict, up.trips), (AbVerdict::Slower, true));
    assert!((up.pct - 100.0 * (0.10f64.exp() - 1.0)).abs() < 1e-9);
    assert!(up.low_pct > 2.0 && up.low_pct < up.pct && up.pct < up.high_pct);
    let down = decide_lower_is_better(&[-0.10, -0.11, -0.09], 0.02, &d, false);
    assert_eq!(down.verdict, AbVerdict::Faster);
    let within = decide_lower_is_better(&[0.010, 0.011, 0.009], 0.02, &d, false);
    assert_eq!(within.verdict, AbVerdict::SlowerWithinAllowance);
}

#[test]
fn verdicts_serialize_in_snake_case_and_read_in_words() {
    let s = serde_json::to_string(&AbVerdict::SlowerWithinAllowance).unwrap();
    assert_eq!(s, "\"slower_within_allowance\"");
    assert_eq!(
        AbVerdict::NoSignificantChange.to_string(),
        "no significant change"
    );
    let d = decide(&[-0.5, -0.6], 0.02, &Design::new(5), true);
    let back: AbDecision = serde_json::from_str(&serde_json::to_string(&d).unwrap()).unwrap();
    assert_eq!(back, d);
}

/// Runs the sequential test on pairs drawn by `pair` until it stops: the verdict, whether
/// the gate tripped, and the pairs used.
fn run(bounds: &Bounds, allowance: f64, mut pair: impl FnMut() -> f64) -> (AbVerdict, bool, usize) {
    let mut ds = Vec::new();
    loop {
        ds.push(pair());
        let d = judge(&ds, allowance, bounds, false, Better::Higher);
        if d.stop {
            return (d.verdict, d.trips, d.pairs);
        }
    }
}

const RUNS: usize = 2000;

#[test]
fn same_builds_are_seldom_called_slower_though_their_processes_differ() {
    let bounds = design(20);
    let mut rng = Rng::new(11);
    let allowed = 0.025 + 3.0 * (0.025f64 * 0.975 / RUNS as f64).sqrt();
    // Each process of either build carries its own offset (3%); the pair's estimate adds
    // a little of its own noise. Normal offsets, then heavy-tailed ones (t, 3 df).
    for heavy in [false, true] {
        let mut slower = 0;
        for _ in 0..RUNS {
            let (verdict, _, _) = run(&bounds, 0.02, || {
                let mut offset = || match heavy {
                    true => 0.03 * rng.t_unit(3),
                    false => 0.03 * rng.normal(),
                };
                let (ua, ub) = (offset(), offset());
                ub - ua + 0.003 * rng.normal()
            });
            slower += usize::from(verdict == AbVerdict::Slower);
        }
        let rate = slower as f64 / RUNS as f64;
        println!("A/A, heavy tails {heavy}: slower in {rate:.4} of {RUNS} runs");
        assert!(rate <= allowed, "heavy {heavy}: {rate} > {allowed}");
    }
}

#[test]
fn a_test_on_slices_calls_most_same_build_pairs_different() {
    // The negative control: the same offsets, judged on the 200 slices of one pair as if
    // they were independent, flag a "change" most of the time.
    let mut rng = Rng::new(12);
    let runs = 300;
    let mut flagged = 0;
    for _ in 0..runs {
        let (ua, ub) = (0.03 * rng.normal(), 0.03 * rng.normal());
        let s = slices(50, ua.exp() * 1000.0, ub.exp() * 1000.0, |_| {
            (0.01 * rng.normal()).exp()
        });
        let arm =
            |k: usize| -> Vec<f64> { s.iter().filter(|x| x.arm == k).map(|x| x.rate).collect() };
        let naive = crate::stats::relative_change(&arm(0), &arm(1)).unwrap();
        flagged += usize::from(naive.significant);
        // The pair's estimate is that pair's offset, which is why pairs must be repeated.
        let e = pair_estimate(&s).unwrap();
        assert!((e.d - (ub - ua)).abs() < 6.0 * e.within_se + 1e-9, "{e:?}");
    }
    let rate = flagged as f64 / runs as f64;
    println!("naive slice test on A/A pairs: flagged {rate:.3}");
    assert!(rate > 0.2, "{rate}");
}

#[test]
fn a_five_percent_slowdown_trips_the_gate_and_no_change_is_equivalent() {
    let bounds = design(20);
    let mut rng = Rng::new(13);
    let theta = -(1.05f64.ln());
    let (mut trips, mut pairs) = (0, 0);
    for _ in 0..RUNS {
        let (verdict, tripped, k) = run(&bounds, 0.02, || theta + 0.02 * rng.normal());
        trips += usize::from(verdict == AbVerdict::Slower && tripped);
        pairs += k;
    }
    let (power, mean_pairs) = (trips as f64 / RUNS as f64, pairs as f64 / RUNS as f64);
    println!("θ = −ln 1.05, σ_d 2%: trips in {power:.4}, mean pairs {mean_pairs:.2}");
    assert!(power >= 0.95 && mean_pairs < 20.0, "{power} {mean_pairs}");

    let (mut equivalent, mut pairs) = (0, 0);
    for _ in 0..RUNS {
        let (verdict, _, k) = run(&bounds, 0.02, || 0.01 * rng.normal());
        equivalent += usize::from(verdict == AbVerdict::Equivalent);
        pairs += k;
    }
    let (share, mean_pairs) = (equivalent as f64 / RUNS as f64, pairs as f64 / RUNS as f64);
    println!("θ = 0, σ_d 1%: equivalent in {share:.4}, mean pairs {mean_pairs:.2}");
    assert!(share >= 0.8 && mean_pairs < 20.0, "{share} {mean_pairs}");
}
