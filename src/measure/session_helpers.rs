//! A session's first steps (`Session::start`): what runs beside a target and must be up
//! before it, since the target is given their addresses. A gateway's subgraphs (after the
//! check that it serves their graph), a gateway variant's coprocessor, a tracing variant's
//! trace collector. Each is stopped with the session, or dropped (stopped) when a later
//! step fails.
use super::collector::Collector;
use super::coprocessor::{self, Coprocessor};
use super::session::{FederationStart, StartFailure, StartOptions};
use super::subgraphs::{self, Subgraphs};
use crate::catalog::target_def::Customizes;
use crate::catalog::TargetDef;
use crate::results::TargetStatus;

/// A gateway's configuration names the subgraphs of the graphs it serves: on any other
/// graph it is skipped, before anything is started for it.
pub(super) fn check_graph(t: &TargetDef, f: Option<&FederationStart>) -> Result<(), StartFailure> {
    match f {
        Some(f) => match t.serves_graph(f.graph) {
            Ok(()) => Ok(()),
            Err(why) => Err(StartFailure::new(
                TargetStatus::Skipped,
                format!("not run on the {}: {why}", f.graph.label()),
                None,
            )),
        },
        None => Ok(()),
    }
}

/// A gateway's subgraphs and their supergraph, first: the gateway's start command names the
/// supergraph and its environment the subgraphs' URLs.
pub(super) fn subgraphs(
    t: &TargetDef,
    o: &StartOptions<'_>,
) -> Result<Option<Subgraphs>, StartFailure> {
    let Some(f) = &o.federation else {
        return Ok(None);
    };
    Subgraphs::start(subgraphs::Start {
        root: f.root,
        graph: f.graph,
        version: t.federation_version(),
        delays: f.delays,
        cpus: f.cpus,
        log: o.log.with_extension("subgraphs.log"),
        supergraph_out: o.log.with_extension("supergraph.graphql"),
        cancelled: o.cancelled,
    })
    .map(Some)
    .map_err(|e| StartFailure::new(TargetStatus::StartFailed, format!("subgraphs: {e:#}"), None))
}

/// A gateway variant's coprocessor, before the gateway that calls it (its URL is in the
/// gateway's environment). It runs where the subgraphs do (away from the gateway).
pub(super) fn coprocessor(
    t: &TargetDef,
    o: &StartOptions<'_>,
) -> Result<Option<Coprocessor>, StartFailure> {
    let Some(c) = &t.coprocessor_def else {
        return Ok(None);
    };
    Coprocessor::start(c, o.helper_cpus, coprocessor::log_path(&o.log), o.cancelled)
        .map(Some)
        .map_err(StartFailure::start_failed)
}

/// A tracing variant's trace collector (a span counter, behind a real collector when the
/// scenario names one), before the target that exports to it (its URL is in the target's
/// environment); on the helpers' CPUs.
pub(super) fn collector(
    t: &TargetDef,
    o: &StartOptions<'_>,
) -> Result<Option<Collector>, StartFailure> {
    let tracing = t
        .customization
        .as_ref()
        .is_some_and(|c| c.does == Customizes::Tracing);
    if !tracing {
        return Ok(None);
    }
    Collector::start(
        o.helper_cpus,
        &o.log.with_extension("otlp.log"),
        o.trace_collector,
        o.cancelled,
    )
    .map(Some)
    .map_err(StartFailure::start_failed)
}
