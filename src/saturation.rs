//! The saturation guard: a result is flagged, never silently ranked, when the figure may
//! describe the load generator or the schedule rather than the target.
use crate::plan::load::{Arrival, Load};
use crate::results::{GeneratorUsage, SaturationFlag};
use gqlbench_engine::LoadResult;

/// Flags that qualify a figure without making it the generator's or the schedule's: the
/// warm-up never settled (`unsteady`), other processes ran on the run's CPUs during a
/// trial measured twice (`interference`), or the run's time budget ended a sweep before it
/// had found the limit to its resolution (`budget`: its figure is a lower bound), or a
/// closed-model row's req/s disagrees with Little's law beyond its interval (`littles_law`,
/// raised for the row by `summary::checks`, not by a trial). The row
/// stays valid, ranked and comparable, and the report names the caveat; a compare gate
/// failing on machine noise would be switched off.
pub fn is_caveat(f: &SaturationFlag) -> bool {
    f.kind.is_caveat()
}

/// Generator CPU above this share of its cores means it may be the bottleneck.
pub const GENERATOR_CPU_LIMIT: f64 = 0.80;
/// Open model: send lag p99 above this means requests did not leave on time (or above a
/// quarter of the gap between two sends at a fixed rate, when that is longer:
/// `send_lag_limit_us`).
pub const SEND_LAG_P99_LIMIT_US: u64 = 5_000;

/// The send lag a trial of `load` may show: [`SEND_LAG_P99_LIMIT_US`], or at a fixed rate a
/// quarter of the gap between two sends when that is longer. At 20 req/s a send 9 ms late
/// still leaves 41 ms before the next: no requests bunch up and the target sees the rate
/// asked, while a 60-request window's p99 is its one or two latest sends.
fn send_lag_limit_us(load: &Load) -> u64 {
    match load.arrival {
        Arrival::Open { rate, .. } if rate > 0.0 && load.stages.is_empty() => {
            SEND_LAG_P99_LIMIT_US.max((0.25e6 / rate) as u64)
        }
        _ => SEND_LAG_P99_LIMIT_US,
    }
}
/// The send lag's tail that is judged: p99 when at least 5 sends lie above it (500 sends
/// or more), else p95 (100 or more), else p90. A fixed rate of 50 req/s sends 100 requests
/// in a 2 s trial, whose p99 is its single latest send: one wake-up delayed by a subgraph
/// sharing the generator's CPU, or by the hypervisor, flagged a twin of the same build
/// "saturated" (docs/runs/efficiency-twins-2026-11-30), while a generator that falls behind
/// is late on many sends.
fn send_lag_tail(lag: &gqlbench_engine::LatencySummary) -> (&'static str, u64) {
    match lag.count {
        n if n >= 500 => ("p99", lag.p99_us),
        n if n >= 100 => ("p95", lag.p95_us),
        _ => ("p90", lag.p90_us),
    }
}

/// Open model: achieved below this share of the intended rate.
pub const RATE_SHORTFALL: f64 = 0.95;
/// Closed model: measured throughput at or above this share of the think-time cap
/// connections / think_time means the cap, not the target, set the figure.
pub const CLOSED_CAP_SHARE: f64 = 0.70;

pub fn check(load: &Load, r: &LoadResult, g: &GeneratorUsage) -> Vec<SaturationFlag> {
    let mut flags = Vec::new();
    if g.utilization > GENERATOR_CPU_LIMIT {
        flags.push(SaturationFlag {
            kind: crate::results::FlagKind::GeneratorCpu,
            detail: format!(
                "load generator used {:.0}% of its {} CPU(s) (limit {:.0}%): the generator may be the bottleneck",
                g.utilization * 100.0,
                g.cores,
                GENERATOR_CPU_LIMIT * 100.0
            ),
        });
    }
    if load.is_open() {
        if let Some(lag) = &r.send_lag {
            let (name, tail_us) = send_lag_tail(lag);
            if tail_us > send_lag_limit_us(load) {
                flags.push(SaturationFlag {
                    kind: crate::results::FlagKind::SendLag,
                    detail: format!(
                        "send lag {name} {:.1} ms: requests left later than intended",
                        tail_us as f64 / 1000.0
                    ),
                });
            }
        }
        // A request or two due in the last instant of the window is an edge effect, not
        // a generator that fell behind.
        if r.unsent > (r.intended_requests / 1000).max(2) {
            flags.push(SaturationFlag {
                kind: crate::results::FlagKind::Unsent,
                detail: format!("{} intended requests were never sent", r.unsent),
            });
        }
        if r.intended_requests > 0 {
            let achieved = r.requests as f64 / r.intended_requests as f64;
            // As for `unsent`: a request or two short at a low rate is an edge effect.
            let missing = r.intended_requests.saturating_sub(r.requests);
            if achieved < RATE_SHORTFALL && missing > 2 {
                flags.push(SaturationFlag {
                    kind: crate::results::FlagKind::RateShortfall,
                    detail: format!(
                        "only {:.0}% of the intended {} requests completed",
                        achieved * 100.0,
                        r.intended_requests
                    ),
                });
            }
        }
    }
    if r.connections.unused > 0 {
        flags.push(SaturationFlag {
            kind: crate::results::FlagKind::ConnectionsUnused,
            detail: format!(
                "{} of {} connections completed no request in the measured window: {}",
                r.connections.unused,
                r.connections.planned,
                unused_cause(load, r)
            ),
        });
    }
    let think = match load.arrival {
        Arrival::Closed { think_time, .. } => think_time.as_secs_f64(),
        Arrival::Open { .. } => 0.0,
    };
    if !load.is_open() && think > 0.0 && r.elapsed_s > 0.0 {
        let cap = load.connections() as f64 / think;
        let rps = r.requests as f64 / r.elapsed_s;
        if rps >= cap * CLOSED_CAP_SHARE {
            flags.push(SaturationFlag {
                kind: crate::results::FlagKind::ClosedModelCap,
                detail: format!(
                    "{} connections with {:.0} ms think time cap throughput at {:.0} req/s (Little's law); measured {:.0} req/s is set by the schedule, not the target",
                    load.connections(),
                    think * 1000.0,
                    cap,
                    rps
                ),
            });
        }
    }
    flags
}

/// Why connections completed nothing in the window, from what the engine measured: their
/// requests timed out, failed to connect or were cut, or the connections were not open when
/// the load began; when none of that happened, their answers were still to come when the
/// window closed. Nothing is guessed (a full listen queue was named once for a target that
/// simply answered slower than the timeout).
fn unused_cause(load: &Load, r: &LoadResult) -> String {
    use gqlbench_engine::FailureKind as K;
    let n = |k: K| r.failures.get(&k).copied().unwrap_or(0);
    let mut causes = Vec::new();
    if n(K::Timeout) > 0 {
        causes.push(format!(
            "{} requests got no answer within the {} timeout (the target answered slower than that)",
            n(K::Timeout),
            humantime::format_duration(load.timeout)
        ));
    }
    if n(K::Connect) > 0 {
        causes.push(format!("{} connection attempts failed", n(K::Connect)));
    }
    if n(K::Closed) > 0 {
        causes.push(format!(
            "{} requests were cut by the connection closing before their answer",
            n(K::Closed)
        ));
    }
    match r.connections.established_at_start {
        Some(e) if e < r.connections.planned => causes.push(format!(
            "only {e} of {} were open when the load began",
            r.connections.planned
        )),
        _ => {}
    }
    if causes.is_empty() {
        return "none of their requests failed and every connection was open when the load began: their answers were still to come when the window closed (the target answered slower than the window is long)".into();
    }
    causes.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(model: &str, connections: u32, think: f64) -> Load {
        let arrival = if model == "open" {
            Arrival::Open {
                rate: 100.0,
                max_connections: connections,
            }
        } else {
            Arrival::Closed {
                connections,
                pipelining: 1,
                think_time: std::time::Duration::from_secs_f64(think),
            }
        };
        Load {
            arrival,
            stages: vec![],
            timeout: std::time::Duration::from_secs(10),
            unique_request_header: false,
            headers: Vec::new(),
        }
    }

    fn usage(u: f64) -> GeneratorUsage {
        GeneratorUsage {
            cpu_s: u,
            cores: 1,
            utilization: u,
            peak_rss_bytes: 0,
        }
    }

    #[test]
    fn think_time_cap_of_the_article_is_flagged() {
        // 100 VUs sleeping 0.1 s cannot exceed 1,000 req/s, whatever the server does.
        let r = LoadResult {
            requests: 9_500,
            elapsed_s: 10.0,
            ..Default::default()
        };
        let f = check(&load("closed", 100, 0.1), &r, &usage(0.1));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].kind.as_str(), "closed_model_cap");
        assert!(f[0].detail.contains("1000 req/s"), "{}", f[0].detail);
        // Far below the cap the schedule does not explain the figure.
        let r = LoadResult {
            requests: 2_000,
            elapsed_s: 10.0,
            ..Default::default()
        };
        assert!(check(&load("closed", 100, 0.1), &r, &usage(0.1)).is_empty());
    }

    #[test]
    fn busy_generator_and_open_model_shortfalls_are_flagged() {
        let r = LoadResult {
            requests: 1_000,
            elapsed_s: 1.0,
            ..Default::default()
        };
        let kinds = |f: Vec<SaturationFlag>| {
            f.into_iter()
                .map(|x| x.kind.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            kinds(check(&load("closed", 10, 0.0), &r, &usage(0.95))),
            ["generator_cpu"]
        );
        assert!(check(&load("closed", 10, 0.0), &r, &usage(0.5)).is_empty());
        let open = LoadResult {
            requests: 800,
            intended_requests: 1_000,
            unsent: 150,
            elapsed_s: 1.0,
            send_lag: Some(gqlbench_engine::LatencySummary {
                count: 850,
                p99_us: 20_000,
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(
            kinds(check(&load("open", 10, 0.0), &open, &usage(0.5))),
            ["send_lag", "unsent", "rate_shortfall"]
        );
        // At 20 req/s (50 ms between sends) a send 9 ms late bunches nothing; 15 ms is
        // over a quarter of the gap.
        let mut slow = load("open", 10, 0.0);
        slow.arrival = Arrival::Open {
            rate: 20.0,
            max_connections: 10,
        };
        let lag = |ms: u64| LoadResult {
            requests: 60,
            intended_requests: 60,
            elapsed_s: 3.0,
            send_lag: Some(gqlbench_engine::LatencySummary {
                count: 60,
                p90_us: ms * 1000,
                p95_us: ms * 1000,
                p99_us: ms * 1000,
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(check(&slow, &lag(9), &usage(0.1)).is_empty());
        assert_eq!(kinds(check(&slow, &lag(15), &usage(0.1))), ["send_lag"]);
        assert_eq!(
            kinds(check(&load("open", 10, 0.0), &lag(9), &usage(0.1))),
            ["send_lag"],
            "at 100 req/s the limit stays 5 ms"
        );
        // At 50 req/s a 2 s trial sends 100 requests: its p99 is one send. One late send
        // (p99 6 ms) is not a generator behind; five or more (p95 6 ms) are.
        let mut fifty = load("open", 10, 0.0);
        fifty.arrival = Arrival::Open {
            rate: 50.0,
            max_connections: 10,
        };
        let hundred = |p95_ms: u64, p99_ms: u64| LoadResult {
            requests: 100,
            intended_requests: 100,
            elapsed_s: 2.0,
            send_lag: Some(gqlbench_engine::LatencySummary {
                count: 100,
                p95_us: p95_ms * 1000,
                p99_us: p99_ms * 1000,
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(check(&fifty, &hundred(1, 6), &usage(0.1)).is_empty());
        let late = check(&fifty, &hundred(6, 6), &usage(0.1));
        assert_eq!(kinds(late.clone()), ["send_lag"]);
        assert!(late[0].detail.contains("p95 6.0 ms"), "{}", late[0].detail);
        let edge = LoadResult {
            requests: 1_000,
            intended_requests: 1_000,
            unsent: 1,
            elapsed_s: 1.0,
            ..Default::default()
        };
        assert!(check(&load("open", 10, 0.0), &edge, &usage(0.5)).is_empty());
        // 1 of 2 intended at 1.5 req/s: not a shortfall to speak of.
        let low = LoadResult {
            requests: 1,
            intended_requests: 2,
            elapsed_s: 1.0,
            ..Default::default()
        };
        assert!(check(&load("open", 10, 0.0), &low, &usage(0.1)).is_empty());
        let unused = LoadResult {
            requests: 1_000,
            elapsed_s: 1.0,
            connections: gqlbench_engine::ConnectionSpread {
                planned: 5_000,
                established_at_start: Some(4_473),
                unused: 527,
                ..Default::default()
            },
            ..Default::default()
        };
        let f = check(&load("closed", 5_000, 0.0), &unused, &usage(0.5));
        assert_eq!(kinds(f.clone()), ["connections_unused"]);
        assert!(
            f[0].detail.contains("527 of 5000")
                && f[0]
                    .detail
                    .contains("only 4473 of 5000 were open when the load began"),
            "{}",
            f[0].detail
        );
    }

    #[test]
    fn unused_connections_are_blamed_on_what_was_measured() {
        // A target answering after 10 s, loaded with a 500 ms timeout: every request timed
        // out. That is the cause, not a listen queue.
        let mut slow = LoadResult {
            elapsed_s: 1.0,
            connections: gqlbench_engine::ConnectionSpread {
                planned: 4,
                established_at_start: Some(4),
                unused: 4,
                ..Default::default()
            },
            ..Default::default()
        };
        slow.failures
            .insert(gqlbench_engine::FailureKind::Timeout, 8);
        let mut l = load("closed", 4, 0.0);
        l.timeout = std::time::Duration::from_millis(500);
        let d = &check(&l, &slow, &usage(0.1))[0].detail;
        assert_eq!(
            d,
            "4 of 4 connections completed no request in the measured window: 8 requests got no answer within the 500ms timeout (the target answered slower than that)"
        );
        assert!(!d.contains("listen queue"));
        // Nothing failed, all connected: the answers were still to come.
        slow.failures.clear();
        let d = &check(&l, &slow, &usage(0.1))[0].detail;
        assert!(d.contains("their answers were still to come"), "{d}");
    }
}
