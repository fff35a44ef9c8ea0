use super::*;
use crate::plan::FOREIGN_LIMIT_PCT;

const STAT: &str = "cpu  900 10 300 5000 20 5 7 3 0 0
cpu0 400 5 100 2500 10 2 3 1 0 0
cpu1 500 5 200 2500 10 3 4 2 0 0
intr 12345
";

#[test]
fn per_cpu_counters_are_read() {
    let m = parse_stat(STAT);
    assert_eq!(m.len(), 2, "the aggregate line is not a CPU");
    assert_eq!(
        m[&0],
        CpuTicks {
            busy: 505,
            steal: 1,
            softirq: 3
        }
    );
    assert_eq!(
        m[&1],
        CpuTicks {
            busy: 705,
            steal: 2,
            softirq: 4
        }
    );
}

#[test]
fn foreign_time_is_busy_time_the_run_did_not_spend() {
    let t = procfs::clock_ticks() as u64;
    let snap = |busy: [u64; 2], steal: u64, own: u64, at: Instant| Snapshot {
        at,
        cpus: Some(
            [0, 1]
                .iter()
                .map(|&c| {
                    (
                        c,
                        CpuTicks {
                            busy: busy[c],
                            steal,
                            // CPU 1 serves the softirqs: a tenth of the CPU a second.
                            softirq: if c == 1 { busy[c] / 10 } else { 0 },
                        },
                    )
                })
                .collect(),
        ),
        own,
    };
    let t0 = Instant::now();
    let a = snap([0, 0], 0, 0, t0);
    // One second: both CPUs fully busy (2 CPU-s), the run spent 1.5 of them.
    let b = snap([t, t], t / 10, t + t / 2, t0 + Duration::from_secs(1));
    let n = between(&a, &b, &[0, 1]);
    assert_eq!(n.foreign_cpu_pct, Some(50.0));
    assert_eq!(n.steal_pct, Some(20.0), "10% on each of two CPUs");
    assert_eq!(n.softirq_pct, Some(vec![0.0, 10.0]), "each CPU's own share");
    let mut judge = Judge::new(FOREIGN_LIMIT_PCT, STEAL_LIMIT_PCT);
    assert!(matches!(judge.judge(&n), Verdict::Burst(w) if w.contains("other processes used 50%")));
    // Unreadable counters are unmeasured, not zero.
    let blind = Snapshot {
        cpus: None,
        ..b.clone()
    };
    let n = between(&a, &blind, &[0, 1]);
    assert_eq!((n.foreign_cpu_pct, n.steal_pct), (None, None));
    assert_eq!(n.softirq_pct, None);
    assert_eq!(Judge::new(10.0, 5.0).judge(&n), Verdict::Clean);
}

fn reading(steal: f64) -> NoiseInfo {
    NoiseInfo {
        cpus: vec![0, 1],
        foreign_cpu_pct: Some(0.0),
        steal_pct: Some(steal),
        freq_mhz: None,
        softirq_pct: None,
        injected_steal_pct: None,
    }
}

#[test]
fn a_burst_is_measured_again_and_a_steady_level_is_not() {
    let mut j = Judge::new(10.0, 5.0);
    // A quiet machine: 1% steal, then a burst of 30%.
    assert_eq!(j.judge(&reading(1.0)), Verdict::Clean);
    assert!(matches!(j.judge(&reading(30.0)), Verdict::Burst(w) if w.contains("stole 30%")));
    // A machine whose hypervisor takes 20% all the time (the probe saw it): its trials
    // count, named; a reading of 45% is a burst on top of it.
    let mut j = Judge::new(10.0, 5.0);
    j.seed(&reading(20.0));
    for x in [22.0, 18.0, 25.0, 19.0] {
        assert!(
            matches!(j.judge(&reading(x)), Verdict::Steady(w) if w.contains("steady level, 2")),
            "{x}"
        );
    }
    assert!(matches!(j.judge(&reading(45.0)), Verdict::Burst(_)));
    // Without a probe, the first noisy window of a steady machine is a burst; once
    // two have been seen the level is theirs.
    let mut j = Judge::new(10.0, 5.0);
    assert!(matches!(j.judge(&reading(20.0)), Verdict::Burst(_)));
    assert!(matches!(j.judge(&reading(21.0)), Verdict::Steady(_)));
}

#[test]
fn an_injection_cycles_through_its_percentages() {
    assert_eq!(parse_injection("40,0,0"), Some(vec![40.0, 0.0, 0.0]));
    assert_eq!(parse_injection(" 20% "), Some(vec![20.0]));
    assert_eq!(parse_injection("x,-3"), None);
    assert_eq!(parse_injection(""), None);
}

#[test]
fn the_run_itself_is_counted_as_its_own() {
    // gqlbench alone, busy: its own time grows with the work it does.
    let a = own_ticks();
    let t0 = Instant::now();
    let mut x = 0u64;
    while t0.elapsed() < Duration::from_millis(300) {
        x = x.wrapping_add(std::hint::black_box(1));
    }
    assert!(own_ticks() > a, "{x}");
}

#[test]
fn the_canary_times_every_cpu_it_may_use() {
    let cpus = crate::sys::cpus::allowed_cpus();
    let ms = canary(&cpus[..1]);
    assert!(ms[0].is_some_and(|m| m > 0.1 && m < 2000.0), "{ms:?}");
    assert_eq!(canary(&[1 << 20]), vec![None], "a CPU that does not exist");
}
