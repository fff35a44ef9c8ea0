//! The page and its charts from runs built here: escaping of every string a target or a
//! scenario brings, the notice of a partial run, which charts each kind of scenario gets,
//! and where a chart puts what it draws.
use gqlbench_engine::{encode_hist, new_latency, summarize_hist, LoadResult, SecondSample};
use serde_json::json;

use super::*;
use crate::results::{RunStatus, SweepStep, TargetResult, TrialResult, Vitals, VitalsPoint};

const XSS: &str = "<script>alert(1)</script>";

/// A trial whose requests took `latency_us` each (one sample per value, `reps` times),
/// three seconds long, with its per-second series and vitals.
fn trial(n: u32, latency_us: &[u64], reps: usize, rps: f64) -> TrialResult {
    let mut h = new_latency();
    for _ in 0..reps {
        for v in latency_us {
            h.record(*v).unwrap();
        }
    }
    let load = LoadResult {
        requests: h.len(),
        ok: h.len(),
        elapsed_s: 3.0,
        throughput_rps: rps,
        ok_rps: rps,
        latency: summarize_hist(&h),
        latency_hist: encode_hist(&h),
        series: (0..3)
            .map(|t| SecondSample {
                t_s: t,
                requests: rps as u64 + t,
                ok: rps as u64 + t,
                failures: 0,
                p50_us: latency_us[0],
                p99_us: latency_us[latency_us.len() - 1],
            })
            .collect(),
        ..Default::default()
    };
    let vitals = Vitals {
        cpu_avg_pct: Some(90.0),
        series: (0..3)
            .map(|t| VitalsPoint {
                t_s: t as f64,
                cpu_pct: Some(80.0 + t as f64),
                rss_bytes: Some((100 + t) << 20),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    TrialResult {
        vitals,
        ..TrialResult::of_load(n, "2026-01-01T00:00:00Z".into(), load)
    }
}

/// A target with three trials at `rps` whose latencies are `latency_us`, summarized as the
/// runner does.
fn target(name: &str, latency_us: &[u64], rps: f64) -> TargetResult {
    let mut t: TargetResult = serde_json::from_value(json!({
        "name": name, "kind": "server", "package": null, "version": null,
        "settings": {}, "status": "ok", "problem": null, "log_tail": null,
        "log_file": null, "ready_s": 0.5, "rss_idle_bytes": 50u64 << 20,
        "checks": [], "trials": [], "summary": null
    }))
    .unwrap();
    for n in 1..=3 {
        t.trials
            .push(trial(n, latency_us, 200, rps * (0.98 + 0.02 * n as f64)));
    }
    t.summary = crate::summary::summarize(&t);
    t
}

fn run(targets: Vec<TargetResult>) -> RunResults {
    let scenario = json!({
        "suite": "servers", "name": "simple",
        "description": "a scenario <img src=x onerror=alert(2)> & more",
        "workload": "social",
        "operations": [{"name": "simple", "weight": 1, "cases": 1}],
        "load": {"model": "closed", "connections": 50, "pipelining": 1,
                 "think_time_s": 0.0, "rate": null, "stages": [], "timeout_s": 10.0,
                 "unique_request_header": false},
        "trials_planned": 3, "warmup_s": 1.0, "duration_s": 3.0,
        "limits": {"cpus": null, "memory_bytes": null, "applied": ""},
        "ranking": null, "targets": []
    });
    let mut s: ScenarioResult = serde_json::from_value(scenario).unwrap();
    s.targets = targets;
    s.ranking = crate::summary::rank(&s);
    let mut r: RunResults = crate::results::test_run(json!({}));
    r.scenarios.push(s);
    r
}

fn two_targets() -> RunResults {
    run(vec![
        target("fast", &[900, 1000, 1100, 2000], 1000.0),
        target(XSS, &[9000, 10_000, 11_000, 20_000], 100.0),
    ])
}

fn html_of(r: &RunResults) -> String {
    let out = Html.export(r).unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].file, "report.html");
    out[0].text.clone()
}

/// The `points` of every `<polyline>` of data (the axes' are black), as (x, y) pairs.
fn polylines(svg: &str) -> Vec<Vec<(f64, f64)>> {
    svg.split("<polyline")
        .skip(1)
        .filter_map(|t| {
            let tag = t.split('>').next()?;
            if tag.contains("stroke=\"#000000\"") {
                return None;
            }
            let at = tag.find(" points=\"")? + 9;
            let pts = tag[at..].split('"').next()?;
            Some(
                pts.split_whitespace()
                    .filter_map(|p| {
                        let (x, y) = p.split_once(',')?;
                        Some((x.parse().ok()?, y.parse().ok()?))
                    })
                    .collect(),
            )
        })
        .collect()
}

#[test]
fn every_string_from_a_target_or_a_scenario_is_escaped() {
    let mut r = two_targets();
    r.scenarios[0].targets[1].problem = Some("</td></tr><script>alert(3)</script>".into());
    r.scenarios[0].targets[1].settings.notes = "<b onclick=x>".into();
    r.command = vec!["gqlbench".into(), "<iframe>".into()];
    let page = html_of(&r);
    // The page has no script element at all, so any "<script" would be an injection.
    assert!(!page.contains("<script"), "{page}");
    assert!(!page.contains("<img") && !page.contains("<iframe") && !page.contains("<b "));
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(page.contains("a scenario &lt;img src=x onerror=alert(2)&gt; &amp; more"));
    assert!(page.contains("&lt;/td&gt;&lt;/tr&gt;&lt;script&gt;alert(3)"));
    // The name is in the table, the legends and the charts' labels (escaped by plotters).
    let cell = format!("<td>{}</td>", "&lt;script&gt;alert(1)&lt;/script&gt;");
    assert!(page.contains(&cell), "{page}");
    // Nothing is fetched and nothing may run.
    assert!(page.contains("Content-Security-Policy"));
    assert!(page.contains("default-src 'none'"));
    for external in ["src=\"http", "href=\"http", "url("] {
        assert!(!page.contains(external), "{external}");
    }
}

#[test]
fn a_partial_run_says_so_and_shows_what_was_measured() {
    let complete = html_of(&two_targets());
    assert!(!complete.contains("class=\"banner\""));
    for (status, word) in [
        (RunStatus::Interrupted, "interrupted"),
        (RunStatus::Running, "never finished"),
        (RunStatus::Failed, "hit an error"),
    ] {
        let mut r = two_targets();
        r.status = status;
        let page = html_of(&r);
        let banner = page
            .split("<p class=\"banner\"")
            .nth(1)
            .unwrap_or_else(|| panic!("no banner for {status:?}"));
        let banner = banner.split("</p>").next().unwrap();
        assert!(banner.contains(word), "{banner}");
        assert!(
            page.contains("<td>fast</td>"),
            "the measured rows are still shown"
        );
        assert!(page.contains("data-chart=\"throughput\""));
    }
}

#[test]
fn a_throughput_scenario_gets_its_six_charts_each_drawn() {
    let r = two_targets();
    let figs = figures(&r.scenarios[0]);
    let kinds: Vec<&str> = figs.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            "throughput",
            "latency",
            "throughput-per-second",
            "p99-per-second",
            "cpu",
            "memory"
        ]
    );
    for f in &figs {
        let svg = f.svg.as_ref().unwrap();
        assert!(
            svg.contains("<polyline") || svg.contains("<circle"),
            "{} draws nothing",
            f.kind
        );
        assert_eq!(f.legend.len(), 2, "{}", f.kind);
    }
    let page = html_of(&r);
    assert_eq!(page.matches("<svg class=\"chart\"").count(), 6);
}

#[test]
fn the_slower_targets_latency_curve_lies_above_the_faster_ones() {
    let r = two_targets();
    let lat = figures(&r.scenarios[0])
        .into_iter()
        .find(|f| f.kind == "latency")
        .unwrap();
    let lines = polylines(lat.svg.as_ref().unwrap());
    assert_eq!(lines.len(), 2, "one curve per target");
    let (fast, slow) = (&lines[0], &lines[1]);
    assert_eq!(fast.len(), slow.len());
    // Ten times slower is one decade higher at every percentile: above (smaller y), by
    // the same distance at the median as at the tail.
    let gap: Vec<f64> = fast.iter().zip(slow).map(|(f, s)| f.1 - s.1).collect();
    assert!(gap.iter().all(|g| *g > 10.0), "{gap:?}");
    assert!((gap[0] - gap[gap.len() / 2]).abs() <= 3.0, "{gap:?}");
    // Percentiles rise: the tail of each curve is not below its median.
    assert!(fast.last().unwrap().1 <= fast[0].1);
}

#[test]
fn a_fixed_arrival_rate_has_no_throughput_chart() {
    let mut r = two_targets();
    r.scenarios[0].load.model = crate::catalog::scenario::Model::Open;
    r.scenarios[0].load.rate = Some(100.0);
    let kinds: Vec<&str> = figures(&r.scenarios[0]).iter().map(|f| f.kind).collect();
    assert!(
        !kinds.contains(&"throughput") && kinds.contains(&"latency"),
        "{kinds:?}"
    );
}

#[test]
fn a_chart_that_could_not_be_drawn_says_so() {
    let data = || {
        let empty = crate::view::xy::Xy::new(
            "x",
            "y",
            crate::view::xy::XAxis::Percentile,
            crate::view::xy::YAxis::Log,
        );
        crate::view::Figure::of("x", "t", "a", vec![], empty)
    };
    let f = Figure::of_drawing(data(), Err(anyhow::anyhow!("broken <svg>"))).unwrap();
    assert_eq!(f.svg, Err("broken <svg>".to_string()));
    assert_eq!(f.kind, "x", "the figure's data shows through");
    // A chart with nothing to draw is left out.
    assert!(Figure::drawn(data()).is_none());
}

fn step(connections: u32, rps: f64, p99_us: u64, held: bool) -> SweepStep {
    SweepStep {
        rate: None,
        connections: Some(connections),
        achieved_rps: rps,
        p50_us: p99_us / 2,
        p99_us,
        failed: u64::from(!held),
        flags: vec![],
        held,
        phase: None,
        verdict: None,
        reason: None,
    }
}

#[test]
fn a_connection_sweep_is_a_curve_labelled_by_connections_with_rings_where_it_failed() {
    let mut r = two_targets();
    let s = &mut r.scenarios[0];
    s.connection_sweep = Some(vec![10, 50, 200]);
    s.targets.truncate(1);
    s.targets[0].trials[0].sweep = Some(vec![
        step(10, 500.0, 2_000, true),
        step(50, 1_000.0, 9_000, true),
        step(200, 1_050.0, 60_000, false),
    ]);
    let f = figures(s)
        .into_iter()
        .find(|f| f.kind == "connection-sweep")
        .unwrap();
    let svg = f.svg.unwrap();
    for label in ["10 conn", "50 conn", "200 conn"] {
        assert!(svg.contains(label), "{label}");
    }
    let line = &polylines(&svg)[0];
    assert_eq!(line.len(), 3);
    // More connections: more throughput (right) and a higher p99 (up).
    assert!(line[0].0 < line[1].0 && line[1].1 < line[0].1 && line[2].1 < line[1].1);
    // Two held steps are dots (filled), the failed one a ring (not filled).
    let circles: Vec<&str> = svg.split("<circle").skip(1).collect();
    assert_eq!(circles.len(), 3);
    assert_eq!(
        circles
            .iter()
            .filter(|c| c.contains("fill=\"none\""))
            .count(),
        1
    );
}

#[test]
fn an_overhead_scenario_draws_each_variants_added_latency_per_percentile() {
    let mut r = run(vec![
        target("gw", &[900, 1000, 1100, 2000], 1000.0),
        target("gw-rhai", &[1200, 1300, 1400, 2300], 900.0),
    ]);
    let s = &mut r.scenarios[0];
    s.by_kind.set(
        &crate::kinds::overhead::SPEC,
        &crate::kinds::overhead::OverheadSpec::default(),
    );
    s.targets[1].base = Some("gw".into());
    let f = figures(s)
        .into_iter()
        .find(|f| f.kind == "overhead")
        .unwrap();
    assert_eq!(f.legend, vec![("gw-rhai".to_string(), 1)]);
    let svg = f.svg.unwrap();
    for label in ["gw-rhai p50", "gw-rhai p95", "gw-rhai p99"] {
        assert!(svg.contains(label), "{label}");
    }
}

/// Targets measured alternating had load only in their own slices: their throughput chart
/// is each slice's rate (flat for a steady target, where a per-second count would saw
/// between 0 and its rate), and their CPU, read per second of wall time, is not drawn.
#[test]
fn an_alternating_trial_is_drawn_over_its_own_slices() {
    let mut r = two_targets();
    for (arm, t) in r.scenarios[0].targets.iter_mut().enumerate() {
        for x in &mut t.trials {
            x.alternated = Some(2);
            // Every other second empty: what wall-clock seconds of 2 targets look like.
            for p in &mut x.load.series {
                if p.t_s % 2 == 1 {
                    p.requests = 0;
                    p.ok = 0;
                }
            }
            // Ten whole slices of 300 counted ms at 1,000 or 100 answers a second, and a
            // cut one at the edge.
            x.load.slices = (0..11u64)
                .map(|i| gqlbench_engine::SliceSample {
                    index: 2 * i + arm as u64,
                    arm,
                    start_ms: 800.0 * i as f64,
                    counted_ms: if i == 10 { 100.0 } else { 300.0 },
                    requests: if arm == 0 { 300 } else { 30 },
                    ok: if arm == 0 { 300 } else { 30 },
                    failures: 0,
                })
                .collect();
        }
    }
    let figs = figures(&r.scenarios[0]);
    let tput = figs
        .iter()
        .find(|f| f.kind == "throughput-per-second")
        .unwrap();
    assert!(tput.about.contains("own slice"), "{}", tput.about);
    let lines = polylines(tput.svg.as_ref().unwrap());
    assert_eq!(lines.len(), 6, "one line per trial");
    for l in &lines {
        assert_eq!(l.len(), 10, "the whole slices only: {l:?}");
        let ys: Vec<f64> = l.iter().map(|p| p.1).collect();
        let spread = ys.iter().cloned().fold(f64::MIN, f64::max)
            - ys.iter().cloned().fold(f64::MAX, f64::min);
        assert!(spread < 1.0, "a steady rate is a flat line: {ys:?}");
    }
    let cpu = figs.iter().find(|f| f.kind == "cpu");
    if let Some(cpu) = cpu {
        assert!(cpu.about.contains("not drawn"), "{}", cpu.about);
        let svg = cpu.svg.as_deref().unwrap_or("");
        assert!(
            polylines(svg).is_empty() && !svg.contains("<circle"),
            "{svg}"
        );
    }
}
