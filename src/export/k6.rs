//! The k6 script of an export: k6's `options` (a `warmup` and a `measured` scenario with
//! the executor of the scenario's load), the operations with their cases and expected
//! answers, and the script around them (`script.js`, the same for every export).
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::plan::{Executor, ExportPlan};
use super::{MEASURED_SCENARIO, WARMUP_SCENARIO};

const TEMPLATE: &str = include_str!("script.js");
const PLACEHOLDER: &str = "/*GQLBENCH_PLAN*/ null";

/// k6's duration syntax, in whole milliseconds (exact for every duration gqlbench reads).
pub fn k6_duration(d: Duration) -> String {
    format!("{}ms", d.as_millis())
}

/// k6 takes an integer rate per time unit: a fractional rate is given per 1000 s.
fn rate(r: f64) -> (u64, &'static str) {
    if r.fract() == 0.0 {
        (r as u64, "1s")
    } else {
        ((r * 1000.0).round() as u64, "1000s")
    }
}

/// One k6 scenario running `ex` for `duration` from `start`.
fn scenario(ex: &Executor, duration: Duration, start: Duration) -> Value {
    let d = k6_duration(duration);
    let mut s = match ex {
        Executor::ConstantVus { vus } => json!({
            "executor": "constant-vus", "vus": vus, "duration": d,
        }),
        Executor::RampingVus { start_vus, stages } => json!({
            "executor": "ramping-vus",
            "startVUs": start_vus,
            "stages": stages.iter().map(|(d, t)| json!({"duration": k6_duration(*d), "target": t})).collect::<Vec<_>>(),
        }),
        Executor::ConstantArrivalRate { rate: r, max_vus } => {
            let (r, unit) = rate(*r);
            json!({
                "executor": "constant-arrival-rate", "rate": r, "timeUnit": unit, "duration": d,
                "preAllocatedVUs": max_vus, "maxVUs": max_vus,
            })
        }
        Executor::RampingArrivalRate {
            start_rate,
            stages,
            max_vus,
        } => {
            // One time unit for the start and every stage: per 1000 s when any is fractional.
            let fractional = std::iter::once(*start_rate)
                .chain(stages.iter().map(|(_, t)| *t))
                .any(|r| r.fract() != 0.0);
            let (scale, unit) = if fractional {
                (1000.0, "1000s")
            } else {
                (1.0, "1s")
            };
            json!({
                "executor": "ramping-arrival-rate",
                "startRate": (start_rate * scale).round() as u64, "timeUnit": unit,
                "stages": stages.iter().map(|(d, t)| json!({"duration": k6_duration(*d), "target": (t * scale).round() as u64})).collect::<Vec<_>>(),
                "preAllocatedVUs": max_vus, "maxVUs": max_vus,
            })
        }
    };
    if !start.is_zero() {
        s["startTime"] = json!(k6_duration(start));
    }
    s
}

/// The warm-up holds the load's starting level (a ramp starts where it starts).
fn warmup_executor(ex: &Executor) -> Executor {
    match ex {
        Executor::RampingVus { start_vus, .. } => Executor::ConstantVus { vus: *start_vus },
        Executor::RampingArrivalRate {
            start_rate,
            max_vus,
            ..
        } => Executor::ConstantArrivalRate {
            rate: *start_rate,
            max_vus: *max_vus,
        },
        other => other.clone(),
    }
}

/// Where the measured scenario's unique numbers start (see script.js).
const UNIQUE_OFFSET: u64 = 500_000_000;

/// k6's `options` for the plan.
pub fn options(p: &ExportPlan) -> Value {
    let mut scenarios = Map::new();
    if !p.warmup.is_zero() {
        let mut w = scenario(&warmup_executor(&p.executor), p.warmup, Duration::ZERO);
        // The warm-up's iterations end with it, so none of them overlaps the measurement.
        w["gracefulStop"] = json!("0s");
        scenarios.insert(WARMUP_SCENARIO.into(), w);
    }
    let mut m = scenario(&p.executor, p.duration, p.warmup);
    m["gracefulStop"] = json!(k6_duration(p.timeout));
    scenarios.insert(MEASURED_SCENARIO.into(), m);
    json!({
        "scenarios": scenarios,
        // A failed check in the measured window fails the run (k6 exits 99), as an invalid
        // row fails a gqlbench run.
        "thresholds": { format!("checks{{scenario:{MEASURED_SCENARIO}}}"): ["rate==1"] },
        "summaryTrendStats": ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "p(99.9)"],
        "discardResponseBodies": false,
    })
}

/// The whole script.
pub fn script(p: &ExportPlan) -> String {
    let plan = json!({
        "suite": p.suite,
        "scenario": p.scenario,
        "url": p.url,
        "options": options(p),
        "operations": p.operations,
        "headers": p.headers.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect::<Map<String, Value>>(),
        "unique_header": p.unique_header,
        "timeout": k6_duration(p.timeout),
        "think_time_s": p.think_time.as_secs_f64(),
        "measured_scenario": MEASURED_SCENARIO,
        // Unique numbers of the measured scenario start here, past any the warm-up sends
        // (GraphQL's Int is 32-bit: a run sends far fewer than this many per scenario).
        "unique_offset": UNIQUE_OFFSET,
    });
    let text = serde_json::to_string_pretty(&plan).unwrap_or_default();
    TEMPLATE.replacen(PLACEHOLDER, &text, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractional_rates_keep_their_value_per_time_unit() {
        assert_eq!(rate(200.0), (200, "1s"));
        assert_eq!(rate(0.5), (500, "1000s"));
    }

    #[test]
    fn the_template_has_one_placeholder() {
        assert_eq!(TEMPLATE.matches(PLACEHOLDER).count(), 1);
    }
}
