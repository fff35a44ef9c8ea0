//! A gateway variant's customization (`[customization]` of its manifest): what it adds to
//! each request, and by which mechanism.
use serde::{Deserialize, Serialize};

/// A gateway customization under test (the extensibility suite). Each kind has a proof
/// that it ran, checked on every measured request; a variant that skips its work is
/// invalid, never measured as a bare round trip.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Customization {
    pub does: Customizes,
    /// How: "config", "rhai", "vrl", "coprocessor", "plugin".
    pub by: String,
    /// Client awareness: the status a bad token must get. 401 (the original's contract)
    /// unless the gateway's own mechanism answers otherwise (Hive Router's JWT
    /// authentication: 403), which the variant says here and the report shows.
    #[serde(default = "unauthorized")]
    pub rejects_with: u16,
}

fn unauthorized() -> u16 {
    401
}

#[derive(Deserialize, Serialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Customizes {
    /// A static header `source` on every subgraph request: every request the subgraphs
    /// see must carry it.
    SubgraphHeader,
    /// Ten response headers `guid-1`..`guid-10` of fresh UUIDs: every response must carry
    /// ten distinct values.
    GuidHeaders,
    /// Client name and version from an HS256 JWT in `authentication` reach every subgraph
    /// request, and a request with a bad token is answered 401.
    ClientAwareness,
    /// Traces exported over OTLP/HTTP to the run's collector (GQLBENCH_OTLP_URL): every
    /// trial must deliver spans.
    Tracing,
}

impl Customizes {
    pub fn label(self) -> &'static str {
        match self {
            Customizes::SubgraphHeader => "subgraph-header",
            Customizes::GuidHeaders => "guid-headers",
            Customizes::ClientAwareness => "client-awareness",
            Customizes::Tracing => "tracing",
        }
    }
}
