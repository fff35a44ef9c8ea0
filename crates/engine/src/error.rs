//! The engine's error type: only problems that make a run impossible (a bad URL, an
//! invalid plan, pinning that the kernel refused). Failures of the target during a run
//! are not errors: they are counted in the result.

/// Why the engine could not run (or could not start) a load.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The endpoint URL is not of the supported form `http://host[:port][/path]`.
    #[error("invalid endpoint URL {url:?}: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// The host name of the endpoint did not resolve to an address.
    #[error("cannot resolve {host:?}: {reason}")]
    Resolve { host: String, reason: String },
    /// The load plan is inconsistent (no operations, zero connections, no stop, ...).
    #[error("invalid load plan: {0}")]
    InvalidPlan(String),
    /// A worker thread could not be pinned to the requested CPUs.
    #[error("cannot pin worker thread to CPUs {cpus:?}: {reason}")]
    Pin { cpus: Vec<usize>, reason: String },
    /// The operating system refused a thread, runtime or socket the engine needs.
    #[error("engine I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// A worker thread panicked (a bug in the engine, never caused by the target).
    #[error("worker thread {0} panicked")]
    WorkerPanicked(usize),
}
