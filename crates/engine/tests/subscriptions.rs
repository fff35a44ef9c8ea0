//! Subscription load (WebSocket graphql-transport-ws and SSE) against the in-process
//! reference publisher, well-behaved and misbehaving. Loopback only; each run is about a
//! second.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use gqlbench_engine::*;
use gqlbench_servers::publisher::{DropStyle, Misbehavior, Publisher, PublisherOptions};

const TICKS: &str = "subscription { ticks { seq publishedAt } }";

fn publisher(rate: f64, misbehavior: Misbehavior) -> Publisher {
    Publisher::start(PublisherOptions {
        rate,
        misbehavior,
        ..PublisherOptions::default()
    })
    .unwrap()
}

fn plan(p: &Publisher, transport: SubscribeTransport, connections: u32) -> SubscribePlan {
    let mut plan = SubscribePlan::new(p.endpoint(), transport, TICKS);
    plan.connections = connections;
    plan.connect_rate = 2000.0;
    plan.ack_timeout = Duration::from_secs(1);
    plan.first_message_timeout = Some(Duration::from_secs(1));
    plan.warmup = Duration::from_millis(100);
    plan.hold = Duration::from_secs(1);
    plan.published_at_pointer = Some("/data/ticks/publishedAt".into());
    plan.seq_pointer = Some("/data/ticks/seq".into());
    plan
}

fn run(plan: &SubscribePlan) -> (SubscribeResult, Duration) {
    let t0 = Instant::now();
    let r = run_subscriptions(plan, &SubscribeControl::default()).unwrap();
    (r, t0.elapsed())
}

fn both() -> [SubscribeTransport; 2] {
    [SubscribeTransport::WebSocket, SubscribeTransport::Sse]
}

#[test]
fn happy_path_counts_every_message_with_latency_and_no_gaps() {
    for transport in both() {
        let p = publisher(50.0, Misbehavior::default());
        let (r, wall) = run(&plan(&p, transport, 20));
        let c = &r.connections;
        assert_eq!(r.transport, transport.as_str());
        assert_eq!(
            (c.attempted, c.connected, c.subscribed, c.held_at_end),
            (20, 20, 20, 20),
            "{transport:?}: {:?}",
            r.failure_examples
        );
        assert_eq!((c.dropped, c.setup_failed, c.pending_at_end), (0, 0, 0));
        assert!(!r.connect_phase_timed_out && !r.interrupted);
        assert_eq!(r.connect_time.count, 20);
        // 20 subscribers × 50 messages/s × 1 s, fewer when the machine is starved (a CI
        // runner whose hypervisor takes its CPU delivered 440): every subscriber got some,
        // and never more than were published.
        assert!(
            (200..=1100).contains(&r.messages),
            "{transport:?}: {} messages",
            r.messages
        );
        assert_eq!(r.invalid_messages, 0, "{:?}", r.failure_examples);
        assert_eq!(
            (r.missed, r.gaps, r.duplicates, r.out_of_order),
            (0, 0, 0, 0)
        );
        assert_eq!(r.latency.count, r.messages);
        assert_eq!(decode_hist(&r.latency_hist).unwrap().len(), r.messages);
        assert!(r.latency.max_us < 1_000_000, "{:?}", r.latency);
        assert_eq!(r.future_published_at, 0);
        assert!(r.messages_total >= r.messages + r.warmup_messages);
        assert_eq!(r.per_connection.connections, 20);
        assert!(r.per_connection.min_per_s >= 30.0, "{:?}", r.per_connection);
        assert!(r.messages_per_s > 0.0 && r.bytes_received > 0);
        assert_eq!(r.series.len(), 1);
        assert_eq!(r.series[0].held, 20);
        assert_eq!(r.series[0].messages, r.messages);
        assert!(r.generator_cpu_s > 0.0 && r.generator_cpu_s < 1.0);
        assert!(wall < Duration::from_secs(3), "{wall:?}");
        assert!(p.stats().messages >= r.messages);
        assert_eq!(r.failures(), 0);
        // The result is one serde model, like LoadResult.
        let back: SubscribeResult =
            serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back.messages, r.messages);
    }
}

#[test]
fn two_workers_share_the_connections_and_the_window() {
    let p = publisher(50.0, Misbehavior::default());
    for transport in both() {
        let mut pl = plan(&p, transport, 11);
        pl.threads = 2;
        pl.hold = Duration::from_millis(500);
        let cpus = test_cpus();
        pl.cpus = Some(cpus.clone());
        let (r, _) = run(&pl);
        assert_eq!(r.threads, 2);
        assert_eq!(r.connections.held_at_end, 11, "{transport:?}: {r:?}");
        assert_eq!(r.per_connection.connections, 11);
        assert!(r.per_connection.min_per_s >= 30.0, "{:?}", r.per_connection);
        assert_eq!(r.missed, 0);
        assert_eq!(r.connect_time.count, 11);
        assert_eq!(r.pinned_cpus, Some(cpus));
    }
}

/// CPUs to pin two workers to: the first two, or the only one.
fn test_cpus() -> Vec<usize> {
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    if n >= 2 {
        vec![0, 1]
    } else {
        vec![0]
    }
}

fn drops(
    transport: SubscribeTransport,
    style: DropStyle,
    kind: ConnectionFailureKind,
    detail: &str,
) {
    let p = publisher(
        50.0,
        Misbehavior {
            drop_after: Some(Duration::from_millis(250)),
            drop_style: style,
            ..Misbehavior::default()
        },
    );
    let mut pl = plan(&p, transport, 5);
    pl.warmup = Duration::ZERO;
    pl.hold = Duration::from_millis(500);
    let (r, wall) = run(&pl);
    let what = format!("{transport:?} {style:?}: {r:?}");
    assert_eq!(r.connections.subscribed, 5, "{what}");
    assert_eq!(r.connections.dropped, 5, "{what}");
    assert_eq!(r.connections.dropped_in_window, 5, "{what}");
    assert_eq!(r.drops.get(&kind), Some(&5), "{what}");
    assert_eq!(r.connections.held_at_end, 0, "{what}");
    assert!(r.messages > 0, "{what}");
    assert_eq!(r.series.last().map(|s| s.held), Some(0), "{what}");
    // Dropped half-way: well under the publisher's 50 per second.
    assert!(r.per_connection.max_per_s < 40.0, "{what}");
    let ex = r
        .failure_examples
        .iter()
        .find(|e| e.stage == FailureStage::Drop)
        .expect("an example of the drop");
    assert!(ex.detail.contains(detail), "{what}");
    assert!(wall < Duration::from_secs(2), "{wall:?}");
}

#[test]
fn websocket_drops_are_counted_by_kind_and_the_run_ends() {
    use ConnectionFailureKind::*;
    let ws = SubscribeTransport::WebSocket;
    drops(ws, DropStyle::CloseFrame, Closed, "close frame 1001");
    drops(ws, DropStyle::Eof, Closed, "without close frame");
    drops(ws, DropStyle::Reset, Reset, "reset");
}

#[test]
fn sse_drops_are_counted_by_kind_and_the_run_ends() {
    use ConnectionFailureKind::*;
    let sse = SubscribeTransport::Sse;
    drops(sse, DropStyle::CloseFrame, Closed, "ended the event stream");
    drops(sse, DropStyle::Eof, Closed, "closed by the server");
    drops(sse, DropStyle::Reset, Reset, "reset");
}

#[test]
fn a_server_that_never_acks_times_out_within_the_bound() {
    for transport in both() {
        let p = publisher(
            50.0,
            Misbehavior {
                never_ack: true,
                ..Misbehavior::default()
            },
        );
        let mut pl = plan(&p, transport, 4);
        pl.ack_timeout = Duration::from_millis(300);
        pl.warmup = Duration::ZERO;
        pl.hold = Duration::from_millis(300);
        let (r, wall) = run(&pl);
        assert_eq!(
            r.setup_failures.get(&ConnectionFailureKind::Timeout),
            Some(&4),
            "{transport:?}: {r:?}"
        );
        assert_eq!(r.connections.subscribed, 0);
        assert_eq!(r.connections.connected, 4);
        assert_eq!(r.messages, 0);
        assert!(!r.connect_phase_timed_out);
        assert!(
            r.connect_phase_s >= 0.29 && r.connect_phase_s < 1.0,
            "{}",
            r.connect_phase_s
        );
        let detail = &r.failure_examples[0].detail;
        let want = match transport {
            SubscribeTransport::WebSocket => "no connection_ack within 300ms",
            SubscribeTransport::Sse => "no response within 300ms",
        };
        assert_eq!(detail, want);
        // Connect phase (300 ms) + window (300 ms) + small margins.
        assert!(wall < Duration::from_millis(1500), "{wall:?}");
    }
}

#[test]
fn a_refused_subprotocol_or_upgrade_is_a_setup_failure() {
    let p = publisher(
        50.0,
        Misbehavior {
            refuse_subprotocol: true,
            ..Misbehavior::default()
        },
    );
    let mut pl = plan(&p, SubscribeTransport::WebSocket, 3);
    pl.hold = Duration::from_millis(200);
    let (r, _) = run(&pl);
    assert_eq!(
        r.setup_failures.get(&ConnectionFailureKind::Subprotocol),
        Some(&3),
        "{r:?}"
    );
    assert!(r.failure_examples[0]
        .detail
        .contains("graphql-transport-ws"));
    assert_eq!(r.connections.connected, 0);

    // An upgrade answered with 404 (wrong path), for both transports.
    let p = publisher(50.0, Misbehavior::default());
    for transport in both() {
        let mut pl = plan(&p, transport, 2);
        pl.endpoint.path = "/nope".into();
        pl.hold = Duration::from_millis(200);
        let (r, _) = run(&pl);
        assert_eq!(
            r.setup_failures.get(&ConnectionFailureKind::Handshake),
            Some(&2),
            "{transport:?}: {r:?}"
        );
        assert!(r.failure_examples[0].detail.contains("404"), "{r:?}");
    }
}

#[test]
fn nothing_listening_is_a_connect_failure() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let ep = Endpoint::from_url(&format!("ws://127.0.0.1:{port}/graphql")).unwrap();
    let mut pl = SubscribePlan::new(ep, SubscribeTransport::WebSocket, TICKS);
    pl.connections = 3;
    pl.hold = Duration::from_millis(200);
    let (r, wall) = run(&pl);
    assert_eq!(
        r.setup_failures.get(&ConnectionFailureKind::Connect),
        Some(&3)
    );
    assert_eq!(r.connections.connected, 0);
    assert!(wall < Duration::from_secs(1), "{wall:?}");
}

#[test]
fn error_and_complete_messages_end_subscriptions_and_are_counted() {
    let p = publisher(
        50.0,
        Misbehavior {
            error_on_subscribe: true,
            ..Misbehavior::default()
        },
    );
    let mut pl = plan(&p, SubscribeTransport::WebSocket, 3);
    pl.hold = Duration::from_millis(300);
    let (r, _) = run(&pl);
    assert_eq!(r.connections.subscribed, 3, "the ack came: {r:?}");
    assert_eq!(
        r.drops.get(&ConnectionFailureKind::ErrorMessage),
        Some(&3),
        "{r:?}"
    );
    assert!(r.failure_examples[0].detail.contains("refuse"));
    // SSE refuses with a 400 and GraphQL errors before any stream.
    let (r, _) = run(&{
        let mut pl = plan(&p, SubscribeTransport::Sse, 3);
        pl.hold = Duration::from_millis(300);
        pl
    });
    assert_eq!(
        r.setup_failures.get(&ConnectionFailureKind::Handshake),
        Some(&3),
        "{r:?}"
    );
    assert!(r.failure_examples[0].detail.contains("HTTP 400"));

    for transport in both() {
        let p = publisher(
            50.0,
            Misbehavior {
                complete_after: Some(5),
                ..Misbehavior::default()
            },
        );
        let mut pl = plan(&p, transport, 3);
        pl.warmup = Duration::ZERO;
        pl.hold = Duration::from_millis(500);
        let (r, _) = run(&pl);
        assert_eq!(
            r.drops.get(&ConnectionFailureKind::Complete),
            Some(&3),
            "{transport:?}: {r:?}"
        );
        assert!(r.messages_total == 15, "{transport:?}: {r:?}");
    }
}

#[test]
fn pings_are_answered_and_silence_is_a_no_message_failure() {
    // graphql-ws `ping` messages and WebSocket ping frames from the server are answered
    // and cost the subscription nothing.
    let p = publisher(
        50.0,
        Misbehavior {
            ping: true,
            ..Misbehavior::default()
        },
    );
    let mut pl = plan(&p, SubscribeTransport::WebSocket, 4);
    pl.hold = Duration::from_millis(300);
    let (r, _) = run(&pl);
    assert_eq!(r.connections.held_at_end, 4, "{r:?}");
    assert_eq!(r.failures(), 0, "{r:?}");
    assert!(r.messages > 0);
    // The pongs travel while the run ends: give the publisher a moment to read them.
    let t0 = Instant::now();
    while p.stats().pongs < 4 && t0.elapsed() < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(p.stats().pongs, 4);

    // A publisher too slow for the first-message timeout.
    for transport in both() {
        let p = publisher(0.2, Misbehavior::default());
        let mut pl = plan(&p, transport, 3);
        pl.first_message_timeout = Some(Duration::from_millis(200));
        pl.warmup = Duration::ZERO;
        pl.hold = Duration::from_millis(500);
        let (r, _) = run(&pl);
        assert_eq!(
            r.drops.get(&ConnectionFailureKind::NoMessage),
            Some(&3),
            "{transport:?}: {r:?}"
        );
        assert_eq!(r.connections.held_at_end, 0);
        assert!(r.failure_examples[0].detail.contains("200ms"));
    }
}

#[test]
fn messages_with_errors_or_missing_fields_are_invalid() {
    for transport in both() {
        let p = publisher(
            50.0,
            Misbehavior {
                errors_in_payload: true,
                ..Misbehavior::default()
            },
        );
        let mut pl = plan(&p, transport, 3);
        pl.hold = Duration::from_millis(500);
        let (r, _) = run(&pl);
        assert!(r.messages > 0);
        assert_eq!(r.invalid_messages, r.messages, "{transport:?}: {r:?}");
        assert_eq!(
            r.message_failures.get(&MessageFailureKind::GraphqlError),
            Some(&r.messages)
        );
        assert_eq!(r.latency.count, 0);
        assert_eq!(r.connections.held_at_end, 3, "invalid messages do not drop");
        assert!(r.failure_examples[0].detail.contains("told to fail"));
        assert_eq!(r.series[0].invalid, r.messages);
    }
    // A pointer to a field the server does not send.
    let p = publisher(50.0, Misbehavior::default());
    let mut pl = plan(&p, SubscribeTransport::WebSocket, 2);
    pl.hold = Duration::from_millis(300);
    pl.seq_pointer = Some("/data/ticks/sequence".into());
    let (r, _) = run(&pl);
    assert!(r.messages > 0);
    assert_eq!(
        r.message_failures.get(&MessageFailureKind::MissingField),
        Some(&r.messages)
    );
}

#[test]
fn skipped_sequence_numbers_are_counted_as_missed() {
    for transport in both() {
        let p = publisher(
            50.0,
            Misbehavior {
                skip_every: Some(3),
                ..Misbehavior::default()
            },
        );
        let mut pl = plan(&p, transport, 4);
        pl.hold = Duration::from_millis(800);
        let (r, _) = run(&pl);
        // Every third number is skipped: one missed per two received, one gap each.
        assert!(r.messages > 40, "{r:?}");
        let expected = r.messages as f64 / 2.0;
        assert!(
            (r.missed as f64 - expected).abs() <= 4.0 * 2.0,
            "{transport:?}: missed {} of {} received",
            r.missed,
            r.messages
        );
        assert_eq!(r.gaps, r.missed);
        assert_eq!((r.duplicates, r.out_of_order), (0, 0));
        assert_eq!(r.invalid_messages, 0);
    }
}

#[test]
fn cancel_stops_promptly_with_a_partial_result() {
    let p = publisher(50.0, Misbehavior::default());
    let mut pl = plan(&p, SubscribeTransport::WebSocket, 10);
    pl.hold = Duration::from_secs(30);
    let control = SubscribeControl::default();
    let cancel = control.cancel.clone();
    let live = control.live.clone();
    let t0 = Instant::now();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(live.phase(), SubscribePhase::Measure);
        assert_eq!(live.subscribed(), 10);
        cancel.store(true, Ordering::Relaxed);
    });
    let r = run_subscriptions(&pl, &control).unwrap();
    let wall = t0.elapsed();
    stopper.join().unwrap();
    assert!(wall < Duration::from_millis(1000), "{wall:?}");
    assert!(r.interrupted);
    assert!(r.elapsed_s > 0.1 && r.elapsed_s < 0.6, "{}", r.elapsed_s);
    assert_eq!(r.connections.held_at_end, 10);
    assert!(r.messages > 0);
    assert_eq!(control.live.phase(), SubscribePhase::Done);
    assert!(control.live.messages() > 0);
}

#[test]
fn invalid_plans_are_refused() {
    let p = publisher(10.0, Misbehavior::default());
    let base = plan(&p, SubscribeTransport::WebSocket, 1);
    let bad = |f: &dyn Fn(&mut SubscribePlan)| {
        let mut pl = base.clone();
        f(&mut pl);
        run_subscriptions(&pl, &SubscribeControl::default()).is_err()
    };
    assert!(bad(&|p| p.connections = 0));
    assert!(bad(&|p| p.connect_rate = 0.0));
    assert!(bad(&|p| p.hold = Duration::ZERO));
    assert!(bad(&|p| p.seq_pointer = Some("data/seq".into())));
    assert!(bad(&|p| p.threads = 2));
    assert!(bad(&|p| p.connections = 10_000_000));
    assert!(bad(&|p| p.headers = vec![("X-A\r\n".into(), "b".into())]));
    assert!(bad(&|p| p.variables = Some(serde_json::json!([1]))));
}
