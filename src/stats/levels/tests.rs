use super::*;
use crate::stats::sequential::tests::Rng;

/// `j` rounds of `k` blocks: each round's own offset sd `tau`, each block's noise sd
/// `sigma`, around `d`.
fn rounds(rng: &mut Rng, j: usize, k: usize, d: f64, tau: f64, sigma: f64) -> Vec<Vec<f64>> {
    (0..j)
        .map(|_| {
            let off = tau * rng.normal();
            (0..k).map(|_| d + off + sigma * rng.normal()).collect()
        })
        .collect()
}

#[test]
fn the_levels_are_kalibera_and_jones_variances() {
    let r = vec![vec![1.0, 3.0], vec![5.0, 7.0], vec![9.0, 11.0]];
    let lv = levels(&r);
    assert_eq!((lv.rounds, lv.blocks), (3, 6));
    // Within: each round (±1)² twice, 3 rounds, 3 degrees of freedom.
    assert_eq!(lv.s1, Some(2.0));
    // Round means 2, 6, 10: variance 16.
    assert_eq!(lv.s2, Some(16.0));
    assert_eq!(lv.t2, Some(16.0 - 2.0 / 2.0));
    // F = 2·16/2 = 16 on (2, 3): p ≈ 0.025.
    assert!((lv.f_p.unwrap() - 0.0251).abs() < 1e-3, "{lv:?}");
    let e = estimate(&r).unwrap();
    assert_eq!(e.unit, Unit::Rounds);
    assert_eq!((e.n, e.df), (3, 2.0));
    assert!((e.center - 6.0).abs() < 1e-12 && (e.se - 4.0 / 3f64.sqrt()).abs() < 1e-12);
}

#[test]
fn blocks_are_the_unit_when_the_rounds_add_nothing_and_rounds_when_they_do() {
    let mut rng = Rng::new(7);
    let (mut blocks, mut rounds_unit) = (0, 0);
    for _ in 0..400 {
        let e = estimate(&rounds(&mut rng, 4, 6, 0.0, 0.0, 0.03)).unwrap();
        match e.unit {
            Unit::Blocks | Unit::BlockPairs => blocks += 1,
            Unit::Rounds | Unit::PooledRounds => rounds_unit += 1,
        }
    }
    // With no round term the F test's p is above 0.5 about half the time, and the rounds'
    // own scatter then and again exceeds the pooled blocks'.
    assert!(blocks > 120, "pooled {blocks} of 400");
    assert!(
        rounds_unit > 40,
        "a preliminary test still says rounds now and then"
    );
    // A round term twice the blocks' noise: rounds, nearly always.
    let mut pooled = 0;
    for _ in 0..400 {
        let e = estimate(&rounds(&mut rng, 4, 6, 0.0, 0.06, 0.03)).unwrap();
        if e.unit != Unit::Rounds {
            pooled += 1;
        }
    }
    assert!(pooled < 20, "pooled {pooled} of 400 despite a round term");
}

#[test]
fn one_figure_a_round_is_a_round_and_one_round_says_nothing_of_the_rounds() {
    let e = estimate(&[vec![0.01], vec![0.03], vec![0.02]]).unwrap();
    assert_eq!((e.unit, e.n, e.df), (Unit::Rounds, 3, 2.0));
    assert!(e.levels.s1.is_none() && e.levels.f_p.is_none());
    assert!(estimate(&[vec![0.01]]).is_none());
    assert!(estimate(&[]).is_none());
    // One round of blocks: its blocks, but the F test has nothing to test.
    let one = estimate(&[vec![0.01, 0.02, 0.03]]).unwrap();
    assert_eq!(one.levels.rounds, 1);
    assert!(one.levels.f_p.is_none());
}

#[test]
fn correlated_neighbours_are_batched_in_pairs() {
    // Within each round a slow wave: neighbours alike (lag-1 well above 0.2), the rounds
    // alike on average.
    let wave: Vec<f64> = (0..8).map(|i| 0.02 * ((i as f64) * 0.5).sin()).collect();
    let r: Vec<Vec<f64>> = (0..4)
        .map(|j| wave.iter().map(|x| x + 0.0001 * j as f64).collect())
        .collect();
    let lv = levels(&r);
    assert!(lv.lag1.unwrap() > LAG1_LIMIT, "{lv:?}");
    let e = estimate(&r).unwrap();
    assert_ne!(e.unit, Unit::Blocks, "{e:?}");
}

#[test]
fn pooling_keeps_the_intervals_coverage_near_nominal() {
    // The interval of the unit chosen, at the fixed-sample 95% t: with a modest round term
    // (half the blocks' noise) the preliminary test's pooling costs a little coverage,
    // not much (Bancroft): at least 90% over 2,000 repetitions.
    let mut rng = Rng::new(11);
    let mut covered = 0;
    let n = 2000;
    for _ in 0..n {
        let e = estimate(&rounds(&mut rng, 4, 5, 0.0, 0.01, 0.02)).unwrap();
        let h = crate::stats::t_crit(e.df) * e.se;
        if e.center.abs() <= h {
            covered += 1;
        }
    }
    assert!(covered as f64 / n as f64 > 0.90, "covered {covered} of {n}");
}

#[test]
fn rounds_are_as_long_as_their_cost_and_the_round_term_make_worth_it() {
    let lv = |s1: f64, t2: f64| Levels {
        rounds: 3,
        blocks: 9,
        s1: Some(s1),
        s2: None,
        t2: Some(t2),
        f_p: None,
        lag1: None,
    };
    // A new round costs 4 blocks; blocks vary 9× the round term: √(4·9) = 6 blocks.
    assert_eq!(blocks_per_round(&[lv(9.0, 1.0)], 4.0, 1.0, 2, 8), 6);
    // No round term: as long as allowed. A large one: the shortest.
    assert_eq!(blocks_per_round(&[lv(9.0, -1.0)], 4.0, 1.0, 2, 8), 8);
    assert_eq!(blocks_per_round(&[lv(1.0, 4.0)], 4.0, 1.0, 2, 8), 2);
    // Nothing known yet: the least.
    assert_eq!(blocks_per_round(&[], 4.0, 1.0, 2, 8), 2);
}
