use super::*;

fn sample(start: u32, ok: bool, ready: f64) -> ColdStartSample {
    ColdStartSample {
        start,
        outcome: if ok {
            StartOutcome::Ok
        } else {
            StartOutcome::Failed("never ready".into())
        },
        ready_s: ok.then_some(ready),
        first_request_s: ok.then_some(0.01),
        second_request_s: ok.then_some(0.002),
        rss_at_ready_bytes: ok.then_some(50 << 20),
        rss_after_first_bytes: ok.then_some(52 << 20),
        problem: (!ok).then(|| "not ready after 30s".into()),
    }
}

#[test]
fn failed_starts_are_counted_not_averaged() {
    let s = vec![
        sample(1, true, 0.5),
        sample(2, false, 0.0),
        sample(3, true, 0.7),
        sample(4, true, 0.6),
    ];
    let x = summarize(&s).unwrap();
    assert_eq!((x.starts, x.ok), (4, 3));
    assert_eq!(x.ready_s.n, 3);
    assert!((x.ready_s.median - 0.6).abs() < 1e-9);
    assert!(summarize(&[sample(1, false, 0.0)]).is_none());
}
