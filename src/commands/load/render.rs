//! How `gqlbench load` shows its result in a terminal: requests, latency (from the intended
//! send time in the open model), failures with examples, connections, the generator's own
//! cost and any saturation flag.
use anyhow::Result;

use super::LoadReport;
use crate::catalog::scenario::Model;
use crate::report::{Document, Exporter, Output, Terminal};

impl Document for LoadReport {
    const STEM: &'static str = "load";
}

impl Exporter<LoadReport> for Terminal {
    fn export(&self, r: &LoadReport) -> Result<Vec<Output>> {
        Ok(Terminal::output::<LoadReport>(render(r)))
    }
}

/// The terminal text of `load`: what was sent, what came back, and what the generator used.
fn render(r: &LoadReport) -> String {
    let x = &r.result;
    let mut out = requests(x);
    out.push_str(&latency(r));
    out.push_str(&failures(r));
    out.push_str(&connections(x));
    out.push_str(&format!(
        "  generator  {:.2} CPU-s on {} thread(s) ({:.0}% of {} core(s)), {} requests per CPU-second, peak RSS {}{}\n",
        r.generator.cpu_s,
        x.threads,
        r.generator.utilization * 100.0,
        r.generator.cores,
        crate::report::fmt_rps(r.requests_per_cpu_second),
        crate::units::fmt_bytes(r.generator.peak_rss_bytes),
        x.pinned_cpus
            .as_ref()
            .map(|c| format!(", pinned to CPUs {}", crate::units::fmt_cpus(c)))
            .unwrap_or_default()
    ));
    for f in &r.saturation {
        out.push_str(&format!("  ! saturation: {}\n", f.detail));
    }
    out
}

/// What was sent and answered, and the rate; a coarse count is said, with the rate from the
/// requests' own timing beside it.
fn requests(x: &gqlbench_engine::LoadResult) -> String {
    use crate::report::fmt_rps;
    let mut out = format!(
        "\n  requests   {} answered in {:.2} s: {} ok, {} failed{}{}\n  throughput {} req/s ({} ok req/s)\n",
        x.requests,
        x.elapsed_s,
        x.ok,
        x.failed,
        if x.unanswered > 0 {
            format!(" ({} of them got no response)", x.unanswered)
        } else {
            String::new()
        },
        if x.interrupted { " (INTERRUPTED)" } else { "" },
        fmt_rps(x.throughput_rps),
        fmt_rps(x.ok_rps)
    );
    // A count of whole requests moves by one per connection slot at each edge of the window:
    // with deep pipelining most of what it counts may have been answered long after the
    // window (`-p 40000 -c 2 -d 2s` counted 80,000 in 2 s; the last came at 8.7 s). Said,
    // with the rate from the requests' own timing beside it, never shown as measured.
    if let Some(step) = x
        .count_resolution
        .filter(|s| *s > crate::measure::throughput::COARSE)
    {
        let timed = x
            .timed_rps
            .filter(|t| t.is_finite())
            .map_or(String::new(), |t| {
                format!("; the requests' own timing gives {} req/s", fmt_rps(t))
            });
        out.push_str(&format!(
            "  ⚠ coarse count: {:.0} connection slots (connections × pipelining) over {} answers, a step of {:.1}%: requests in flight at the window's end count whole, however late they were answered{timed}\n",
            step * x.requests as f64,
            x.requests,
            step * 100.0
        ));
    }
    out
}

/// Latency percentiles (from the intended send time in the open model) and, when the
/// engine corrected them, the uncorrected ones and the send lag.
fn latency(r: &LoadReport) -> String {
    use crate::report::fmt_ms;
    let (x, l) = (&r.result, &r.result.latency);
    let mut out = String::new();
    if x.requests == 0 {
        out.push_str("  latency    none: no response was received\n");
    } else {
        out.push_str(&format!(
            "  latency ms avg {} | p50 {} | p90 {} | p95 {} | p99 {} | p99.9 {} | max {}{}\n",
            fmt_ms(l.mean_us),
            fmt_ms(l.p50_us as f64),
            fmt_ms(l.p90_us as f64),
            fmt_ms(l.p95_us as f64),
            fmt_ms(l.p99_us as f64),
            fmt_ms(l.p999_us as f64),
            fmt_ms(l.max_us as f64),
            if r.load.model == Model::Open {
                " (from the intended send time)"
            } else {
                ""
            }
        ));
    }
    if let (Some(u), Some(s)) = (&x.uncorrected_latency, &x.send_lag) {
        out.push_str(&format!(
            "  uncorrected p50 {} | p99 {} ms; send lag p50 {} | p99 {} ms; late {} of {} intended, unsent {}\n",
            fmt_ms(u.p50_us as f64),
            fmt_ms(u.p99_us as f64),
            fmt_ms(s.p50_us as f64),
            fmt_ms(s.p99_us as f64),
            x.late,
            x.intended_requests,
            x.unsent
        ));
    }
    out
}

/// How answers were checked, and what failed with examples.
fn failures(r: &LoadReport) -> String {
    let x = &r.result;
    let mut out = String::new();
    out.push_str(&format!(
        "  validation {}\n",
        if r.expected_answer {
            "status 200, JSON, no errors, data equal to --expect"
        } else {
            "status 200, JSON, no errors, data non-null (pass --expect to compare answers)"
        }
    ));
    if x.failed > 0 {
        out.push_str(&format!(
            "  failures   {}\n",
            x.failures
                .iter()
                .map(|(k, n)| format!("{} {n}", crate::results::kind_name(*k)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        for e in &x.failure_examples {
            out.push_str(&format!(
                "    e.g. {}: {}\n",
                crate::results::kind_name(e.kind),
                e.detail
            ));
        }
    }
    out
}

/// How the connections were used.
fn connections(x: &gqlbench_engine::LoadResult) -> String {
    use crate::report::fmt_ms;
    let mut out = String::new();
    if let Some(est) = x.connections.established_at_start {
        out.push_str(&format!(
            "  connect    {} of {} connections open when the load began{}\n",
            est,
            x.connections.planned,
            if x.connections.unused > 0 {
                format!(
                    "; {} completed no request in the window",
                    x.connections.unused
                )
            } else {
                String::new()
            }
        ));
    }
    out.push_str(&format!(
        "  connections {} used, requests per connection {}..{}, slowest connection p99 {} ms (median connection {} ms), {} reconnects\n",
        x.connections.connections_used,
        x.connections.min_connection_requests,
        x.connections.max_connection_requests,
        fmt_ms(x.connections.slowest_connection_p99_us as f64),
        fmt_ms(x.connections.median_connection_p99_us as f64),
        x.reconnects
    ));
    out
}
