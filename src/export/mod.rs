//! Exports of a scenario's load for another engine. Today one: k6 (`gqlbench export k6`),
//! for a load that outgrows one machine (k6 with the k6-operator on Kubernetes). The
//! scenario is resolved exactly as `run` resolves it (`plan`); `plan.rs` turns that into
//! what an export needs, and one file per output writes it.
pub mod collect;
pub mod k6;
pub mod plan;
pub mod readme;
pub mod testrun;

pub use plan::{Executor, ExportPlan};

/// The k6 scenario that warms the target up. `gqlbench import k6` leaves out every sample
/// tagged with this scenario name: the contract between export and import.
pub const WARMUP_SCENARIO: &str = "warmup";
/// The k6 scenario whose samples are the measurement.
pub const MEASURED_SCENARIO: &str = "measured";
/// The checks every response goes through, by name (k6 reports them by these names).
pub const CHECKS: [&str; 3] = ["status is 200", "no errors", "data as expected"];
/// The k6 version the exported script and the import are tested with (tools/k6).
pub const K6_VERSION: &str = "v1.8.1";
/// Written beside the script; `gqlbench import k6` reads it when it sits beside k6's output.
pub const METADATA_FILE: &str = "gqlbench-export.json";
