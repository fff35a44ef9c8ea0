//! Open-model runs: intended send times, coordinated-omission correction, unsent requests.

mod common;

use std::time::Duration;

use common::*;
use gqlbench_engine::*;

fn open(rate: f64, max_connections: u32) -> Schedule {
    Schedule::Open {
        rate: Stages::constant(rate),
        max_connections,
    }
}

#[test]
fn sends_exactly_the_intended_requests() {
    let s = start(Mode::Ok(HELLO.into()));
    let p = plan(s.endpoint(), open(500.0, 8), for_duration(1000));
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.model, "open");
    assert_eq!(r.intended_requests, 500);
    assert_eq!(r.requests + r.unsent, 500);
    assert_eq!(r.ok, r.requests);
    let lag = r.send_lag.clone().unwrap();
    eprintln!("send lag: {lag:?}, late {}", r.late);
    assert_eq!(lag.count, r.requests);
    assert!(r.uncorrected_latency.unwrap().count == r.requests);
    assert!(
        decode_hist(r.send_lag_hist.as_ref().unwrap())
            .unwrap()
            .len()
            == r.requests
    );
}

#[test]
fn max_requests_in_open_model_is_exact() {
    let s = start(Mode::Ok(HELLO.into()));
    let mut p = plan(s.endpoint(), open(2000.0, 8), for_requests(300));
    p.threads = 2;
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.requests, 300);
    assert_eq!(r.ok, 300);
    assert_eq!(s.requests(), 300);
    // 300 requests at 2000/s take about 150 ms.
    assert!(r.elapsed_s > 0.1 && r.elapsed_s < 1.0, "{}", r.elapsed_s);
}

#[test]
fn a_stalling_server_shows_in_corrected_latency_only() {
    let s = start(Mode::Stall {
        body: HELLO.into(),
        period: Duration::from_secs(1),
        stall: Duration::from_millis(200),
    });
    // One connection: requests due during a stall queue behind it.
    let p = plan(s.endpoint(), open(200.0, 1), for_duration(3000));
    let r = run(&p, &Control::default()).unwrap();
    let unc = r.uncorrected_latency.clone().unwrap();
    let lag = r.send_lag.clone().unwrap();
    eprintln!(
        "corrected {:?}\nuncorrected {unc:?}\nlag {lag:?}",
        r.latency
    );
    assert_eq!(r.failed, 0);
    assert!(
        r.latency.p99_us > 100_000,
        "corrected p99 {}",
        r.latency.p99_us
    );
    assert!(r.latency.max_us > 150_000);
    assert!(unc.p99_us < 50_000, "uncorrected p99 {}", unc.p99_us);
    assert!(lag.max_us > 100_000);
    assert!(r.late > 30, "late {}", r.late);
    // The stalls are visible in the per-second series.
    assert!(
        r.series.iter().filter(|s| s.p99_us > 100_000).count() >= 2,
        "{:?}",
        r.series
    );
}

#[test]
fn requests_that_cannot_be_sent_are_counted_unsent() {
    // The server never answers and there is one connection: one request is sent, the
    // rest of the window's 100 intended requests cannot be.
    let s = start(Mode::Silent);
    let mut p = plan(s.endpoint(), open(100.0, 1), for_duration(1000));
    p.timeout = Duration::from_secs(5);
    let t0 = std::time::Instant::now();
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.intended_requests, 100);
    assert_eq!((r.requests, r.unanswered), (0, 1));
    assert_eq!(r.unsent, 99);
    assert_eq!(r.failures.get(&FailureKind::Timeout), Some(&1));
    // The one in-flight request is allowed its timeout, no more.
    assert!(t0.elapsed() < Duration::from_millis(6500));
}

#[test]
fn ramped_rate_follows_the_stages() {
    let s = start(Mode::Ok(HELLO.into()));
    let rate = Stages {
        start: 0.0,
        stages: vec![Stage {
            duration: Duration::from_secs(1),
            target: 400.0,
        }],
    };
    let p = plan(
        s.endpoint(),
        Schedule::Open {
            rate,
            max_connections: 8,
        },
        for_duration(2000),
    );
    let r = run(&p, &Control::default()).unwrap();
    // Integral: 200 in the ramp second, 400 in the next.
    assert_eq!(r.intended_requests, 600);
    assert_eq!(r.series.len(), 2);
    assert!(r.series[0].requests.abs_diff(200) <= 1, "{:?}", r.series);
    assert!(r.series[1].requests + r.unsent >= 399, "{:?}", r.series);
}

#[test]
fn cancel_works_in_open_model() {
    let s = start(Mode::Ok(HELLO.into()));
    let p = plan(s.endpoint(), open(200.0, 4), for_duration(30_000));
    let control = Control::default();
    let c = control.cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        c.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let t0 = std::time::Instant::now();
    let r = run(&p, &control).unwrap();
    assert!(t0.elapsed() < Duration::from_secs(3));
    assert!(r.interrupted);
    assert!(r.requests > 20);
}
