//! What a gateway variant's helpers saw during one trial, for its proof and its figures:
//! the watched headers at the subgraphs, the coprocessor's calls and CPU, the collector's
//! spans. Read before and after the trial; `measure::customization` judges the deltas.
use std::time::{Duration, Instant};

use super::collector::SpanCounts;
use super::session::Session;
use super::subgraphs::SeenHeaders;
use super::vitals::Sampler;
use crate::results::TracingUsage;

/// How long a tracing variant's exporter is given after a trial that saw no batch yet
/// (batch span processors export every few seconds; the OpenTelemetry SDKs' default
/// schedule delay is 5 s).
pub const TRACE_FLUSH: Duration = Duration::from_millis(5500);

pub struct VariantWatch {
    headers: Option<SeenHeaders>,
    calls: Option<u64>,
    spans: Option<SpanCounts>,
    copro_cpu: Option<Sampler>,
}

/// The trial's figures of a variant, and why they do not prove its customization.
#[derive(Default)]
pub struct VariantFigures {
    pub problems: Vec<String>,
    pub headers: std::collections::BTreeMap<String, std::collections::BTreeMap<String, u64>>,
    pub coprocessor_calls_per_request: Option<f64>,
    pub coprocessor_cpu_pct: Option<f64>,
    pub tracing: Option<TracingUsage>,
}

impl VariantWatch {
    /// Before the trial; `sampler` samples a process over the trial's window.
    pub fn start(sess: &Session, sampler: impl Fn(i32) -> Sampler) -> VariantWatch {
        VariantWatch {
            headers: sess.subgraphs.as_ref().and_then(|s| s.headers()),
            calls: sess.coprocessor.as_ref().and_then(|c| c.calls()),
            spans: sess.collector.as_ref().and_then(|c| c.counts()),
            copro_cpu: sess.coprocessor.as_ref().map(|c| sampler(c.process.pid)),
        }
    }

    /// After the trial: `client` requests were sent (warm-up and window), with `headers`.
    pub fn finish(
        self,
        sess: &mut Session,
        client: u64,
        headers: &[(String, String)],
        cancelled: &dyn Fn() -> bool,
    ) -> VariantFigures {
        let per_client = |n: u64| {
            if client > 0 {
                n as f64 / client as f64
            } else {
                0.0
            }
        };
        let custom = sess.customization.as_ref();
        let mut f = VariantFigures {
            coprocessor_cpu_pct: self.copro_cpu.and_then(|s| s.finish().cpu_avg_pct),
            ..Default::default()
        };
        if let Some(s) = &sess.subgraphs {
            let seen = self.headers.zip(s.headers()).map(|(a, b)| a.delta(&b));
            match (&seen, custom) {
                (None, Some(c)) => f.problems.push(format!(
                    "customization {}: the subgraphs' header counts are unreadable, so nothing proves it ran",
                    c.does.label()
                )),
                (Some(d), _) => f
                    .problems
                    .extend(super::customization::subgraph_problem(custom, d, headers)),
                _ => {}
            }
            f.headers = seen.map(|d| d.headers).unwrap_or_default();
        }
        if let Some(c) = sess.coprocessor.as_mut() {
            f.coprocessor_calls_per_request = self
                .calls
                .zip(c.calls())
                .map(|(a, b)| per_client(b.saturating_sub(a)));
            if f.coprocessor_calls_per_request.is_none() {
                f.problems.push(format!(
                    "coprocessor {} stats unreadable: did it die? (its log: {})",
                    c.name,
                    c.process.log.display()
                ));
            }
            if let Some(st) = c.process.exited() {
                f.problems
                    .push(format!("coprocessor {} exited ({st})", c.name));
            }
        }
        // Exporters send in batches every few seconds, so a trial's count runs one batch
        // late (the previous trial's tail in, its own tail out: even over the rounds). A
        // trial that saw no batch yet waits for one, up to TRACE_FLUSH, before it is judged.
        if let Some(c) = &sess.collector {
            let waited = Instant::now();
            let mut after = c.counts();
            while after
                .zip(self.spans)
                .is_some_and(|(b, a)| b.spans == a.spans)
                && waited.elapsed() < TRACE_FLUSH
                && !cancelled()
            {
                std::thread::sleep(Duration::from_millis(100));
                after = c.counts();
            }
            f.problems.extend(super::customization::tracing_problem(
                custom, self.spans, after,
            ));
            let (a, b) = (self.spans.unwrap_or_default(), after.unwrap_or_default());
            let spans = b.spans.saturating_sub(a.spans);
            f.tracing = Some(TracingUsage {
                spans,
                spans_per_request: per_client(spans),
                exports: b.requests.saturating_sub(a.requests),
            });
        }
        f
    }
}
