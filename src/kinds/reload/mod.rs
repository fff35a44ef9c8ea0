//! Supergraph reload, a base kind: how a gateway takes a new supergraph while it runs.
//! Each target (a federation gateway, started with GQLBENCH_RELOAD=1 so that it watches its
//! supergraph file) is warmed by one trial of the scenario's load; then its session's
//! supergraph file is replaced, `reloads` times, by an equivalent one whose Query type has
//! a new description (`"""gqlbench reload <count>"""`), and introspection is polled on
//! loopback until the gateway serves it: the reload time. The scenario's operation follows
//! at once (the first request after the reload, answer checked) and once more (the warm
//! figure). Polls and requests that fail meanwhile are counted. A reload that is not served
//! within `timeout` makes the trial invalid, saying why; the other targets go on.
mod record;
mod report;
pub mod watch;

pub use record::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use serde::Deserialize;

use crate::catalog::humantime_serde_compat as hd;
use crate::kind::{Kind, KindDef, ResolveCx, TrialCx};
use crate::results::{ScenarioResult, TargetResult, TrialResult};
use crate::stats;
use watch::Reload;

pub const DEF: KindDef = KindDef {
    tables: |s| report::table(s).into_iter().collect(),
    list: |v, _, line| {
        format!(
            "{line}, then {} supergraph reloads timed",
            v.get("reloads").and_then(|r| r.as_integer()).unwrap_or(5)
        )
    },
    // Its targets watch their supergraph only when started with its environment; its own
    // run checks every answer before the load, as `check` would.
    skip_in_check: crate::kind::always,
    not_in_k6: Some("a reload rewrites the gateway's supergraph file between requests, which a k6 script cannot do"),
    ..KindDef::base("reload", resolve)
};

/// The environment variable that tells a gateway to watch its supergraph file.
pub const ENV: &str = "GQLBENCH_RELOAD";

/// Time between two polls of the gateway while a reload is awaited.
const POLL: Duration = Duration::from_millis(5);
/// Nominal seconds one reload takes, for progress and the time budget: the pause before it
/// (1.5 s on average) and a gateway polling its file every 500 ms or so.
const NOMINAL_RELOAD_S: f64 = 2.5;
/// Before each rewrite, a pause of up to this long, a different fraction of it each time: a
/// gateway that polls its file on a timer would otherwise see every rewrite at the same
/// phase of its timer (the previous reload was seen at a tick, and the next rewrite comes
/// right after it), and its reload time would be one whole interval every time instead of
/// spread over the interval as a real deploy's is. 3 s is the longest interval among the
/// gateways served (Apollo Router's file watch); shorter ones are covered several times.
const DESYNC: Duration = Duration::from_secs(3);
/// The longest `timeout` accepted: every wait of this kind stays bounded.
const MAX_TIMEOUT: Duration = Duration::from_secs(300);

/// `[reload]`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
struct Spec {
    /// Reloads per target (5 or more for a median and a maximum that mean something).
    #[serde(default = "five")]
    reloads: u32,
    /// How long the new schema may take to be served before the reload counts as failed.
    #[serde(default = "thirty_s", with = "hd")]
    timeout: Duration,
}

fn five() -> u32 {
    5
}

fn thirty_s() -> Duration {
    Duration::from_secs(30)
}

fn resolve(cx: &ResolveCx<'_>, _: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let Some(spec): Option<Spec> = cx.spec("reload")? else {
        return Ok(None);
    };
    if spec.reloads == 0 {
        return Err(cx
            .bad("[reload] `reloads` must be at least 1 (5 or more for statistics)".into())
            .into());
    }
    if spec.timeout.is_zero() || spec.timeout > MAX_TIMEOUT {
        return Err(cx
            .bad(format!(
                "[reload] `timeout` = \"{}\": give a time above zero and at most 300s",
                humantime::format_duration(spec.timeout)
            ))
            .into());
    }
    if cx.def.file.operations.is_empty() {
        return Err(cx
            .bad("[reload] needs one [[operations]]: the request sent after each reload".into())
            .into());
    }
    Ok(Some(Arc::new(Reloads {
        reloads: spec.reloads,
        timeout: spec.timeout,
    })))
}

#[derive(Debug)]
pub struct Reloads {
    pub reloads: u32,
    pub timeout: Duration,
}

impl Kind for Reloads {
    fn describe(&self, s: &mut ScenarioResult) {
        s.by_kind.set(
            &SPEC,
            &ReloadInfo {
                reloads: self.reloads,
                timeout_s: self.timeout.as_secs_f64(),
                poll_ms: POLL.as_secs_f64() * 1000.0,
            },
        );
    }

    /// One trial per target: its reloads are the samples.
    fn trials(&self, _: u32) -> u32 {
        1
    }

    fn adaptive_rounds(&self) -> bool {
        false
    }

    fn trial_secs(&self, sp: &crate::kind::ScenarioPlan) -> f64 {
        (sp.warmup + sp.duration).as_secs_f64() + NOMINAL_RELOAD_S * self.reloads as f64
    }

    fn env(&self, env: &mut BTreeMap<String, String>) {
        env.insert(ENV.into(), "1".into());
    }

    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        let mut t = crate::kind::load::trial(cx);
        // A target that failed its load is not reloaded: its row is already invalid.
        if t.valid {
            let samples = self.reload_all(cx);
            if let Some(bad) = samples.iter().find(|s| !s.is_ok()) {
                t.valid = false;
                t.problems.push(format!(
                    "reload {}/{}: {}",
                    bad.reload,
                    self.reloads,
                    bad.problem.as_deref().unwrap_or("")
                ));
            }
            t.by_kind.set(&SAMPLES, &samples);
        }
        t
    }

    fn summarize(&self, sp: &crate::kind::ScenarioPlan, tr: &mut TargetResult) {
        crate::kind::load::summarize(sp, tr);
        match summarize(tr) {
            Some(s) => tr.by_kind.set(&SUMMARY, &s),
            None => tr.by_kind.remove(&SUMMARY),
        }
    }

    fn trial_line(&self, label: &str, t: &TrialResult) -> String {
        let load = crate::kind::load::trial_line(label, t);
        let samples = t.by_kind.get(&SAMPLES).unwrap_or_default();
        let times: Vec<f64> = samples.iter().filter_map(|s| s.reload_s).collect();
        let ok = samples.iter().filter(|s| s.is_ok()).count();
        match stats::estimate(&times) {
            e if e.n > 0 => format!(
                "{load}; {ok}/{} reloads, served after {:.0} ms median ({:.0} ms max)",
                samples.len(),
                e.median * 1000.0,
                e.max * 1000.0
            ),
            _ => format!("{load}; {ok}/{} reloads", samples.len()),
        }
    }
}

impl Reloads {
    /// The reloads of one warmed target, in order; they stop at the first that fails (its
    /// sample says why), as the gateway's state is unknown after it.
    fn reload_all(&self, cx: &mut TrialCx<'_>) -> Vec<ReloadSample> {
        let failed = |problem: String| ReloadSample {
            reload: 1,
            description: String::new(),
            reload_s: None,
            first_request_s: None,
            second_request_s: None,
            polls: 0,
            failed_requests: 0,
            problem: Some(problem),
        };
        let Some(path) = cx.sess.subgraphs.as_ref().map(|s| s.supergraph.clone()) else {
            return vec![failed(
                "no supergraph file: the reload scenario is for gateways (kind = \"gateway\"), whose session writes one".into(),
            )];
        };
        let Some(operation) = cx.ops.first().and_then(|o| o.variants.first()) else {
            return vec![failed("the scenario has no operation to send".into())];
        };
        let ctx = cx.ctx;
        let cancelled = || ctx.cancelled();
        let r = Reload {
            endpoint: &cx.sess.endpoint,
            headers: &cx.sp.load.headers,
            supergraph: &path,
            operation,
            timeout: self.timeout,
            poll: POLL,
            cancelled: &cancelled,
        };
        if let Err(why) = r.introspection_allowed() {
            return vec![failed(why)];
        }
        let mut out = Vec::new();
        for n in 1..=self.reloads {
            cx.progress
                .message(format!("{}: reload {n}/{}", cx.label, self.reloads));
            std::thread::sleep(DESYNC.mul_f64(desync_fraction(n)));
            let s = r.run(&mut cx.sess.process, n);
            let stop = !s.is_ok();
            out.push(s);
            if stop {
                break;
            }
        }
        out
    }
}

/// The fraction of [`DESYNC`] paused before reload `n`: the golden-ratio sequence, spread
/// evenly over [0, 1) for any number of reloads and the same in every run.
pub fn desync_fraction(n: u32) -> f64 {
    (n as f64 * 0.618_033_988_749_895).fract()
}

/// A target's summary over the reloads of its counted trials (those not measured again);
/// None before any reload.
pub fn summarize(tr: &TargetResult) -> Option<ReloadSummary> {
    let samples: Vec<ReloadSample> = tr
        .trials
        .iter()
        .filter(|t| t.excluded.is_none())
        .flat_map(|t| t.by_kind.get(&SAMPLES).unwrap_or_default())
        .collect();
    if samples.is_empty() {
        return None;
    }
    let ok: Vec<&ReloadSample> = samples.iter().filter(|s| s.is_ok()).collect();
    let col = |f: fn(&ReloadSample) -> Option<f64>| -> Vec<f64> {
        ok.iter().filter_map(|s| f(s)).collect()
    };
    Some(ReloadSummary {
        reloads: samples.len() as u32,
        ok: ok.len() as u32,
        reload_s: stats::estimate(&col(|s| s.reload_s)),
        first_request_s: stats::estimate(&col(|s| s.first_request_s)),
        second_request_s: stats::estimate(&col(|s| s.second_request_s)),
        failed_requests: samples.iter().map(|s| s.failed_requests as u64).sum(),
    })
}

#[cfg(test)]
mod tests;
