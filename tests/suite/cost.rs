//! End-to-end: the efficiency and cost section. One real short run of a fixture server,
//! priced with a table written here: report.md's req/s per core, cost per 1M requests and
//! instances for the traffic agree with what the test computes by hand from the run's own
//! results.json (each trial's req/s and measured CPU); `report` prices the saved run again
//! with other flags; a bad price table (missing field, unknown key, negative price, not
//! TOML, missing file) exits 2 naming the file and the field, for `report` and for `run`
//! (before anything runs).
use crate::common;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::*;
use gqlbench::report::cost::money;
use gqlbench::report::fmt_rps;

/// One vCPU at $3.60 an hour: a million requests cost 1,000 ÷ (req/s per core), which the
/// test computes by hand. Memory is ample, so one process runs.
const PRICES: &str = r#"
date = "2026-11-24"
source = "a test's own table"
region = "test-region"
currency = "USD"
note = "made up for the test"

[[instance]]
name = "one.core"
vcpus = 1
memory_gib = 64
hourly_price = 3.6
"#;

struct Run {
    _dir: tempfile::TempDir,
    run: PathBuf,
    prices: PathBuf,
}

/// The real run, made once and shared by the tests of this file.
fn measured() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let prices = dir.path().join("prices.toml");
        std::fs::write(&prices, PRICES).unwrap();
        let run = dir.path().join("run");
        let out = Gqlbench::run("e2e")
            .root(fixtures())
            .scenarios("hello")
            .targets("fx-good")
            .trials(3)
            .duration("1s")
            .warmup("300ms")
            .arg("--prices")
            .arg(&prices)
            .args(["--traffic", "5000", "--utilization", "50%"])
            .out(&run)
            .go();
        out.assert_exit(0);
        Run {
            _dir: dir,
            run,
            prices,
        }
    })
}

/// The report.md line of `target` in the table that follows `heading`.
fn row<'a>(md: &'a str, heading: &str, target: &str) -> &'a str {
    let at = md
        .find(heading)
        .unwrap_or_else(|| panic!("no '{heading}' in report.md:\n{md}"));
    md[at..]
        .lines()
        .find(|l| l.starts_with(&format!("| {target} |")))
        .unwrap_or_else(|| panic!("no row of {target} under '{heading}':\n{}", &md[at..]))
}

#[test]
fn the_report_prices_what_the_run_measured() {
    let m = measured();
    let r = read_results(&m.run);
    let t = target(&r, 0, "fx-good");
    let s = t.summary.as_ref().expect("a summary");
    assert!(
        s.valid && !s.saturated,
        "the fixture row must be valid and unsaturated to be sized: {}",
        gqlbench::report::validity(t)
    );
    // By hand: each valid trial's req/s over its CPU in cores; their geometric mean.
    let per_core: Vec<f64> = t
        .trials
        .iter()
        .filter(|x| x.valid && x.excluded.is_none())
        .map(|x| {
            assert!(!x.vitals.cpu_source.is_empty(), "CPU was measured");
            x.load.throughput_rps / (x.vitals.cpu_avg_pct.expect("CPU read") / 100.0)
        })
        .collect();
    assert_eq!(per_core.len(), 3);
    let center = (per_core.iter().map(|x| x.ln()).sum::<f64>() / 3.0).exp();
    let md = std::fs::read_to_string(m.run.join("report.md")).unwrap();
    let line = row(&md, "### e2e/hello", "fx-good");
    let cells: Vec<&str> = line.split(" | ").collect();
    assert!(
        cells[2].starts_with(&format!("{} [", fmt_rps(center))),
        "req/s per core: want {} from results.json, got: {line}",
        fmt_rps(center)
    );
    // $3.60 an hour over (center × 3,600) requests an hour, per million.
    let per_million = 3.6 / (center * 3600.0) * 1e6;
    assert!(
        cells[5].starts_with(&format!("{} [", money("USD", per_million))),
        "cost per 1M requests: want {}, got: {line}",
        money("USD", per_million)
    );
    assert!(cells[5].ends_with("on one.core"), "{line}");
    // 5,000 req/s with each instance at 50% of its capacity.
    let needed = (5000.0 / (center * 0.5)).ceil().max(1.0) as u64;
    assert!(
        cells[6].starts_with(&format!("{needed} ")) || cells[6].starts_with(&format!("{needed} [")),
        "instances for 5000 req/s: want {needed}, got: {line}"
    );
    // Provenance and the published table, labelled.
    assert!(md.contains(&format!("prices: {} (--prices)", m.prices.display())));
    assert!(md.contains("test-region, USD, dated 2026-11-24"));
    assert!(md.contains("published by seed 001 — not measured"));
    assert!(md.contains("| Mercurius | 2x c6i.large | $146 | $4.86 |"));
    assert!(md.contains("not the seed's 1M requests/day"));
    // report.html has the section and the chart.
    let html = std::fs::read_to_string(m.run.join("report.html")).unwrap();
    assert!(html.contains("data-chart=\"efficiency\""));
    assert!(html.contains("Efficiency and cost"));
}

#[test]
fn report_prices_a_saved_run_again_with_the_shipped_table_by_default() {
    let m = measured();
    let out = Gqlbench::report(&m.run).go();
    out.assert_exit(0);
    assert!(out
        .stdout
        .contains("the shipped table prices/aws-on-demand.toml"));
    // No traffic by default: seed 001's 1M/day (11.6 req/s) sizes every target at one
    // instance, a column that tells them apart in nothing; the report says how to ask.
    assert!(
        out.stdout
            .contains("traffic sized for: none given, so no instance count or monthly cost"),
        "{}",
        out.stdout
    );
    assert!(
        !out.stdout.contains("(cheapest per month)"),
        "{}",
        out.stdout
    );
    assert!(out
        .stdout
        .contains("The table above sizes no traffic: use --traffic 1M/day"));
    let out = Gqlbench::report(&m.run).args(["--traffic", "1M/day"]).go();
    out.assert_exit(0);
    assert!(out
        .stdout
        .contains("traffic sized for: 1M/day (11.6 req/s on average)"));
    assert!(
        out.stdout
            .contains("| instances for 1M/day (cheapest per month) |"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("not the seed's 1M requests/day"));
    let out = Gqlbench::report(&m.run)
        .args(["--format", "terminal"])
        .arg("--prices")
        .arg(&m.prices)
        .go();
    out.assert_exit(0);
    assert!(out.stdout.contains("Efficiency and cost"), "{}", out.stdout);
    assert!(out.stdout.contains("one.core"), "{}", out.stdout);
}

fn bad_table(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn a_bad_price_table_exits_2_naming_the_file_and_the_field() {
    let m = measured();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            bad_table(
                dir.path(),
                "missing.toml",
                &PRICES.replace("vcpus = 1\n", ""),
            ),
            "vcpus",
        ),
        (
            bad_table(
                dir.path(),
                "unknown.toml",
                &PRICES.replace("vcpus = 1", "vcpus = 1\ncores = 1"),
            ),
            "cores",
        ),
        (
            bad_table(
                dir.path(),
                "negative.toml",
                &PRICES.replace("hourly_price = 3.6", "hourly_price = -3.6"),
            ),
            "hourly_price",
        ),
        (
            bad_table(dir.path(), "not.toml", "{ this is not toml"),
            "not a valid price table",
        ),
        (
            dir.path().join("absent.toml"),
            "cannot read the price table",
        ),
    ];
    for (file, field) in &cases {
        let out = Gqlbench::report(&m.run).arg("--prices").arg(file).go();
        out.assert_exit(2);
        assert!(
            out.stderr.contains(&file.display().to_string()) && out.stderr.contains(field),
            "{}: want the file and '{field}' named: {}",
            file.display(),
            out.stderr
        );
    }
    // `run` refuses it before anything starts: no output folder is made.
    let run = dir.path().join("never");
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("hello")
        .targets("fx-good")
        .arg("--prices")
        .arg(&cases[0].0)
        .out(&run)
        .go();
    out.assert_exit(2);
    assert!(out.stderr.contains("vcpus"), "{}", out.stderr);
    assert!(
        !run.exists(),
        "run made its folder before refusing the prices"
    );
    // And bad flags are refused with the fix.
    let out = Gqlbench::report(&m.run).args(["--utilization", "0%"]).go();
    out.assert_exit(2);
    assert!(out.stderr.contains("--utilization"), "{}", out.stderr);
    for absurd in ["5/week", "1e99/day"] {
        let out = Gqlbench::report(&m.run).args(["--traffic", absurd]).go();
        out.assert_exit(2);
        assert!(out.stderr.contains("--traffic"), "{}", out.stderr);
    }
}
