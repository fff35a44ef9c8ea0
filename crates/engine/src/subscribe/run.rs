//! `run_subscriptions`: validates the plan, starts the worker threads, ends the connect
//! phase when every connection has subscribed or failed (or at its time limit), fixes the
//! measured window for all workers, joins them and merges their records.
//!
//! Each worker is one OS thread (pinned when asked) with a single-threaded runtime: a
//! connector task opens its share of the connections at its share of the rate, each
//! connection is a task, and a ticker watches cancel and the window, samples the held
//! connections each second, reads the thread's CPU clock at the window's start and end and
//! publishes progress. At the window's end the runtime is dropped, closing every socket.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tungstenite::http::{HeaderMap, HeaderName, HeaderValue, Uri};

use super::extract::{parse_pointer, Paths, Val};
use super::live::{LiveCounts, SubscribeLive, SubscribePhase};
use super::poll::Poller;
use super::record::{finish, Judged, SubRecorder, SubscribeFacts, Window};
use super::{
    sse, ws, ConnectionFailureKind, MessageFailureKind, SubscribeControl, SubscribePlan,
    SubscribeResult, SubscribeTransport, GRAPHQL_TRANSPORT_WS,
};
use crate::affinity;
use crate::error::EngineError;

/// The id of the one subscription of each WebSocket connection.
pub const SUBSCRIPTION_ID: &str = "1";
/// Most pointers extracted from one message (type, id, errors, data, publish time, seq).
pub const MAX_RESULT_PATHS: usize = 6;
/// Time allowed for worker threads to start before the first connection.
const STARTUP: Duration = Duration::from_millis(20);
/// The window starts at least this long after the coordinator fixes it, so every worker
/// (ticking every 10 ms) knows it before it begins.
const LEAD: Duration = Duration::from_millis(30);
/// Period of the ticker.
const TICK: Duration = Duration::from_millis(10);
/// Progress is published at most this often.
const PUBLISH_EVERY: Duration = Duration::from_millis(100);
/// Period of the coordinator's checks during the connect phase.
const COORDINATE: Duration = Duration::from_millis(5);
/// Sockets a process needs besides the connections (stdio, epoll, timers, ...).
const SPARE_FILES: u64 = 64;

/// Where to find the parts of an execution result in a message.
#[derive(Debug, Clone)]
pub struct ResultPaths {
    pub paths: Paths,
    /// `type` of a WebSocket message.
    pub kind: Option<usize>,
    /// `id` of a WebSocket message.
    pub id: Option<usize>,
    pub errors: usize,
    pub data: usize,
    pub published: Option<usize>,
    pub seq: Option<usize>,
}

impl ResultPaths {
    /// Paths of an execution result under `prefix`; with `envelope`, also `/type` and `/id`.
    fn new(
        prefix: &[&str],
        envelope: bool,
        published: Option<&str>,
        seq: Option<&str>,
    ) -> Result<ResultPaths, String> {
        let mut list: Vec<Vec<String>> = Vec::new();
        let mut push = |p: Vec<String>| {
            list.push(p);
            list.len() - 1
        };
        let under = |rest: Vec<String>| -> Vec<String> {
            prefix.iter().map(|s| s.to_string()).chain(rest).collect()
        };
        let (kind, id) = if envelope {
            (
                Some(push(vec!["type".to_string()])),
                Some(push(vec!["id".to_string()])),
            )
        } else {
            (None, None)
        };
        let errors = push(under(vec!["errors".to_string()]));
        let data = push(under(vec!["data".to_string()]));
        let published = match published {
            Some(p) => Some(push(under(parse_pointer(p)?))),
            None => None,
        };
        let seq = match seq {
            Some(p) => Some(push(under(parse_pointer(p)?))),
            None => None,
        };
        Ok(ResultPaths {
            paths: Paths::new(list)?,
            kind,
            id,
            errors,
            data,
            published,
            seq,
        })
    }

    /// The verdict on an execution result whose values were extracted into `vals`.
    pub fn judge(&self, vals: &[Val]) -> Judged {
        match &vals[self.errors] {
            Val::Missing | Val::Null | Val::Array { empty: true } => {}
            _ => return Judged::Invalid(MessageFailureKind::GraphqlError),
        }
        if vals[self.data].is_absent() {
            return Judged::Invalid(MessageFailureKind::MissingData);
        }
        let published_ms = match self.published {
            Some(i) => match vals[i].as_f64() {
                Some(v) => Some(v),
                None => return Judged::Invalid(MessageFailureKind::MissingField),
            },
            None => None,
        };
        let seq = match self.seq {
            Some(i) => match vals[i].as_u64() {
                Some(v) => Some(v),
                None => return Judged::Invalid(MessageFailureKind::MissingField),
            },
            None => None,
        };
        Judged::Valid { published_ms, seq }
    }
}

/// What every connection of a run shares (read-only).
#[derive(Debug)]
pub struct Prepared {
    pub transport: SubscribeTransport,
    pub addr: SocketAddr,
    pub ws_uri: Uri,
    pub ws_headers: HeaderMap,
    pub init_msg: String,
    pub subscribe_msg: String,
    pub sse_request: Vec<u8>,
    pub ws_paths: ResultPaths,
    pub sse_paths: ResultPaths,
    /// Just `/type`, for the messages before the subscription.
    pub type_only: Paths,
    pub ack_timeout: Duration,
    pub first_message_timeout: Option<Duration>,
}

impl Prepared {
    fn new(plan: &SubscribePlan) -> Result<Prepared, EngineError> {
        let bad = |m: String| EngineError::InvalidPlan(m);
        let mut payload = serde_json::Map::new();
        payload.insert("query".into(), plan.query.clone().into());
        if let Some(v) = &plan.variables {
            payload.insert("variables".into(), v.clone());
        }
        if let Some(n) = &plan.operation_name {
            payload.insert("operationName".into(), n.clone().into());
        }
        let payload = serde_json::Value::Object(payload);
        let subscribe_msg = serde_json::json!({
            "id": SUBSCRIPTION_ID,
            "type": "subscribe",
            "payload": payload,
        })
        .to_string();
        let init_msg = match &plan.connection_init_payload {
            Some(p) => serde_json::json!({"type": "connection_init", "payload": p}).to_string(),
            None => r#"{"type":"connection_init"}"#.to_string(),
        };
        let ep = &plan.endpoint;
        let body = payload.to_string();
        let mut req = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            ep.path,
            ep.host,
            body.len()
        );
        for (k, v) in &plan.headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(&body);
        let ws_uri: Uri = format!("ws://{}{}", ep.host, ep.path)
            .parse()
            .map_err(|e| bad(format!("endpoint is not a valid WebSocket URI: {e}")))?;
        let mut ws_headers = HeaderMap::new();
        ws_headers.insert(
            "sec-websocket-protocol",
            HeaderValue::from_static(GRAPHQL_TRANSPORT_WS),
        );
        for (k, v) in &plan.headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|e| bad(format!("invalid header name {k:?}: {e}")))?;
            let value = HeaderValue::from_str(v)
                .map_err(|e| bad(format!("invalid value of header {k:?}: {e}")))?;
            ws_headers.append(name, value);
        }
        let pointers = (
            plan.published_at_pointer.as_deref(),
            plan.seq_pointer.as_deref(),
        );
        let ws_paths = ResultPaths::new(&["payload"], true, pointers.0, pointers.1).map_err(bad)?;
        let sse_paths = ResultPaths::new(&[], false, pointers.0, pointers.1).map_err(bad)?;
        Ok(Prepared {
            transport: plan.transport,
            addr: ep.addr,
            ws_uri,
            ws_headers,
            init_msg,
            subscribe_msg,
            sse_request: req.into_bytes(),
            ws_paths,
            sse_paths,
            type_only: Paths::new(vec![vec!["type".to_string()]]).map_err(bad)?,
            ack_timeout: plan.ack_timeout,
            first_message_timeout: plan.first_message_timeout,
        })
    }
}

/// State shared by the coordinator and the workers.
#[derive(Debug)]
struct Shared {
    base: Instant,
    /// Connections subscribed or failed.
    settled: AtomicU64,
    /// Start of the measured window, in ns after `base`; `u64::MAX` until fixed.
    window_start_ns: AtomicU64,
    /// Set when the run cannot go on (a worker thread could not be started).
    abort: AtomicBool,
}

/// State of one worker, shared by its tasks (single thread: `RefCell` only).
#[derive(Debug)]
pub struct Ctx {
    pub prep: Arc<Prepared>,
    pub rec: RefCell<SubRecorder>,
    /// Subscribed WebSocket connections, received by one epoll loop.
    pub poller: Poller,
    shared: Arc<Shared>,
}

impl Ctx {
    /// A worker context for unit tests.
    #[cfg(test)]
    pub fn for_tests(plan: &SubscribePlan, slots: usize) -> Ctx {
        Ctx {
            prep: Arc::new(Prepared::new(plan).expect("valid test plan")),
            rec: RefCell::new(SubRecorder::new(0, 1, slots, 3)),
            poller: Poller::new(slots).expect("epoll"),
            shared: Arc::new(Shared {
                base: Instant::now(),
                settled: AtomicU64::new(0),
                window_start_ns: AtomicU64::new(u64::MAX),
                abort: AtomicBool::new(false),
            }),
        }
    }

    pub fn connected(&self) {
        self.rec.borrow_mut().connected();
    }

    pub fn setup_failed(
        &self,
        slot: usize,
        kind: ConnectionFailureKind,
        detail: impl FnOnce() -> String,
    ) {
        self.rec.borrow_mut().setup_failed(slot, kind, detail);
        self.shared.settled.fetch_add(1, Ordering::Relaxed);
    }

    /// Records the subscription; returns its time.
    pub fn subscribed(&self, slot: usize, started: Instant) -> Instant {
        let now = Instant::now();
        self.rec.borrow_mut().subscribed(slot, started, now);
        self.shared.settled.fetch_add(1, Ordering::Relaxed);
        now
    }

    pub fn dropped(
        &self,
        slot: usize,
        kind: ConnectionFailureKind,
        detail: impl FnOnce() -> String,
    ) {
        self.rec
            .borrow_mut()
            .dropped(slot, kind, Instant::now(), detail);
    }

    /// Records a `next` message received now.
    pub fn record(&self, slot: usize, judged: Judged, raw: &[u8]) {
        let now = Instant::now();
        let wall_us = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_micros() as u64);
        self.rec
            .borrow_mut()
            .message(slot, now, wall_us, judged, raw);
    }
}

/// What a worker needs to start.
struct WorkerSetup {
    prep: Arc<Prepared>,
    shared: Arc<Shared>,
    worker: usize,
    threads: usize,
    slots: usize,
    rate: f64,
    run_start: Instant,
    hold: Duration,
    keep_examples: usize,
    cpus: Option<Vec<usize>>,
    cancel: Arc<AtomicBool>,
    live: Arc<SubscribeLive>,
}

/// What a worker hands back.
struct WorkerOutput {
    rec: SubRecorder,
    pinned: Option<Vec<usize>>,
    interrupted_at: Option<Instant>,
}

/// Runs the plan to the end of its window (or until `control.cancel`), blocking the caller.
pub fn run_subscriptions(
    plan: &SubscribePlan,
    control: &SubscribeControl,
) -> Result<SubscribeResult, EngineError> {
    plan.validate()?;
    let prep = Arc::new(Prepared::new(plan)?);
    let open_files = crate::limits::raise_open_files_limit();
    let needed = u64::from(plan.connections);
    if open_files > 0 && needed + SPARE_FILES > open_files {
        return Err(EngineError::InvalidPlan(format!(
            "{needed} connections need more open files than the limit of {open_files} (raise `ulimit -n`)"
        )));
    }
    control.live.reset();
    control.live.set_phase(SubscribePhase::Connecting);
    let base = Instant::now();
    let run_start = base + STARTUP;
    let shared = Arc::new(Shared {
        base,
        settled: AtomicU64::new(0),
        window_start_ns: AtomicU64::new(u64::MAX),
        abort: AtomicBool::new(false),
    });
    let threads = plan.threads;
    let mut handles = Vec::with_capacity(threads);
    for w in 0..threads {
        let setup = WorkerSetup {
            prep: prep.clone(),
            shared: shared.clone(),
            worker: w,
            threads,
            slots: share(needed, threads, w) as usize,
            rate: plan.connect_rate,
            run_start,
            hold: plan.hold,
            keep_examples: plan.keep_examples,
            cpus: plan.cpus.as_ref().map(|c| vec![c[w % c.len()]]),
            cancel: control.cancel.clone(),
            live: control.live.clone(),
        };
        let handle = std::thread::Builder::new()
            .name(format!("gqlbench-sub-{w}"))
            .spawn(move || worker(setup));
        match handle {
            Ok(h) => handles.push(h),
            Err(e) => {
                // Stop the workers already started before reporting.
                shared.abort.store(true, Ordering::Relaxed);
                for h in handles {
                    let _ = h.join();
                }
                return Err(e.into());
            }
        }
    }
    // The connect phase: until every connection settled, a cancel, a worker ending early
    // (it could not start), or the time limit.
    let limit = run_start + plan.connect_phase_limit();
    let mut timed_out = false;
    loop {
        let now = Instant::now();
        if control.cancel.load(Ordering::Relaxed)
            || shared.settled.load(Ordering::Relaxed) >= needed
            || handles.iter().any(|h| h.is_finished())
        {
            break;
        }
        if now >= limit {
            timed_out = true;
            break;
        }
        std::thread::sleep(COORDINATE.min(limit - now));
    }
    let connect_end = Instant::now();
    let window_start = connect_end + plan.warmup.max(LEAD);
    shared.window_start_ns.store(
        window_start.duration_since(base).as_nanos() as u64,
        Ordering::Release,
    );
    let mut outputs = Vec::with_capacity(threads);
    let mut first_err = None;
    for (w, h) in handles.into_iter().enumerate() {
        match h.join() {
            Ok(Ok(o)) => outputs.push(o),
            Ok(Err(e)) => {
                first_err.get_or_insert(e);
            }
            Err(_) => {
                first_err.get_or_insert(EngineError::WorkerPanicked(w));
            }
        }
    }
    control.live.set_phase(SubscribePhase::Done);
    if let Some(e) = first_err {
        return Err(e);
    }
    let interrupted_at = outputs.iter().filter_map(|o| o.interrupted_at).min();
    let elapsed = match interrupted_at {
        Some(t) => t.saturating_duration_since(window_start).min(plan.hold),
        None => plan.hold,
    };
    let pinned_cpus = plan.cpus.as_ref().map(|_| {
        let mut all: Vec<usize> = outputs
            .iter()
            .filter_map(|o| o.pinned.clone())
            .flatten()
            .collect();
        all.sort_unstable();
        all.dedup();
        all
    });
    let facts = SubscribeFacts {
        transport: plan.transport.as_str(),
        elapsed,
        window_start: Some(window_start),
        window_end: Some(window_start + elapsed),
        connect_phase: connect_end.saturating_duration_since(run_start),
        connect_phase_timed_out: timed_out,
        threads,
        pinned_cpus,
        interrupted: interrupted_at.is_some(),
        keep_examples: plan.keep_examples,
    };
    Ok(finish(outputs.into_iter().map(|o| o.rec).collect(), facts))
}

/// Share `i` of `total` split over `n` (the first `total % n` get one more).
fn share(total: u64, n: usize, i: usize) -> u64 {
    total / n as u64 + u64::from((i as u64) < total % n as u64)
}

fn worker(setup: WorkerSetup) -> Result<WorkerOutput, EngineError> {
    let pinned = match &setup.cpus {
        Some(cpus) => {
            Some(
                affinity::pin_current_thread(cpus).map_err(|reason| EngineError::Pin {
                    cpus: cpus.clone(),
                    reason,
                })?,
            )
        }
        None => None,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    let poller = Poller::new(setup.slots)?;
    let ctx = Rc::new(Ctx {
        prep: setup.prep.clone(),
        poller,
        rec: RefCell::new(SubRecorder::new(
            setup.worker,
            setup.threads,
            setup.slots,
            setup.keep_examples,
        )),
        shared: setup.shared.clone(),
    });
    let interrupted_at = local.block_on(&rt, async {
        tokio::task::spawn_local(connector(ctx.clone(), &setup));
        let receiver = ctx.clone();
        tokio::task::spawn_local(async move {
            // Only an epoll failure (never expected) ends this early; the connections it
            // held then stop receiving, which shows as missing messages, not as a hang.
            let _ = receiver.poller.run(&receiver).await;
        });
        ticker(&ctx, &setup).await
    });
    // Connections still open are closed with their tasks.
    drop(local);
    drop(rt);
    let rec = ctx.rec.replace(SubRecorder::new(0, 1, 0, 0));
    Ok(WorkerOutput {
        rec,
        pinned,
        interrupted_at,
    })
}

/// Opens this worker's connections, interleaved with the other workers' so the total rate
/// is the plan's.
fn connector(ctx: Rc<Ctx>, setup: &WorkerSetup) -> impl std::future::Future<Output = ()> {
    let (slots, worker, threads, rate, run_start) = (
        setup.slots,
        setup.worker,
        setup.threads,
        setup.rate,
        setup.run_start,
    );
    async move {
        for slot in 0..slots {
            let global = slot * threads + worker;
            let due = run_start + Duration::from_secs_f64(global as f64 / rate);
            if due > Instant::now() {
                tokio::time::sleep_until(due.into()).await;
            }
            ctx.rec.borrow_mut().attempted += 1;
            let c = ctx.clone();
            tokio::task::spawn_local(async move {
                let t0 = Instant::now();
                match c.prep.transport {
                    SubscribeTransport::WebSocket => ws::connection(&c, slot, t0).await,
                    SubscribeTransport::Sse => sse::connection(&c, slot, t0).await,
                }
            });
        }
    }
}

fn live_counts(rec: &SubRecorder) -> LiveCounts {
    let (setup_failed, dropped, messages, invalid) = rec.totals();
    LiveCounts {
        attempted: rec.attempted,
        subscribed: rec.subscribed,
        held: rec.held,
        setup_failed,
        dropped,
        messages,
        invalid,
    }
}

/// Watches cancel and the window, samples held connections per second, measures the
/// thread's CPU over the window, publishes progress. Returns the cancel time if cancelled.
async fn ticker(ctx: &Rc<Ctx>, setup: &WorkerSetup) -> Option<Instant> {
    let live = &setup.live;
    let shared = &setup.shared;
    let mut window: Option<Window> = None;
    let mut cpu_start = None;
    let mut published = LiveCounts::default();
    let mut last_publish = Instant::now();
    let mut next_second = 1u32;
    loop {
        let now = Instant::now();
        ctx.poller.expire(ctx, now);
        if window.is_none() {
            let ns = shared.window_start_ns.load(Ordering::Acquire);
            if ns != u64::MAX {
                let start = shared.base + Duration::from_nanos(ns);
                let w = Window {
                    start,
                    end: start + setup.hold,
                };
                window = Some(w);
                ctx.rec.borrow_mut().set_window(w);
                live.set_phase(SubscribePhase::Warmup);
            }
        }
        let cancelled =
            setup.cancel.load(Ordering::Relaxed) || shared.abort.load(Ordering::Relaxed);
        let mut ended = cancelled;
        if let Some(w) = window {
            if cpu_start.is_none() && now >= w.start {
                cpu_start = Some(affinity::thread_cpu_time());
                live.set_phase(SubscribePhase::Measure);
            }
            let mut rec = ctx.rec.borrow_mut();
            while w.start + Duration::from_secs(u64::from(next_second)) <= now.min(w.end) {
                let held = rec.held.max(0) as u64;
                rec.held_series.push(held);
                next_second += 1;
            }
            if now >= w.end {
                ended = true;
            }
            if ended && now >= w.start {
                live.set_elapsed_ms(now.min(w.end).duration_since(w.start).as_millis() as u64);
                // A partial last second (cancel) still gets its held sample.
                let secs = now.min(w.end).duration_since(w.start).as_secs_f64().ceil() as usize;
                while rec.held_series.len() < secs {
                    let held = rec.held.max(0) as u64;
                    rec.held_series.push(held);
                }
            }
        }
        if ended {
            let end_cpu = affinity::thread_cpu_time();
            let mut rec = ctx.rec.borrow_mut();
            rec.cpu_s = cpu_start.map_or(0.0, |s| end_cpu.saturating_sub(s).as_secs_f64());
            rec.held_at_end = Some(rec.held.max(0) as u64);
            let counts = live_counts(&rec);
            live.publish(&published, &counts);
            return cancelled.then_some(now);
        }
        if now.duration_since(last_publish) >= PUBLISH_EVERY {
            let counts = live_counts(&ctx.rec.borrow());
            live.publish(&published, &counts);
            published = counts;
            if let Some(w) = window.filter(|w| now >= w.start) {
                live.set_elapsed_ms(now.duration_since(w.start).as_millis() as u64);
            }
            last_publish = now;
        }
        let mut next = now + TICK;
        if let Some(w) = window {
            for t in [w.start, w.end] {
                if t > now {
                    next = next.min(t);
                }
            }
        }
        tokio::time::sleep_until(next.into()).await;
    }
}
