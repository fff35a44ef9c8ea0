//! End-to-end: report.html in a real browser. A short run of one scenario of every kind that
//! has charts (load with a variant's overhead, connection sweep, rate sweep, cold starts,
//! subscriptions, long run) against the fixture targets writes report.html; its
//! results.json, with a target renamed `<script>alert(1)</script>` and the run marked
//! interrupted, is rendered again by `gqlbench report --format html`. Headless Chromium
//! opens both from file:// (`--dump-dom`: the DOM after loading), and the test reads that
//! DOM and the browser's console (`--enable-logging=stderr`: every console message, script
//! errors and Content-Security-Policy refusals included, is a `:CONSOLE` line). Chromium is
//! Debian's `chromium` (CI's .ci/run installs it); without it the test fails with the
//! command that installs it.
use crate::common;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const XSS: &str = "<script>alert(1)</script>";

/// The scenarios of the `html` suite and the variant target the overhead needs, written
/// into a copy of the fixture catalogue.
const FILES: &[(&str, &str)] = &[
    (
        "targets/fx-good-plus/target.toml",
        r#"name = "fx-good-plus"
base = "fx-good"
description = "test fixture: fx-good as a variant of itself (an overhead of nothing)"
"#,
    ),
    (
        "scenarios/html/load.toml",
        r#"description = "a base and its variant <img src=x onerror=alert(2)>"
workload = "fixture"
targets = ["fx-good", "fx-good-plus"]

[[operations]]
name = "fixture/hello"

[load]
connections = 4
timeout = "2s"

[overhead]
"#,
    ),
    (
        "scenarios/html/sweep.toml",
        r#"description = "a connection sweep"
workload = "fixture"
targets = ["fx-good"]
connection_sweep = [2, 8]

[[operations]]
name = "fixture/hello"
"#,
    ),
    (
        "scenarios/html/rate.toml",
        r#"description = "an open-model rate sweep"
workload = "fixture"
targets = ["fx-good"]

[[operations]]
name = "fixture/hello"

[load]
model = "open"
rate = 50
max_connections = 20
timeout = "2s"

[sweep]
start_rate = 50
factor = 2
max_rate = 200
step_duration = "500ms"
p99_limit = "100ms"
"#,
    ),
    (
        "scenarios/html/cold.toml",
        r#"description = "cold starts"
workload = "fixture"
targets = ["fx-good"]

[[operations]]
name = "fixture/hello"

[cold_start]
starts = 3
"#,
    ),
    (
        "scenarios/html/subs.toml",
        r#"description = "subscriptions"
workload = "fixture-subs"
targets = ["fx-subs-good"]

[[operations]]
name = "fixture/ticks"

[subscriptions]
transport = "ws"
publish_rate = 20.0

[load]
connections = 10
"#,
    ),
    (
        "scenarios/html/long.toml",
        r#"description = "a long run, short here"
workload = "fixture"
targets = ["fx-good"]

[[operations]]
name = "fixture/hello"

[long_run]

[load]
connections = 2
"#,
    ),
];

/// Every chart these scenarios draw.
const CHARTS: &[&str] = &[
    "throughput",
    "latency",
    "throughput-per-second",
    "p99-per-second",
    "cpu",
    "memory",
    "efficiency",
    "overhead",
    "connection-sweep",
    "rate-sweep",
    "cold-start-ready",
    "cold-start-first-request",
    "subscription-latency",
    "subscription-messages",
    "subscription-held",
    "memory-trend",
];

/// Headless Chromium: `$GQLBENCH_CHROMIUM`, or the first of Debian's and others' names on
/// PATH. Missing, the test fails and says how to install it.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("GQLBENCH_CHROMIUM") {
        return PathBuf::from(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome", "chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return p;
            }
        }
    }
    panic!(
        "this test opens report.html in headless Chromium, which is not installed: \
         `apt-get install -y chromium` (CI's .ci/run installs it), or set GQLBENCH_CHROMIUM"
    );
}

/// What the browser made of a page: the DOM after loading, and its console messages.
struct Loaded {
    dom: String,
    console: Vec<String>,
}

fn open(page: &Path) -> Loaded {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", page.canonicalize().unwrap().display());
    let out_file = profile.path().join("dom.html");
    let err_file = profile.path().join("stderr.txt");
    let mut child = Command::new(chromium())
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!(
            "--user-data-dir={}",
            profile.path().join("p").display()
        ))
        .arg("--dump-dom")
        .arg(&url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_file).unwrap())
        .stderr(std::fs::File::create(&err_file).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("starting Chromium: {e}"));
    // Only a guard against a hung browser, not a measurement.
    let deadline = Instant::now() + Duration::from_secs(180);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Chromium did not finish loading {url} in 180 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let dom = std::fs::read_to_string(&out_file).unwrap();
    let stderr = std::fs::read_to_string(&err_file).unwrap();
    assert!(
        status.success(),
        "Chromium failed on {url}: {status}\n{stderr}"
    );
    assert!(
        dom.contains("</html>"),
        "no DOM dumped for {url}:\n{stderr}"
    );
    Loaded {
        dom,
        console: stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(String::from)
            .collect(),
    }
}

/// Each chart of the DOM: its `data-chart` and whether it has a drawing with data in it (a
/// line or a mark in a data color; the axes are black), naming what is wrong otherwise.
fn charts(dom: &str) -> Vec<(String, Result<(), String>)> {
    dom.split("<figure class=\"chart-figure\"")
        .skip(1)
        .map(|f| {
            let f = f.split("</figure>").next().unwrap_or("");
            let kind = f
                .split("data-chart=\"")
                .nth(1)
                .and_then(|x| x.split('"').next())
                .unwrap_or("?")
                .to_string();
            let svg = f.split("<svg").nth(1).map(|x| x.split("</svg>").next());
            let drawn = match svg.flatten() {
                None => Err(format!("no <svg>: {f}")),
                Some(svg) => {
                    let marks = svg
                        .split('<')
                        .filter(|t| t.starts_with("polyline") || t.starts_with("circle"))
                        .filter(|t| !t.contains("stroke=\"#000000\""))
                        .count();
                    if f.contains("chart-error") {
                        Err("drawn with an error".into())
                    } else if marks == 0 {
                        Err("an empty drawing".into())
                    } else {
                        Ok(())
                    }
                }
            };
            (kind, drawn)
        })
        .collect()
}

/// Replaces every string `from` in a JSON document by `to` (names, bases, rankings).
fn rename(v: &mut serde_json::Value, from: &str, to: &str) {
    match v {
        serde_json::Value::String(s) if s == from => *s = to.to_string(),
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| rename(x, from, to)),
        serde_json::Value::Object(o) => o.values_mut().for_each(|x| rename(x, from, to)),
        _ => {}
    }
}

fn assert_every_chart_drawn(page: &str, loaded: &Loaded) {
    assert!(
        loaded.console.is_empty(),
        "{page}: console messages (the page has no script, so any is an error): {:#?}",
        loaded.console
    );
    let charts = charts(&loaded.dom);
    for (kind, drawn) in &charts {
        assert!(drawn.is_ok(), "{page}: chart {kind}: {drawn:?}");
    }
    let kinds: BTreeSet<&str> = charts.iter().map(|(k, _)| k.as_str()).collect();
    let expected: BTreeSet<&str> = CHARTS.iter().copied().collect();
    assert_eq!(kinds, expected, "{page}: the charts drawn");
    assert!(!loaded.dom.contains("<script"), "{page}: a script element");
    assert!(
        !loaded.dom.contains("<img"),
        "{page}: an image from a description"
    );
}

#[test]
fn report_html_draws_every_chart_in_a_browser_and_shows_markup_in_names_as_text() {
    // Before the run: without a browser the test fails at once, naming the install.
    chromium();
    let root = fixture_copy();
    for (path, text) in FILES {
        let p = root.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let run_dir = dir.path().join("run");
    let out = Gqlbench::run("html")
        .root(root.path())
        .trials(3)
        .duration("1s")
        .warmup("0s")
        .out(&run_dir)
        .go();
    out.assert_exit(0);

    // The run's own page.
    let page = run_dir.join("report.html");
    assert!(
        page.is_file(),
        "the run wrote no report.html: {}",
        out.stderr
    );
    let loaded = open(&page);
    assert_every_chart_drawn("the run's report.html", &loaded);
    assert!(
        !loaded.dom.contains("class=\"banner\""),
        "a complete run has no notice"
    );

    // The same results with a target named as markup, from an interrupted run.
    let text = std::fs::read_to_string(run_dir.join("results.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    rename(&mut doc, "fx-good", XSS);
    doc["status"] = "interrupted".into();
    let edited = dir.path().join("edited");
    std::fs::create_dir_all(&edited).unwrap();
    std::fs::write(edited.join("results.json"), doc.to_string()).unwrap();
    let out = Gqlbench::report(&edited).args(["--format", "html"]).go();
    out.assert_exit(0);
    let page = edited.join("report.html");
    std::fs::write(&page, &out.stdout).unwrap();
    let loaded = open(&page);
    assert_every_chart_drawn("report --format html", &loaded);
    let dom = &loaded.dom;
    // Shown as text: in the main table's cells and the charts' legends.
    let text = "&lt;script&gt;alert(1)&lt;/script&gt;";
    assert!(
        dom.contains(&format!("<td>{text}</td>")),
        "the name is not a table cell's text"
    );
    assert!(
        dom.contains(&format!("</span>{text}</li>")),
        "the name is not in a legend"
    );
    assert!(!dom.contains(XSS));
    assert!(dom.contains("a base and its variant &lt;img src=x onerror=alert(2)&gt;"));
    let banner = dom
        .split("<p class=\"banner\"")
        .nth(1)
        .expect("an interrupted run's page says so at the top");
    assert!(
        banner.split("</p>").next().unwrap().contains("interrupted"),
        "{banner}"
    );
}

#[test]
fn report_html_of_a_folder_without_results_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::report(dir.path()).args(["--format", "html"]).go();
    out.assert_exit(2);
    let file = dir.path().join("results.json");
    assert!(
        out.stderr.contains(&file.display().to_string()),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}
