//! The recorder's sequence checks, and its records merged from two workers and summed up.

use std::time::{Duration, Instant};

use super::*;
use crate::harness::merge_all;
use crate::subscribe::result::SubscribeResult;
use crate::subscribe::summary::{finish, SubscribeFacts};

fn facts(t0: Instant) -> SubscribeFacts {
    SubscribeFacts {
        transport: "websocket",
        elapsed: Duration::from_secs(2),
        window_start: Some(t0),
        window_end: Some(t0 + Duration::from_secs(2)),
        connect_phase: Duration::from_millis(10),
        connect_phase_timed_out: false,
        threads: 2,
        pinned_cpus: None,
        interrupted: false,
        keep_examples: 1,
    }
}

#[test]
fn sequence_checks_and_merge() {
    let t0 = Instant::now();
    let ms = Duration::from_millis;
    let w = Window {
        start: t0,
        end: t0 + ms(2000),
    };
    let mut a = SubRecorder::new(0, 2, 2, 1);
    let mut b = SubRecorder::new(1, 2, 1, 1);
    a.set_window(w);
    b.set_window(w);
    a.subscribed(0, t0 - ms(50), t0 - ms(40));
    a.subscribed(1, t0 - ms(50), t0 - ms(30));
    b.subscribed(0, t0 - ms(50), t0 - ms(20));
    let v = |seq| Judged::Valid {
        published_ms: Some(1000.0),
        seq: Some(seq),
    };
    // Conn a0: 1 (before the window), 2, 5 (gap of 2), 5 (dup), 4 (out of order), 6.
    a.message(0, t0 - ms(1), 1_000_500, v(1), b"x");
    for (i, s) in [2, 5, 5, 4, 6].into_iter().enumerate() {
        a.message(0, t0 + ms(100 * i as u64), 1_001_000, v(s), b"xy");
    }
    a.message(1, t0 + ms(1500), 999_000, v(9), b"x");
    a.message(
        1,
        t0 + ms(1600),
        1_002_000,
        Judged::Invalid(MessageFailureKind::GraphqlError),
        b"{\"errors\":1}",
    );
    b.message(0, t0 + ms(10), 1_003_000, v(3), b"x");
    b.dropped(0, ConnectionFailureKind::Closed, t0 + ms(20), || {
        "bye".into()
    });
    b.dropped(0, ConnectionFailureKind::Closed, t0 + ms(3000), || {
        "late".into()
    });
    a.setup_failed(0, ConnectionFailureKind::Timeout, || "slow".into());
    a.held_series = vec![2, 2];
    b.held_series = vec![0, 0];
    let r = finish(merge_all(vec![a, b]).expect("two recorders"), facts(t0));
    assert_eq!(r.messages_total, 9);
    assert_eq!(r.messages, 8);
    assert_eq!(r.warmup_messages, 1);
    assert_eq!(
        (r.gaps, r.missed, r.duplicates, r.out_of_order),
        (1, 2, 1, 1)
    );
    assert_eq!(r.invalid_messages, 1);
    assert_eq!(r.future_published_at, 1);
    assert_eq!(r.latency.count, 7);
    assert_eq!(r.connections.subscribed, 3);
    assert_eq!(
        r.connections.dropped, 1,
        "the drop after the window is not one"
    );
    assert_eq!(r.connections.dropped_in_window, 1);
    assert_eq!(r.connections.held_at_end, 2);
    assert_eq!(r.connections.setup_failed, 1);
    assert_eq!(r.drops.get(&ConnectionFailureKind::Closed), Some(&1));
    assert_eq!(r.per_connection.connections, 3);
    assert_eq!(r.per_connection.max_per_s, 2.5);
    assert_eq!(r.per_connection.min_per_s, 0.5);
    assert_eq!(r.series.len(), 2);
    assert_eq!(r.series[0].messages, 6);
    assert_eq!(r.series[1].invalid, 1);
    assert_eq!(r.series[1].held, 2);
    assert_eq!(r.failure_examples.len(), 3);
    assert_eq!(r.failure_examples[0].kind, "graphql_error");
    assert_eq!(r.messages_per_s, 4.0);
    let json = serde_json::to_string(&r.drops).unwrap();
    assert_eq!(json, r#"{"closed":1}"#);
    let back: SubscribeResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
}
