//! Overhead, a decorating kind: what a variant (a gateway with a customization, a target
//! with `base` in its target.toml) adds to each request over its base (the same gateway
//! without it). Variant and base run
//! in the same interleaved rounds, usually at a fixed open-model rate, so each round is a
//! block: the added latency at p50, p95 and p99 is the mean of the per-round differences,
//! with a t interval over the rounds (`stats::paired_difference`); drift of the machine
//! between rounds cancels out. An interval that includes 0 is "below resolution", with
//! the resolution (the interval's half-width) shown, never a "faster than baseline" claim.
//! CPU per request (gateway, coprocessor) and coprocessor calls per request come along.
use std::sync::Arc;

use anyhow::Result;

use serde::{Deserialize, Serialize};

use crate::catalog::scenario::Model;
use crate::kind::{Kind, KindDef, ResolveCx};
use crate::results::{Key, ScenarioResult, TargetResult, TrialResult};
use crate::stats::{paired_difference, Difference};
use crate::summary::efficiency::cpu_us_per_request;
use crate::view::cells::dash;
use crate::view::Table;

/// `overhead` of a scenario.
pub const SPEC: Key<OverheadSpec> = Key::new("overhead");

/// An overhead scenario's `[overhead]`: every variant (a target with a `base`) is compared
/// with its base, round by round.
#[derive(Deserialize, Serialize, Debug, Clone, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct OverheadSpec {
    /// A target of kind `collector` (a real OpenTelemetry Collector) the tracing variants
    /// export to, which forwards to gqlbench's span counter; without it they export to the
    /// counter directly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace_collector: Option<String>,
}

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    html,
    list: |_, _, line| format!("{line}, overhead of each variant over its base"),
    // A variant with a customization is checked by its run (every answer, and the
    // customization's proof with the scenario's headers and the run's collector or
    // coprocessor); `check` sends no headers and starts no helpers, so it leaves those
    // out. Variants without one (a server on another integration) are checked like any.
    skip_in_check: |f, cat| {
        f.targets.iter().flatten().any(|n| {
            cat.target(n).map_or(true, |t| {
                t.customization.is_some() || t.coprocessor.is_some()
            })
        })
    },
    not_in_k6: None,
    ..KindDef::decorator("overhead", resolve)
};

#[derive(Debug)]
pub struct Overhead {
    pub spec: OverheadSpec,
    /// `spec.trace_collector`, resolved.
    collector: Option<crate::catalog::TargetDef>,
    inner: Arc<dyn Kind>,
}

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<OverheadSpec>("overhead")?, inner) else {
        return Ok(None);
    };
    // Every variant's base runs in the same rounds, or there is nothing to compare with.
    let named = cx.def.file.targets.as_deref().unwrap_or_default();
    let mut variants = 0;
    for n in named {
        let Some(base) = cx.cat.target(n).ok().and_then(|t| t.base.clone()) else {
            continue;
        };
        variants += 1;
        if !named.contains(&base) {
            return Err(cx
                .bad(format!(
                    "[overhead]: target '{n}' is a variant of '{base}', which is not among `targets`; list it there"
                ))
                .into());
        }
    }
    if variants == 0 {
        return Err(cx
            .bad("[overhead] compares variants (targets with a `base`) with their base, but `targets` names none".into())
            .into());
    }
    let collector = match &spec.trace_collector {
        None => None,
        Some(name) => match cx.cat.target(name) {
            Ok(t) if t.kind == crate::catalog::TargetKind::Collector => Some(t.clone()),
            _ => {
                let collectors: Vec<&str> = cx
                    .cat
                    .targets
                    .iter()
                    .filter(|t| t.kind == crate::catalog::TargetKind::Collector)
                    .map(|t| t.name.as_str())
                    .collect();
                return Err(cx
                    .bad(format!(
                        "[overhead] trace_collector = '{name}' is not a target of kind \"collector\"; collectors: {}",
                        if collectors.is_empty() { "none".to_string() } else { collectors.join(", ") }
                    ))
                    .into());
            }
        },
    };
    Ok(Some(Arc::new(Overhead {
        spec,
        collector,
        inner,
    })))
}

impl Kind for Overhead {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn trace_collector(&self) -> Option<&crate::catalog::TargetDef> {
        self.collector.as_ref()
    }

    /// The rounds are decided by the profile: at a fixed rate every row's throughput is
    /// the rate, so the throughput rule would stop at once.
    fn adaptive_rounds(&self) -> bool {
        false
    }

    fn describe(&self, s: &mut ScenarioResult) {
        self.inner.describe(s);
        s.by_kind.set(&SPEC, &self.spec);
    }
}

/// What one variant adds over the baseline, from their shared valid rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct Added {
    pub p50: Option<Difference>,
    pub p95: Option<Difference>,
    pub p99: Option<Difference>,
    /// The change of throughput (closed model: what the customization costs at saturation).
    pub throughput: Option<crate::stats::Change>,
}

fn valid_trial(t: &TargetResult, round: u32) -> Option<&TrialResult> {
    t.trials
        .iter()
        .find(|x| x.trial == round && x.valid && x.excluded.is_none())
}

/// A figure of `base` and of `variant` in each round where both are valid, in round order.
pub fn paired(
    base: &TargetResult,
    variant: &TargetResult,
    f: fn(&TrialResult) -> f64,
) -> Vec<(f64, f64)> {
    // One pair per counted round: a trial measured again after a burst shares its round's
    // number with its repeat.
    variant
        .trials
        .iter()
        .filter(|v| v.excluded.is_none())
        .filter_map(|v| {
            let b = valid_trial(base, v.trial)?;
            let v = valid_trial(variant, v.trial)?;
            Some((f(b), f(v)))
        })
        .collect()
}

/// Per-round latency differences (µs) of `variant` over `base`, rounds where both are valid.
pub fn added(base: &TargetResult, variant: &TargetResult) -> Added {
    let pairs = |f: fn(&TrialResult) -> f64| paired(base, variant, f);
    Added {
        p50: paired_difference(&pairs(|t| t.load.latency.p50_us as f64)),
        p95: paired_difference(&pairs(|t| t.load.latency.p95_us as f64)),
        p99: paired_difference(&pairs(|t| t.load.latency.p99_us as f64)),
        throughput: crate::stats::paired_change(&pairs(|t| t.load.throughput_rps)),
    }
}

/// "+312 µs [+290, +334]" or "+12 µs [-20, +44]: below resolution (±32 µs)".
pub fn fmt_added(d: Option<&Difference>) -> String {
    let Some(d) = d else { return dash() };
    if d.rounds < 2 {
        return format!("{:+.0} µs (1 round: no interval)", d.mean);
    }
    let core = format!("{:+.0} µs [{:+.0}, {:+.0}]", d.mean, d.ci_low, d.ci_high);
    if d.rounds < crate::stats::MIN_TRIALS {
        format!("{core} ({} rounds: too few to decide)", d.rounds)
    } else if d.resolved {
        core
    } else {
        format!("{core}: below resolution (±{:.0} µs)", d.resolution())
    }
}

/// The median over a target's valid, counted trials of a figure they have.
pub fn median_of(t: &TargetResult, f: impl Fn(&TrialResult) -> Option<f64>) -> Option<f64> {
    let xs: Vec<f64> = t
        .trials
        .iter()
        .filter(|x| x.valid && x.excluded.is_none())
        .filter_map(f)
        .collect();
    (!xs.is_empty()).then(|| crate::stats::median(&xs))
}

/// A variant's base in the same scenario: Ok(None) for a target that is no variant, Err
/// naming the base for a variant run without it (`--targets` left it out): such a row has
/// nothing to be compared with, and is not a base either.
pub fn base_in<'a>(
    s: &'a ScenarioResult,
    t: &TargetResult,
) -> Result<Option<&'a TargetResult>, String> {
    let Some(b) = &t.base else { return Ok(None) };
    match s.targets.iter().find(|x| &x.name == b) {
        Some(base) => Ok(Some(base)),
        None => Err(format!(
            "{b}: not in this run, nothing to compare with (run it with --targets {},{b})",
            t.name
        )),
    }
}

/// "−12.3% [−14.0, −10.6]", or "below resolution" when the interval includes 0.
fn fmt_change(c: Option<&crate::stats::Change>) -> String {
    let Some(c) = c else { return dash() };
    let core = crate::units::fmt_change(c.pct, c.ci_low_pct, c.ci_high_pct);
    if c.significant {
        core
    } else {
        format!("{core}: below resolution")
    }
}

fn table(s: &ScenarioResult) -> Option<Table> {
    let spec = s.by_kind.get(&SPEC)?;
    // Where the spans went: the counter directly, or a real collector in front of it.
    let spans_via = match &spec.trace_collector {
        Some(c) => format!("; spans/req: spans that passed a real OpenTelemetry Collector ({c}) on their way to gqlbench's counter, per request, both counted over warm-up and window"),
        None => "; spans/req: spans gqlbench's OTLP receiver counted, per request, both counted over warm-up and window".to_string(),
    };
    // At a fixed rate the throughput is the rate: its change says nothing.
    let closed = s.load.model == Model::Closed;
    let fmt_us = |x: Option<f64>| x.map(|v| format!("{v:.0}")).unwrap_or_else(dash);
    let rows = s
        .targets
        .iter()
        .map(|t| {
            let target_cpu = median_of(t, |x| {
                cpu_us_per_request(x.vitals.cpu_avg_pct?, x.load.throughput_rps)
            });
            let copro_cpu = median_of(t, |x| {
                let u = x.upstream.as_ref()?;
                cpu_us_per_request(u.coprocessor_cpu_pct?, x.load.throughput_rps)
            });
            let calls = median_of(t, |x| x.upstream.as_ref()?.coprocessor_calls_per_request);
            let spans = median_of(t, |x| x.tracing.as_ref().map(|u| u.spans_per_request));
            let p50 = median_of(t, |x| Some(x.load.latency.p50_us as f64));
            let (over, a50, a95, a99, rps) = match base_in(s, t) {
                Ok(None) => ("(base)".to_string(), dash(), dash(), dash(), dash()),
                Err(why) => (why, dash(), dash(), dash(), dash()),
                Ok(Some(base)) => {
                    let a = added(base, t);
                    (
                        base.name.clone(),
                        fmt_added(a.p50.as_ref()),
                        fmt_added(a.p95.as_ref()),
                        fmt_added(a.p99.as_ref()),
                        if closed {
                            fmt_change(a.throughput.as_ref())
                        } else {
                            dash()
                        },
                    )
                }
            };
            vec![
                t.name.clone(),
                over,
                rps,
                fmt_us(p50),
                a50,
                a95,
                a99,
                fmt_us(target_cpu),
                fmt_us(copro_cpu),
                calls.map(|c| format!("{c:.2}")).unwrap_or_else(dash),
                spans.map(|c| format!("{c:.2}")).unwrap_or_else(dash),
            ]
        })
        .collect();
    Some(Table {
        title: format!("overhead of each variant over its base: latency added per request, mean of the per-round differences with its 95% t interval over the rounds both ran validly (an interval that includes 0 is below resolution: the ± is the smallest difference these rounds resolve); CPU per request in µs of CPU time (medians over valid trials){spans_via}"),
        headers: [
            "target",
            "over",
            "req/s change (closed model)",
            "p50 µs",
            "added p50",
            "added p95",
            "added p99",
            "target CPU µs/req",
            "coprocessor CPU µs/req",
            "coprocessor calls/req",
            "spans/req",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}

/// The added latency in report.html: per variant and percentile, the mean of the per-round
/// differences with its 95% t interval, and each round's difference.
fn html(s: &ScenarioResult) -> Vec<crate::view::Figure> {
    use crate::view::intervals::{Intervals, Row};
    use crate::view::{color_of, legend, Figure};
    if !s.by_kind.has(&SPEC) {
        return Vec::new();
    }
    type Percentile = fn(&TrialResult) -> f64;
    let percentiles: [(&str, Percentile); 3] = [
        ("p50", |t| t.load.latency.p50_us as f64),
        ("p95", |t| t.load.latency.p95_us as f64),
        ("p99", |t| t.load.latency.p99_us as f64),
    ];
    let (mut rows, mut drawn) = (Vec::new(), Vec::new());
    for t in &s.targets {
        let Some(base) = t
            .base
            .as_ref()
            .and_then(|b| s.targets.iter().find(|x| &x.name == b))
        else {
            continue;
        };
        for (name, f) in percentiles {
            let pairs = paired(base, t, f);
            let Some(d) = paired_difference(&pairs) else {
                continue;
            };
            rows.push(Row {
                label: format!("{} {name}", t.name),
                color: color_of(s, t),
                center: d.mean,
                // One round has no interval (its half-width is infinite).
                interval: (d.rounds >= 2).then_some((d.ci_low, d.ci_high)),
                samples: pairs.iter().map(|(b, v)| v - b).collect(),
            });
            if !drawn.contains(&t.name) {
                drawn.push(t.name.clone());
            }
        }
    }
    let chart = Intervals {
        x_desc: "latency added over the base (µs)".into(),
        from_zero: true,
        zero_line: true,
        rows,
    };
    vec![Figure::of(
        "overhead",
        "Latency each variant adds over its base",
        "For each variant (a target with a base) and percentile: the dot is the mean of the per-round differences variant − base of that percentile (rounds where both were valid), the whisker its 95% t interval over the rounds, the rings each round's difference (trials[].load.latency of both, paired by trial number). A whisker that crosses the zero line is below resolution: the table gives its ± and the throughput cost.",
        legend(s, |t| drawn.contains(&t.name)),
        chart,
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_latency_is_formatted_with_its_interval_or_as_below_resolution() {
        let resolved = paired_difference(&[(650.0, 960.0), (700.0, 1012.0), (640.0, 948.0)]);
        let s = fmt_added(resolved.as_ref());
        assert!(s.starts_with("+310 µs [") && !s.contains("below"), "{s}");
        let noise = paired_difference(&[(650.0, 640.0), (700.0, 730.0), (640.0, 650.0)]);
        let s = fmt_added(noise.as_ref());
        assert!(s.contains("below resolution (±"), "{s}");
        // Two rounds that differ alike are not a resolved difference: too few rounds.
        let two = paired_difference(&[(650.0, 960.0), (700.0, 1012.0)]);
        let s = fmt_added(two.as_ref());
        assert!(
            s.contains("2 rounds: too few") && !s.contains("below"),
            "{s}"
        );
        assert_eq!(fmt_added(None), dash());
    }

    #[test]
    fn a_variant_run_without_its_base_is_not_labelled_a_base() {
        let target = |name: &str, base: Option<&str>| {
            let mut t = TargetResult::new(name.into(), crate::catalog::TargetKind::Server);
            t.base = base.map(String::from);
            t
        };
        let load = crate::results::LoadInfo {
            model: crate::catalog::scenario::Model::Closed,
            connections: 10,
            pipelining: 1,
            think_time_s: 0.0,
            rate: None,
            stages: vec![],
            timeout_s: 10.0,
            unique_request_header: false,
        };
        let mut s = ScenarioResult {
            suite: "extensibility".into(),
            name: "overhead".into(),
            load,
            ..Default::default()
        };
        s.by_kind.set(&SPEC, &OverheadSpec::default());
        s.targets = vec![target("gw-tracing", Some("gw"))];
        let over = |s: &ScenarioResult| table(s).unwrap().rows[0][1].clone();
        assert_eq!(
            over(&s),
            "gw: not in this run, nothing to compare with (run it with --targets gw-tracing,gw)"
        );
        s.targets.insert(0, target("gw", None));
        assert_eq!(over(&s), "(base)");
        assert_eq!(table(&s).unwrap().rows[1][1], "gw");
    }

    #[test]
    fn cpu_per_request_is_cpu_share_over_rate() {
        // 25% of a core at 100 req/s: 2.5 ms of CPU per request.
        assert_eq!(cpu_us_per_request(25.0, 100.0), Some(2500.0));
        assert_eq!(cpu_us_per_request(25.0, 0.0), None);
    }
}
