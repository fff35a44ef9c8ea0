//! How a target is started (`[start]` of its manifest): command, port, readiness, config
//! file, and the start-up refusals that skip it rather than fail it.
use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

use crate::catalog::humantime_serde_compat;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct StartSpec {
    pub command: Vec<String>,
    #[serde(default = "default_port_env")]
    pub port_env: String,
    #[serde(default = "default_path")]
    pub path: String,
    #[serde(default = "default_ready", with = "humantime_serde_compat")]
    pub ready_timeout: Duration,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The least warm-up this target needs after each fresh start, run against it alone
    /// (until steady, at most twice this) before it is measured: a JVM compiles its hot
    /// code over its first ~20 s under load. Without it a scenario's own warm-up had to be
    /// that long for every target it holds, and the JIT's work landed in the others'
    /// slices of an alternating round.
    #[serde(default, with = "humantime_serde_compat::option")]
    pub warmup: Option<Duration>,
    /// A config file the command names as `{config}` (relative to the target's folder), so
    /// a variant can point the base's command at another file.
    pub config: Option<String>,
    /// Render `config` at start: `${env.NAME}` in it replaced by what the run gives the
    /// target (port, coprocessor and collector URLs), for gateways that do not expand
    /// environment references in their config files themselves (Hive Router).
    #[serde(default)]
    pub render_config: bool,
    /// Start-up refusals that are this machine's lot, not the target's fault (a feature
    /// behind a licence the run cannot have): the target is skipped with `why`.
    #[serde(default)]
    pub refusals: Vec<Refusal>,
}

/// `{ log = "license violation", why = "..." }`: when a target exits during start-up and its
/// output holds `log`, it is skipped (not failed) with `why` and the line that matched.
#[derive(Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Refusal {
    pub log: String,
    pub why: String,
}

fn default_port_env() -> String {
    "PORT".into()
}
fn default_path() -> String {
    "/graphql".into()
}
fn default_ready() -> Duration {
    Duration::from_secs(30)
}
