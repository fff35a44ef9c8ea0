//! Closed-model runs against in-process servers.

mod common;

use std::time::{Duration, Instant};

use common::*;
use gqlbench_engine::*;

#[test]
fn max_requests_is_exact_across_threads_and_connections() {
    let s = start(Mode::Ok(HELLO.into()));
    let mut p = plan(s.endpoint(), closed(5.0, 1), for_requests(1001));
    p.threads = 2;
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.requests, 1001);
    assert_eq!(r.ok, 1001, "{:?}", r.failure_examples);
    assert_eq!(
        s.requests(),
        1001,
        "the server saw exactly the requests counted"
    );
    assert_eq!(r.per_operation["hello"].ok, 1001);
    assert_eq!(r.connections.connections_used, 5);
    assert_eq!(r.model, "closed");
    assert!(r.latency.p50_us > 0 && r.latency.max_us >= r.latency.p99_us);
    let h = decode_hist(&r.latency_hist).unwrap();
    assert_eq!(h.len(), 1001);
    assert!(r.bytes_received > 1001 * HELLO.len() as u64);
    assert!(r.elapsed_s > 0.0 && r.throughput_rps > 0.0);
    assert!(r.uncorrected_latency.is_none() && r.send_lag.is_none());
    assert_eq!(r.series.iter().map(|s| s.requests).sum::<u64>(), 1001);
}

#[test]
fn pipelining_depth_is_seen_by_the_server() {
    let s = start(Mode::Batch {
        body: HELLO.into(),
        n: 4,
    });
    let p = plan(s.endpoint(), closed(2.0, 4), for_requests(400));
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.ok, 400, "{:?}", r.failure_examples);
    assert_eq!(
        s.stats.max_batch.load(std::sync::atomic::Ordering::SeqCst),
        4
    );
    assert_eq!(s.requests(), 400);
}

#[test]
fn without_pipelining_the_server_sees_one_at_a_time() {
    let s = start(Mode::Batch {
        body: HELLO.into(),
        n: 4,
    });
    let p = plan(s.endpoint(), closed(1.0, 1), for_requests(5));
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.ok, 5);
    assert_eq!(
        s.stats.max_batch.load(std::sync::atomic::Ordering::SeqCst),
        1
    );
}

#[test]
fn chunked_bodies_are_decoded_and_validated() {
    let body =
        r#"{"data":{"hello":"world"},"extensions":{"pad":"0123456789abcdefghijklmnopqrstuvwxyz"}}"#;
    let s = start(Mode::Chunked(body.into(), 7));
    let p = plan(s.endpoint(), closed(3.0, 2), for_requests(300));
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.ok, 300, "{:?}", r.failure_examples);
    // A wrong expectation on the same chunked body must fail: the body really is compared.
    let mut p2 = p.clone();
    p2.operations[0].variants[0].expected_data = Some(serde_json::json!({"hello": "mars"}));
    let r2 = run(&p2, &Control::default()).unwrap();
    assert_eq!(r2.failures.get(&FailureKind::WrongData), Some(&300));
    assert_eq!(
        r2.failure_examples[0].detail,
        r#"data.hello: expected "mars", got "world""#
    );
}

#[test]
fn responses_without_the_required_headers_fail_as_headers() {
    let body = r#"{"data":{"hello":"world"}}"#;
    let s = start(Mode::Guids {
        body: body.into(),
        skip_every: 4,
    });
    let mut p = plan(s.endpoint(), closed(2.0, 1), for_requests(200));
    p.response_headers = Some(HeaderRule {
        prefix: "guid-".into(),
        count: 3,
        distinct: true,
    });
    let r = run(&p, &Control::default()).unwrap();
    // Every 4th answer of each connection lacks guid-2: about a quarter fail, the rest pass.
    let failed = r.failures.get(&FailureKind::Headers).copied().unwrap_or(0);
    assert!(
        (40..=60).contains(&failed),
        "{failed} failed; {:?}",
        r.failure_examples
    );
    assert_eq!(r.ok + failed, 200);
    assert!(r.failure_examples[0].detail.contains("guid-2"));
    // Without the rule the same answers all pass: the check is what failed them.
    p.response_headers = None;
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.ok, 200);
}

#[test]
fn timeouts_are_counted_and_the_run_ends_on_time() {
    let s = start(Mode::Silent);
    let mut p = plan(s.endpoint(), closed(3.0, 1), for_duration(1000));
    p.timeout = Duration::from_millis(300);
    let t0 = Instant::now();
    let r = run(&p, &Control::default()).unwrap();
    let wall = t0.elapsed();
    assert!(wall < Duration::from_millis(2500), "run took {wall:?}");
    let timeouts = r.failures.get(&FailureKind::Timeout).copied().unwrap_or(0);
    // 3 connections, a timeout every 300 ms each, over a 1 s window: 9 to 12.
    assert!((9..=12).contains(&timeouts), "{timeouts} timeouts");
    assert_eq!(r.ok, 0);
    assert!(r.reconnects >= 6, "{}", r.reconnects);
    // A timeout is not an answer: no latency sample, no throughput.
    assert_eq!((r.requests, r.unanswered), (0, timeouts));
    assert_eq!(r.latency.count, 0);
}

fn one_kind(mode: Mode, expected: Option<serde_json::Value>) -> LoadResult {
    let s = start(mode);
    let mut p = plan(s.endpoint(), closed(2.0, 1), for_requests(50));
    p.operations[0].variants[0].expected_data = expected;
    run(&p, &Control::default()).unwrap()
}

#[test]
fn failure_kinds_are_told_apart() {
    let r = one_kind(
        Mode::Ok(r#"{"data":{"hello":"mars"}}"#.into()),
        Some(serde_json::json!({"hello":"world"})),
    );
    assert_eq!(r.failures.get(&FailureKind::WrongData), Some(&50));
    assert_eq!(r.failure_examples.len(), 3);

    let r = one_kind(
        Mode::Ok(r#"{"data":null,"errors":[{"message":"boom"}]}"#.into()),
        None,
    );
    assert_eq!(r.failures.get(&FailureKind::GraphqlError), Some(&50));
    assert_eq!(r.failure_examples[0].detail, "errors: boom");
    assert_eq!(r.failure_examples[0].operation, "hello");

    let r = one_kind(Mode::Status(500), None);
    assert_eq!(r.failures.get(&FailureKind::HttpStatus), Some(&50));
    assert!(r.failure_examples[0].detail.starts_with("HTTP 500"));

    let r = one_kind(Mode::Ok("not json".into()), None);
    assert_eq!(r.failures.get(&FailureKind::BadBody), Some(&50));
    assert_eq!(r.ok, 0);
    assert_eq!(r.failed, 50);
}

#[test]
fn refused_connections_count_as_connect_failures() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let ep = Endpoint::from_url(&format!("http://127.0.0.1:{port}/graphql")).unwrap();
    let p = plan(ep, closed(2.0, 1), for_duration(300));
    let r = run(&p, &Control::default()).unwrap();
    let n = r.failures.get(&FailureKind::Connect).copied().unwrap_or(0);
    assert!(n >= 2, "{n}");
    // Nothing was served: no request counts as work done, no latency is recorded.
    assert_eq!(r.requests, 0);
    assert_eq!((r.failed, r.unanswered), (n, n));
    assert_eq!(r.throughput_rps, 0.0);
    assert_eq!(r.latency.count, 0);
    assert_eq!(r.bytes_received, 0);
    assert_eq!(r.connections.established_at_start, Some(0));
    assert!(
        r.failure_examples[0]
            .detail
            .to_lowercase()
            .contains("refused"),
        "{:?}",
        r.failure_examples
    );
}

#[test]
fn server_closing_connections_is_handled_without_failures() {
    let s = start(Mode::CloseEvery {
        body: HELLO.into(),
        n: 7,
    });
    let p = plan(s.endpoint(), closed(2.0, 3), for_requests(200));
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.ok, 200, "{:?}", r.failure_examples);
    assert!(r.reconnects >= 20, "{}", r.reconnects);
    assert!(
        s.stats
            .connections
            .load(std::sync::atomic::Ordering::SeqCst)
            >= 20
    );
}

#[test]
fn cancel_stops_early_and_marks_interrupted() {
    let s = start(Mode::Ok(HELLO.into()));
    let p = plan(s.endpoint(), closed(2.0, 1), for_duration(30_000));
    let control = Control::default();
    let cancel = control.cancel.clone();
    let t0 = Instant::now();
    let h = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        cancel.store(true, std::sync::atomic::Ordering::SeqCst);
    });
    let r = run(&p, &control).unwrap();
    h.join().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(3));
    assert!(r.interrupted);
    assert!(r.requests > 0);
    assert!(r.elapsed_s > 0.2 && r.elapsed_s < 2.0, "{}", r.elapsed_s);
    assert_eq!(control.live.phase(), Phase::Done);
    assert!(control.live.requests() > 0);
}

#[test]
fn warmup_is_discarded() {
    let s = start(Mode::Ok(HELLO.into()));
    let mut p = plan(s.endpoint(), closed(2.0, 1), for_duration(300));
    p.warmup = Duration::from_millis(300);
    let r = run(&p, &Control::default()).unwrap();
    assert!(r.warmup_requests > 0);
    assert!(r.requests > 0);
    assert_eq!(s.requests(), r.requests + r.warmup_requests);
    assert_eq!(
        r.series.len(),
        1,
        "only the measured window is in the series"
    );
    assert!((r.elapsed_s - 0.3).abs() < 1e-9);
    // Connections are kept across the warm-up boundary.
    assert_eq!(
        s.stats
            .connections
            .load(std::sync::atomic::Ordering::SeqCst),
        2
    );
}

#[test]
fn unique_request_header_values_are_unique() {
    let s = start(Mode::Ok(HELLO.into()));
    let mut p = plan(s.endpoint(), closed(3.0, 2), for_requests(500));
    p.threads = 2;
    p.unique_request_header = Some("x-request-id".into());
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.ok, 500);
    assert_eq!(s.stats.unique_values.lock().unwrap().len(), 500);
}

#[test]
fn a_unique_number_makes_every_request_body_new_and_each_answer_is_still_checked() {
    let s = start(Mode::Ok(HELLO.into()));
    let mut p = plan(s.endpoint(), closed(3.0, 2), for_requests(500));
    p.threads = 2;
    let body = r#"{"query":"query Q($n: Int!) { hello(n: $n) }","variables":{"n":7}}"#;
    let mut v = variant(body, Some(serde_json::json!({"hello": "world"})));
    v.unique = Some(UniqueNumber {
        at: body.find('7').unwrap(),
        len: 1,
        from: 7,
    });
    p.operations[0].variants = vec![v];
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!((r.ok, r.failed), (500, 0));
    // Every request had a number above the case's own (7), each a different one.
    let bodies = s.stats.bodies.lock().unwrap();
    let numbers: Vec<u64> = bodies
        .iter()
        .map(|b| {
            serde_json::from_slice::<serde_json::Value>(b).unwrap()["variables"]["n"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(numbers.len(), 500);
    assert!(numbers.iter().all(|&n| n > 7), "{numbers:?}");
    // A place in the body that is not a number is refused before anything is sent.
    let mut bad = p.clone();
    bad.operations[0].variants[0].unique = Some(UniqueNumber {
        at: 0,
        len: 2,
        from: 7,
    });
    assert!(
        matches!(bad.validate(), Err(EngineError::InvalidPlan(m)) if m.contains("not a number"))
    );
}

#[test]
fn ramping_connections_opens_them_over_time() {
    let s = start(Mode::Ok(HELLO.into()));
    let schedule = Schedule::Closed {
        connections: Stages {
            start: 1.0,
            stages: vec![Stage {
                duration: Duration::from_millis(600),
                target: 4.0,
            }],
        },
        pipelining: 1,
        think_time: Duration::from_millis(5),
    };
    let p = plan(s.endpoint(), schedule, for_duration(900));
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.connections.connections_used, 4);
    // The first connection was active all along (900 ms), the last from t = 400 ms on
    // (value 1 + 3t/0.6 passes 3 then): about 5/9 of the requests.
    let (min, max) = (
        r.connections.min_connection_requests,
        r.connections.max_connection_requests,
    );
    assert!(
        min * 10 < max * 7 && min * 10 > max * 4,
        "{:?}",
        r.connections
    );
}

/// A ramp's later connections are opened (and primed) before the load and wait for their
/// stage; a server that closes idle keep-alive connections meanwhile is doing ordinary
/// HTTP, so their first request goes out again on a fresh connection instead of failing.
#[test]
fn a_ramp_reconnects_where_the_server_closed_idle_connections() {
    let s = start(Mode::IdleClose {
        body: HELLO.into(),
        idle: Duration::from_millis(150),
    });
    let schedule = Schedule::Closed {
        connections: Stages {
            start: 1.0,
            stages: vec![Stage {
                duration: Duration::from_millis(800),
                target: 6.0,
            }],
        },
        pipelining: 1,
        think_time: Duration::from_millis(5),
    };
    let mut p = plan(s.endpoint(), schedule, for_duration(1000));
    p.prime = true;
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.connections.primed, Some(6), "{:?}", r.connections);
    assert_eq!(r.failed, 0, "{:?}", r.failure_examples);
    assert_eq!(r.connections.connections_used, 6, "{:?}", r.connections);
    // The connections that waited longer than 150 ms were closed and opened again.
    assert!(r.reconnects >= 3, "{}", r.reconnects);
    assert!(
        s.stats
            .connections
            .load(std::sync::atomic::Ordering::SeqCst)
            >= 9
    );
}

#[test]
fn invalid_plans_are_refused() {
    let s = start(Mode::Ok(HELLO.into()));
    let mut p = plan(s.endpoint(), closed(0.0, 1), for_requests(1));
    assert!(matches!(
        run(&p, &Control::default()),
        Err(EngineError::InvalidPlan(_))
    ));
    p.schedule = closed(1.0, 1);
    p.operations[0].weight = 0;
    assert!(run(&p, &Control::default()).is_err());
    p.operations.clear();
    assert!(run(&p, &Control::default()).is_err());
    let p = plan(s.endpoint(), closed(1.0, 1), Stop::default());
    assert!(run(&p, &Control::default()).is_err());
}

#[test]
fn pinning_is_reported() {
    let s = start(Mode::Ok(HELLO.into()));
    let mut p = plan(s.endpoint(), closed(1.0, 1), for_requests(200));
    p.cpus = Some(vec![0]);
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.pinned_cpus, Some(vec![0]));
    // 200 requests sent, parsed and checked cost the workers some CPU time: a zero here
    // is a clock that was not read.
    assert_eq!(r.requests, 200);
    assert!(r.generator_cpu_s > 0.0, "{}", r.generator_cpu_s);
}

#[test]
fn check_once_judges_one_request() {
    let s = start(Mode::Ok(HELLO.into()));
    let v = variant(
        r#"{"query":"{hello}"}"#,
        Some(serde_json::json!({"hello":"world"})),
    );
    let ok = check_once(&s.endpoint(), &v, Duration::from_secs(2));
    assert!(ok.is_ok(), "{ok:?}");
    assert_eq!(ok.status, Some(200));
    assert_eq!(ok.body, HELLO.as_bytes());
    let v2 = variant(
        r#"{"query":"{hello}"}"#,
        Some(serde_json::json!({"hello":"x"})),
    );
    let bad = check_once(&s.endpoint(), &v2, Duration::from_secs(2));
    assert_eq!(bad.failure, Some(FailureKind::WrongData));
    let silent = start(Mode::Silent);
    let t = check_once(&silent.endpoint(), &v, Duration::from_millis(200));
    assert_eq!(t.failure, Some(FailureKind::Timeout));
}

#[test]
fn endpoint_urls() {
    let e = Endpoint::from_url("http://127.0.0.1:4000/graphql").unwrap();
    assert_eq!(e.addr.port(), 4000);
    assert_eq!(e.host, "127.0.0.1:4000");
    assert_eq!(e.path, "/graphql");
    let e = Endpoint::from_url("http://localhost").unwrap();
    assert_eq!((e.addr.port(), e.path.as_str()), (80, "/"));
    assert!(Endpoint::from_url("https://x/")
        .unwrap_err()
        .to_string()
        .contains("https"));
    assert!(Endpoint::from_url("ftp://x/").is_err());
    assert!(Endpoint::from_url("http://:80/").is_err());
    assert!(Endpoint::from_url("http://127.0.0.1:99999/").is_err());
    let e = Endpoint::from_url("http://[::1]:8080/q?x=1").unwrap();
    assert_eq!(e.path, "/q?x=1");
}

#[test]
fn deep_pipelining_does_not_stall_on_its_own_writes() {
    // 20,000 requests of 1 KiB in flight on one connection, answered with 1 KiB each: far
    // more than both socket buffers hold either way, and this server (like Node's) stops
    // reading requests while its answers cannot be written. A client that reads only
    // after writing the whole pipeline waits on itself until the timeout.
    let body = format!(
        r#"{{"data":{{"hello":"world"}},"pad":"{}"}}"#,
        "x".repeat(1000)
    );
    let s = start(Mode::Ok(body));
    let mut p = plan(s.endpoint(), closed(1.0, 20_000), for_requests(40_000));
    let pad = "y".repeat(1000);
    p.operations[0].variants = vec![variant(
        &format!(r#"{{"query":"{{hello}}","variables":{{"pad":"{pad}"}}}}"#),
        None,
    )];
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.failed, 0, "{:?} {:?}", r.failures, r.failure_examples);
    assert_eq!((r.requests, r.ok), (40_000, 40_000));
    assert!(r.bytes_received > 40_000 * 1000);
}

#[test]
fn connections_the_server_never_serves_are_counted_as_unused() {
    // The server serves its first 2 connections only; 4 more sit in its listen queue.
    let s = start_limited(Mode::Ok(HELLO.into()), 2);
    let mut p = plan(s.endpoint(), closed(6.0, 1), for_duration(800));
    p.timeout = Duration::from_millis(300);
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.connections.planned, 6);
    assert_eq!(r.connections.unused, 4, "{:?}", r.connections);
    let est = r.connections.established_at_start.unwrap();
    assert!((2..=6).contains(&est), "{est}");
    assert!(
        r.requests > 0 && r.requests == r.ok,
        "the 2 served connections worked"
    );
    assert!(
        r.unanswered > 0,
        "the queued ones timed out: {:?}",
        r.failures
    );
    assert!(r.failures.contains_key(&FailureKind::Timeout));
    // Every connection served: none unused.
    let s = start(Mode::Ok(HELLO.into()));
    let r = run(
        &plan(s.endpoint(), closed(6.0, 1), for_duration(300)),
        &Control::default(),
    )
    .unwrap();
    assert_eq!(
        (r.connections.unused, r.connections.established_at_start),
        (0, Some(6))
    );
}

#[test]
fn absurd_lengths_are_refused_not_overflowed() {
    let s = start(Mode::Ok(HELLO.into()));
    let stop = Stop {
        duration: Some(Duration::from_secs(i64::MAX as u64)),
        max_requests: Some(10),
        extend: None,
    };
    let err = run(
        &plan(s.endpoint(), closed(1.0, 1), stop),
        &Control::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("longest run"), "{err}");
    let mut p = plan(s.endpoint(), closed(1.0, 1), for_requests(1));
    p.warmup = Duration::from_secs(u64::MAX / 4);
    assert!(run(&p, &Control::default()).is_err());
}

#[test]
fn a_window_shorter_than_a_request_is_extended_until_every_connection_answered() {
    // Answers take 1 s; the warm-up's requests end after the 300 ms window would have.
    let s = start(Mode::Slow {
        body: HELLO.into(),
        delay: Duration::from_secs(1),
    });
    let mut p = plan(s.endpoint(), closed(4.0, 1), for_duration(300));
    p.warmup = Duration::from_millis(500);
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(
        r.requests, 0,
        "without the extension nothing is sent and answered in it"
    );
    assert_eq!(r.connections.unused, 4);
    assert_eq!(r.window_extended_s, None);

    p.stop.extend = Some(Extend {
        min_per_connection: 1,
        max_duration: Duration::from_secs(10),
    });
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.connections.unused, 0, "{:?}", r.connections);
    assert!(
        r.requests >= 4 && r.ok == r.requests,
        "{} {}",
        r.requests,
        r.ok
    );
    let ext = r.window_extended_s.unwrap();
    assert!((0.9..=4.0).contains(&ext), "extended by {ext} s");
    assert!(
        (r.elapsed_s - (0.3 + ext)).abs() < 1e-6,
        "{} vs {ext}",
        r.elapsed_s
    );
    assert!(r.latency.p50_us >= 1_000_000);

    // The bound holds: never more than max_duration (here ending before the warm-up's
    // answers come back).
    p.stop.extend = Some(Extend {
        min_per_connection: 1,
        max_duration: Duration::from_millis(400),
    });
    let r = run(&p, &Control::default()).unwrap();
    assert!(r.elapsed_s <= 0.4 + 1e-6, "{}", r.elapsed_s);
    assert_eq!(
        r.connections.unused, 4,
        "bounded: the slow target still answered nothing"
    );
}

#[test]
fn priming_serves_each_connection_once_before_the_start_and_counts_it_apart() {
    let s = start(Mode::Ok(HELLO.into()));
    let mut p = plan(s.endpoint(), closed(4.0, 1), for_requests(100));
    p.prime = true;
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!((r.requests, r.ok), (100, 100), "{:?}", r.failure_examples);
    assert_eq!(r.connections.primed, Some(4));
    assert_eq!(
        s.requests(),
        104,
        "one uncounted request per connection before the start"
    );
}

#[test]
fn a_connection_the_server_never_answers_is_not_primed() {
    // Only the first 2 connections are served; priming waits one timeout for the rest.
    let s = start_limited(Mode::Ok(HELLO.into()), 2);
    let mut p = plan(s.endpoint(), closed(4.0, 1), for_duration(300));
    p.timeout = Duration::from_millis(300);
    p.prime = true;
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.connections.primed, Some(2), "{:?}", r.connections);
    assert!(r.ok > 0, "the primed connections carried the load");
}

#[test]
fn a_slow_targets_rate_is_timed_from_its_requests_and_its_count_is_the_coarser() {
    // 10 connections whose answers take 300 ms, all starting at the window's start (no
    // warm-up): each sends at 0, 0.3, 0.6 and 0.9 s, so the count of the 1-s window has a
    // whole request per connection it was only partly given.
    let s = start(Mode::Slow {
        body: HELLO.into(),
        delay: Duration::from_millis(300),
    });
    let p = plan(s.endpoint(), closed(10.0, 1), for_duration(1000));
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.ok, r.requests);
    let used = r.connections.connections_used;
    assert_eq!(used, 10, "{:?}", r.connections);
    assert_eq!(
        r.count_resolution,
        Some(used as f64 / r.requests as f64),
        "one request per connection in {}",
        r.requests
    );
    let timed = r.timed_rps.expect("a closed window that ran to its end");
    let count = r.requests as f64 / r.elapsed_s;
    // Each connection's last request is counted whole but may lie partly past the end,
    // and every earlier one lies wholly inside: the timing is at most the count, and below
    // it by less than one request per connection.
    assert!(timed <= count, "timed {timed} vs count {count}");
    assert!(
        timed * r.elapsed_s > (r.requests - used) as f64,
        "timed {timed} vs count {count}"
    );

    // A request-count window has no end to time against.
    let p = plan(s.endpoint(), closed(2.0, 1), for_requests(4));
    let r = run(&p, &Control::default()).unwrap();
    assert_eq!(r.timed_rps, None);
    assert!(r.count_resolution.is_some());
}
