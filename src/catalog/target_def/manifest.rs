//! What a `target.toml` says, as written: the target's kind, its description and
//! versioning, and its sections (install, start, settings, federation, customization),
//! read by [`super::TargetDef::load`].
use serde::{Deserialize, Serialize};

use super::{Customization, InstallSpec, Settings, StartSpec};

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A GraphQL server (the default of a result made without a catalogue, as an import).
    #[default]
    Server,
    Gateway,
    Subgraph,
    Baseline,
    /// A process a gateway calls per request (an Apollo Router coprocessor); started with
    /// the gateway variant that names it, never measured on its own.
    Coprocessor,
    /// A trace collector (a real OpenTelemetry Collector) that an overhead scenario puts
    /// between its tracing variants and gqlbench's span counter; started with each tracing
    /// variant, never measured on its own.
    Collector,
}

impl TargetKind {
    /// The name used in target.toml and reports.
    pub fn label(self) -> &'static str {
        match self {
            TargetKind::Server => "server",
            TargetKind::Gateway => "gateway",
            TargetKind::Subgraph => "subgraph",
            TargetKind::Baseline => "baseline",
            TargetKind::Coprocessor => "coprocessor",
            TargetKind::Collector => "collector",
        }
    }
}

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct TargetFile {
    pub name: String,
    /// A variant of another target (a gateway with a customization): every field not
    /// given here is the base's (tables merged field by field), and it starts in its own
    /// folder, so a relative config file it gives is its own (one it inherits stays the
    /// base's: `base::merged_with_base`).
    pub base: Option<String>,
    pub kind: TargetKind,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub workloads: Vec<String>,
    /// Measured only when named (`--targets`, or a scenario's own `targets` list): a
    /// scenario choosing its targets by workload leaves it out otherwise, so the default
    /// run's scope and budget stay as they are when servers a team may also weigh are added.
    #[serde(default)]
    pub optional: bool,
    /// Workloads this target cannot serve, each with why (a batch, a transport it lacks): a
    /// scenario of such a workload lists it as "not supported: <why>" instead of running
    /// it. A variant (`base`) inherits the table but is never listed.
    #[serde(default)]
    pub unsupported: std::collections::BTreeMap<String, String>,
    /// The package whose version reports show, read from the lockfile.
    pub package: Option<String>,
    /// The version, for targets without an npm lockfile (native builds).
    pub version: Option<String>,
    /// `node` makes gqlbench preload its GC probe.
    pub runtime: Option<String>,
    pub install: Option<InstallSpec>,
    pub start: StartSpec,
    #[serde(default)]
    pub settings: Settings,
    /// Gateways: which subgraph SDL flavour they need.
    pub federation: Option<FederationSpec>,
    /// A coprocessor target started beside this one (see [`TargetKind::Coprocessor`]); its
    /// URL reaches the gateway as GQLBENCH_COPROCESSOR_URL.
    pub coprocessor: Option<String>,
    /// What this variant adds to each request, and how the run proves it happened.
    pub customization: Option<Customization>,
}

#[derive(Deserialize, Debug, Clone, Default)]
#[serde(deny_unknown_fields)]
pub struct FederationSpec {
    /// "v1" or "v2" (default).
    #[serde(default = "default_fed")]
    pub version: String,
    /// The graphs it can be put in front of ("demo", "wide"); omitted means all. A gateway
    /// whose own configuration lists the demo's four subgraphs says ["demo"].
    pub graphs: Option<Vec<String>>,
}

fn default_fed() -> String {
    "v2".into()
}
