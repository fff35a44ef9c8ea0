//! The input of an HTTP load run: where to send (an [`Endpoint`]), what to send, how fast
//! (a [`Schedule`] of [`Stages`]), and when to stop; the checks that refuse a plan before
//! it runs; and the [`Control`] the caller steers and watches the running load with.
//!
//! It uses only plain data below it (`endpoint`, `schedule`, `live`), never the code that
//! runs a plan (`prepare`, `load`), which depends on it.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use crate::endpoint::Endpoint;
use crate::error::EngineError;
use crate::headers::HeaderRule;
use crate::live::LiveStats;
use crate::schedule::{Curve, Stages};
use crate::slicing::Slicing;

pub use crate::variant::{Persisted, UniqueNumber, Variant, MAX_BATCH};

/// A named GraphQL operation; its variants are used in turn so variables vary per request.
#[derive(Debug, Clone)]
pub struct Operation {
    pub name: String,
    /// Relative share of requests in a mix (0 = never sent).
    pub weight: u32,
    pub variants: Vec<Variant>,
}

/// How requests arrive. Schedule time 0 is the start of the load (warm-up included).
#[derive(Debug, Clone, PartialEq)]
pub enum Schedule {
    /// N connections each send, wait for the answer(s), optionally think, repeat.
    Closed {
        /// Number of active connections over time.
        connections: Stages,
        /// Requests in flight per connection (>= 1).
        pipelining: u32,
        /// Pause after each answer before the next send.
        think_time: Duration,
    },
    /// Requests are due at times fixed by the rate, whatever the answers do.
    Open {
        /// Requests per second over time.
        rate: Stages,
        /// Upper bound of connections opened (split over worker threads).
        max_connections: u32,
    },
}

/// When the measured window ends. At least one of `duration` and `max_requests` is set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stop {
    /// Length of the measured window (after warm-up).
    pub duration: Option<Duration>,
    /// Number of requests sent in the measured window.
    pub max_requests: Option<u64>,
    /// Closed model with a duration: push the end back until every connection completed
    /// enough requests sent in the window (a target slower than the window is long).
    pub extend: Option<Extend>,
}

/// How far a duration window may be extended, and until what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extend {
    /// Requests each connection must complete in the window (at least 1).
    pub min_per_connection: u64,
    /// The longest the window may grow to.
    pub max_duration: Duration,
}

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    pub endpoint: Endpoint,
    pub operations: Vec<Operation>,
    pub schedule: Schedule,
    pub stop: Stop,
    /// Load runs this long first; what it records is discarded; connections are kept.
    pub warmup: Duration,
    /// Per request; a timed-out request counts as `timeout` and its connection is reopened.
    pub timeout: Duration,
    /// Worker threads (>= 1), each with its own single-threaded runtime.
    pub threads: usize,
    /// Pin worker threads to these CPUs, round-robin.
    pub cpus: Option<Vec<usize>>,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
    /// When set, each request carries this header with a unique value.
    pub unique_request_header: Option<String>,
    /// When set, every response must carry these headers (else it fails as `headers`).
    pub response_headers: Option<HeaderRule>,
    /// Failure examples kept per kind.
    pub keep_examples: usize,
    /// Closed model: before the start, each connection sends one request and waits for
    /// its answer (not counted anywhere but `connections.primed`), so the server has
    /// accepted and served every connection before the load begins. Without it, a server
    /// that accepts new connections slowly while busy (Node under CPU contention takes
    /// them about one per event-loop turn) leaves some connections unserved for seconds
    /// into the window, while the kernel already reported them open.
    pub prime: bool,
    /// Send only in this run's own time slices (comparing arms side by side, see
    /// [`Slicing`]); None sends all the time.
    pub slicing: Option<Slicing>,
    /// Start the load (warm-up first) at this instant at the earliest, once every
    /// connection is open and primed: runs sharing a slice clock start on its epoch, so a
    /// warm-up and a window of whole blocks cover whole blocks. A run not ready by then
    /// starts as soon as it is, or, with `start_every`, at the next `start_at` + k·every
    /// (a block boundary of the clock, so its window still holds whole blocks).
    pub start_at: Option<std::time::Instant>,
    pub start_every: Option<Duration>,
}

impl LoadPlan {
    /// A plan with common defaults: one thread, 10 s timeout, no warm-up, 3 examples.
    pub fn new(
        endpoint: Endpoint,
        operations: Vec<Operation>,
        schedule: Schedule,
        stop: Stop,
    ) -> Self {
        LoadPlan {
            endpoint,
            operations,
            schedule,
            stop,
            warmup: Duration::ZERO,
            timeout: Duration::from_secs(10),
            threads: 1,
            cpus: None,
            headers: Vec::new(),
            unique_request_header: None,
            response_headers: None,
            keep_examples: 3,
            prime: false,
            slicing: None,
            start_at: None,
            start_every: None,
        }
    }

    /// Rejects plans that cannot run; the message names the problem.
    pub fn validate(&self) -> Result<(), EngineError> {
        self.check_operations()?;
        if self.threads == 0 {
            return Err(EngineError::InvalidPlan(
                "threads must be at least 1".into(),
            ));
        }
        self.check_stop()?;
        if self.timeout.is_zero() {
            return Err(EngineError::InvalidPlan("timeout must be positive".into()));
        }
        self.check_spans()?;
        if let Some(cpus) = &self.cpus {
            if cpus.is_empty() {
                return Err(EngineError::InvalidPlan("empty CPU list".into()));
            }
        }
        for (k, v) in &self.headers {
            let bad_char = |s: &str| s.bytes().any(|b| b == b'\r' || b == b'\n');
            if k.is_empty() || bad_char(k) || bad_char(v) || k.contains(':') {
                return Err(EngineError::InvalidPlan(format!("invalid header {k:?}")));
            }
        }
        self.check_schedule()
    }

    /// Every operation weighed and answerable: variants in a form the engine sends, and a
    /// unique number's place that is a number in its body.
    fn check_operations(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::InvalidPlan(m));
        if self.operations.is_empty() {
            return bad("no operations".into());
        }
        if self.operations.iter().map(|o| o.weight as u64).sum::<u64>() == 0 {
            return bad("the sum of operation weights is zero".into());
        }
        for op in &self.operations {
            if op.weight > 0 && op.variants.is_empty() {
                return bad(format!("operation {:?} has no variants", op.name));
            }
            for v in &op.variants {
                v.check_form().map_err(|m| {
                    EngineError::InvalidPlan(format!("operation {:?}: {m}", op.name))
                })?;
                if let Some(u) = v.unique {
                    let digits = v.body.get(u.at..u.at.saturating_add(u.len));
                    if u.len == 0 || !digits.is_some_and(|d| d.iter().all(u8::is_ascii_digit)) {
                        return bad(format!(
                            "operation {:?}: the unique number's place ({}..{}) is not a number in its body",
                            op.name,
                            u.at,
                            u.at.saturating_add(u.len)
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// A stop condition that ends the run, and a window extension or slicing that fits it.
    fn check_stop(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::InvalidPlan(m));
        if self.stop.duration.is_none() && self.stop.max_requests.is_none() {
            return bad("no stop condition (set a duration or a request count)".into());
        }
        if self.stop.duration == Some(Duration::ZERO) || self.stop.max_requests == Some(0) {
            return bad("the stop condition is zero".into());
        }
        if let Some(x) = &self.stop.extend {
            let Some(d) = self.stop.duration else {
                return bad("extending the window needs a duration".into());
            };
            if x.min_per_connection == 0 || x.max_duration < d || x.max_duration > MAX_SPAN {
                return bad(format!(
                    "window extension: need at least 1 request per connection and a bound between the duration and 30 days (got {} and {:?})",
                    x.min_per_connection, x.max_duration
                ));
            }
            if matches!(self.schedule, Schedule::Open { .. }) {
                return bad("window extension is for the closed model".into());
            }
        }
        if let Some(sl) = &self.slicing {
            sl.check()?;
            // The arms' windows must keep the length they were given: an extension would
            // move one arm's end and leave the other's slices unmatched.
            if self.stop.extend.is_some() {
                return bad(
                    "slicing cannot be combined with a window extension (Stop::extend)".into(),
                );
            }
        }
        Ok(())
    }

    /// Instants are added to these; an absurd length would overflow the clock.
    fn check_spans(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::InvalidPlan(m));
        let think = match &self.schedule {
            Schedule::Closed { think_time, .. } => Some(*think_time),
            Schedule::Open { .. } => None,
        };
        let spans = [
            ("the warm-up", Some(self.warmup)),
            ("the duration", self.stop.duration),
            ("the timeout", Some(self.timeout)),
            ("the think time", think),
        ];
        for (what, d) in spans {
            if d.is_some_and(|d| d > MAX_SPAN) {
                return bad(format!(
                    "{what} is longer than the longest run gqlbench accepts ({} days)",
                    MAX_SPAN.as_secs() / 86_400
                ));
            }
        }
        Ok(())
    }

    /// The load's schedule: its stages, and the closed model's pipelining or the open
    /// model's connections.
    fn check_schedule(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::InvalidPlan(m));
        let stages = match &self.schedule {
            Schedule::Closed { connections, .. } => &connections.stages,
            Schedule::Open { rate, .. } => &rate.stages,
        };
        if stages.iter().map(|s| s.duration).sum::<Duration>() > MAX_SPAN {
            return bad(format!(
                "the stages last longer than the longest run gqlbench accepts ({} days)",
                MAX_SPAN.as_secs() / 86_400
            ));
        }
        match &self.schedule {
            Schedule::Closed {
                connections,
                pipelining,
                ..
            } => {
                check_stages(connections, "connections")?;
                if *pipelining == 0 {
                    return bad("pipelining must be at least 1".into());
                }
                let persisted = self
                    .operations
                    .iter()
                    .flat_map(|o| &o.variants)
                    .any(|v| v.persisted.is_some());
                if persisted && *pipelining > 1 {
                    return bad(
                        "persisted queries are sent one at a time per connection (a miss is answered by sending the document): pipelining must be 1".into(),
                    );
                }
                if *pipelining > MAX_PIPELINING {
                    return bad(format!(
                        "pipelining {pipelining} is deeper than {MAX_PIPELINING} requests per connection"
                    ));
                }
            }
            Schedule::Open {
                rate,
                max_connections,
            } => {
                check_stages(rate, "rate")?;
                if (*max_connections as usize) < self.threads {
                    return bad(format!(
                        "max_connections ({max_connections}) must be at least the number of threads ({})",
                        self.threads
                    ));
                }
            }
        }
        Ok(())
    }
}

/// A schedule's stages: finite, never negative, and above zero at some time.
fn check_stages(s: &Stages, what: &str) -> Result<(), EngineError> {
    let values = std::iter::once(s.start).chain(s.stages.iter().map(|st| st.target));
    let mut max = 0.0f64;
    for v in values {
        if !v.is_finite() || v < 0.0 {
            return Err(EngineError::InvalidPlan(format!(
                "{what} must be finite and >= 0, got {v}"
            )));
        }
        max = max.max(v);
    }
    if max <= 0.0 {
        return Err(EngineError::InvalidPlan(format!(
            "{what} is zero at all times"
        )));
    }
    Ok(())
}

impl LoadPlan {
    /// Connections the plan may open at once: the closed model's peak, or the open
    /// model's pool limit.
    pub fn connections_needed(&self) -> u64 {
        match &self.schedule {
            Schedule::Closed { connections, .. } => {
                Curve::new(connections).max_value().ceil() as u64
            }
            Schedule::Open {
                max_connections, ..
            } => *max_connections as u64,
        }
    }

    /// `validate`, then what this machine can give the plan: an open file and a local port
    /// per connection. Raises the open-files limit as far as allowed first. Callers that
    /// plan many runs call it before starting anything, so a plan that cannot work is
    /// refused up front rather than run and found wanting.
    pub fn preflight(&self) -> Result<(), EngineError> {
        self.validate()?;
        let needed = self.connections_needed();
        if let Some((lo, hi)) = crate::limits::local_port_range() {
            let ports = hi.saturating_sub(lo) + 1;
            if needed > ports {
                return Err(EngineError::InvalidPlan(format!(
                    "{needed} connections to one address need as many local ports; this machine offers {ports} (net.ipv4.ip_local_port_range {lo} {hi})"
                )));
            }
        }
        let open_files = crate::limits::raise_open_files_limit();
        if open_files > 0 && needed + 64 > open_files {
            return Err(EngineError::InvalidPlan(format!(
                "{needed} connections need more open files than the limit of {open_files} (raise `ulimit -n`)"
            )));
        }
        Ok(())
    }
}

/// Longest warm-up, window, timeout or stage list accepted: far beyond any benchmark, far
/// below where adding it to a clock reading overflows.
pub const MAX_SPAN: Duration = Duration::from_secs(30 * 86_400);
/// Deepest pipeline accepted per connection.
pub const MAX_PIPELINING: u32 = 100_000;

/// How the caller steers and watches a running load.
#[derive(Debug, Clone, Default)]
pub struct Control {
    /// Set to stop promptly; the partial result comes back with `interrupted: true`.
    pub cancel: Arc<AtomicBool>,
    /// Progress, updated by the workers about every 100 ms.
    pub live: Arc<LiveStats>,
}
