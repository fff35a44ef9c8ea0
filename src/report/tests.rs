//! Exporter-level tests: every format renders a small run built here, and the manager
//! writes each output where it was asked to.
use serde_json::json;

use super::export::to_stream;
use super::*;
use crate::results::RunResults;

/// A run of one connection-sweep scenario: target `good` (3 valid trials, 1,000 req/s) with
/// one trial's steps at 10 and 50 connections, and a description holding a `|`.
fn run() -> RunResults {
    let trial = json!({
        "trial": 1, "position": 1, "started_at": "2026-01-01T00:00:00Z",
        "load": serde_json::to_value(gqlbench_engine::LoadResult::default()).unwrap(),
        "vitals": serde_json::to_value(crate::results::Vitals::default()).unwrap(),
        "generator": serde_json::to_value(crate::results::GeneratorUsage::default()).unwrap(),
        "saturation": [], "valid": true, "problems": [],
        "sweep": [
            {"connections": 10, "achieved_rps": 500.0, "p50_us": 1000, "p99_us": 2000,
             "failed": 0, "flags": [], "held": true},
            {"connections": 50, "achieved_rps": 1000.0, "p50_us": 4000, "p99_us": 9500,
             "failed": 3, "flags": [], "held": false}
        ]
    });
    let estimate = |median: f64| {
        json!({"n": 3, "median": median, "ci_low": median * 0.99, "ci_high": median * 1.01,
               "min": median * 0.99, "max": median * 1.01, "mean": median, "cv": 0.01,
               "samples": [median * 0.99, median, median * 1.01]})
    };
    let latency = json!({"count": 3000, "mean_us": 2500.0, "stdev_us": 100.0, "min_us": 900,
        "p50_us": 2000, "p90_us": 4000, "p95_us": 5000, "p99_us": 9500, "p999_us": 12000,
        "max_us": 15000});
    let summary = json!({
        "trials": 3, "valid_trials": 3, "rps": estimate(1000.0),
        "p99_us": estimate(9500.0), "latency": latency, "requests": 3000,
        "failures": 0, "failures_by_kind": {}, "cpu_avg_pct": 95.0,
        "rss_peak_bytes": 80u64 << 20, "rss_avg_bytes": 70u64 << 20, "gc": null,
        "generator_utilization_max": 0.2, "saturated": false, "valid": true
    });
    let target = json!({
        "name": "good", "kind": "server", "package": null, "version": null,
        "settings": {}, "status": "ok", "problem": null, "log_tail": null,
        "log_file": null, "ready_s": 0.5, "rss_idle_bytes": 50u64 << 20,
        "checks": [], "trials": [trial], "summary": summary
    });
    let scenario = json!({
        "suite": "servers", "name": "sweep", "description": "simple | medium mix",
        "workload": "social",
        "operations": [{"name": "simple", "weight": 1, "cases": 1}],
        "load": {"model": "closed", "connections": 50, "pipelining": 1,
                 "think_time_s": 0.0, "rate": null, "stages": [], "timeout_s": 10.0,
                 "unique_request_header": false},
        "trials_planned": 3, "warmup_s": 1.0, "duration_s": 5.0,
        "limits": {"cpus": null, "memory_bytes": null, "applied": ""},
        "ranking": null, "connection_sweep": [10, 50], "targets": [target]
    });
    crate::results::test_run(json!({
        "isolation": {"generator_cpus": [0], "target_cpus": [1, 2], "cgroups": "none",
                      "notes": [], "nofile_limit": 1024},
        "scenarios": [scenario]
    }))
}

/// The single output of a format that makes one.
fn one(outputs: Vec<Output>) -> Output {
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    outputs.into_iter().next().unwrap()
}

#[test]
fn json_is_the_model_itself_and_round_trips() {
    let r = run();
    let o = one(Json.export(&r).unwrap());
    assert_eq!(o.file, "results.json");
    // The same bytes as the runner's checkpoints (RunResults::save): one results.json.
    assert_eq!(o.text.as_bytes(), serde_json::to_vec_pretty(&r).unwrap());
    let back: RunResults = serde_json::from_str(&o.text).unwrap();
    assert_eq!(back.scenarios[0].targets[0].name, "good");
    assert_eq!(
        back.scenarios[0].targets[0]
            .summary
            .as_ref()
            .map(|s| s.rps.median),
        Some(1000.0)
    );
    assert_eq!(serde_json::to_string_pretty(&back).unwrap(), o.text);
}

#[test]
fn markdown_has_the_table_and_escapes_pipes() {
    let o = one(Markdown.export(&run()).unwrap());
    assert_eq!(o.file, "report.md");
    let md = o.text;
    assert!(md.starts_with("# gqlbench report: suite `servers`, profile `quick`\n"));
    assert!(md.contains("- machine: Test CPU (4 cores, 8.00 GiB), Linux kernel 6.1\n"));
    assert!(
        md.contains("\n## servers/sweep\n\nsimple \\| medium mix\n"),
        "{md}"
    );
    assert!(!md.contains("simple | medium"), "{md}");
    assert!(md.contains(&format!("| {} |\n", HEADERS.join(" | "))));
    assert!(
        md.contains(
            "| good | 1,000 [990 – 1,010] | ±1.0% | 1.0% | 2.50 | 2.00 | 5.00 | 9.50 | 0 |"
        ),
        "{md}"
    );
    // The sweep's own table, with the failed steps called out.
    assert!(
        md.contains("| good | 500, 2.00 | 1,000, 9.50 (3 FAILED) |"),
        "{md}"
    );
}

#[test]
fn csv_has_one_file_per_chart_with_its_header_and_rows() {
    let r = run();
    let outputs = Csv.export(&r).unwrap();
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    assert_eq!(outputs[0].file, "sweep-sweep.csv");
    let lines: Vec<&str> = outputs[0].text.lines().collect();
    assert_eq!(
        lines,
        [
            "target,trial,connections,rps,p50_ms,p99_ms,failed",
            "good,1,10,500.0,1.000,2.000,0",
            "good,1,50,1000.0,4.000,9.500,3",
        ]
    );
    // Nothing to chart, no file.
    let mut plain = r;
    plain.scenarios[0].connection_sweep = None;
    assert_eq!(Csv.export(&plain).unwrap(), vec![]);
}

#[test]
fn terminal_shows_provenance_rows_and_verdict() {
    let o = one(Terminal.export(&run()).unwrap());
    assert_eq!(o.file, "results.txt");
    let t = o.text;
    assert!(
        t.starts_with("machine: Test CPU (4 cores, 8.00 GiB)"),
        "{t}"
    );
    assert!(t.contains("servers/sweep — simple | medium mix"), "{t}");
    assert!(t.contains("1,000 [990 – 1,010]"), "{t}");
    assert!(t.contains("no ranking: fewer than two valid"), "{t}");
}

#[test]
fn a_comparison_goes_through_the_same_formats() {
    let r = run();
    let c = crate::compare::compare(&r, &r, "a", "b", Some(5.0));
    let t = one(Terminal.export(&c).unwrap());
    assert_eq!(t.file, "comparison.txt");
    assert!(
        t.text.starts_with("baseline: a\ncandidate: b\n"),
        "{}",
        t.text
    );
    assert!(t.text.contains("servers/sweep"), "{}", t.text);
    assert!(
        t.text
            .contains("gate --fail-if-slower 5%: passed (1 row(s) compared)"),
        "{}",
        t.text
    );
    let j = one(Json.export(&c).unwrap());
    assert_eq!(j.file, "comparison.json");
    let v: serde_json::Value = serde_json::from_str(&j.text).unwrap();
    assert_eq!(v["rows"][0]["target"], "good");
    assert_eq!(v["gate_passed"], true);
}

#[test]
fn the_manager_writes_every_output_to_its_folder_even_after_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let r = run();
    let result = ExportManager::new()
        .add(Markdown, Dest::Dir(missing.clone()))
        .add(Json, Dest::Dir(dir.path().to_path_buf()))
        .add(Csv, Dest::Dir(dir.path().to_path_buf()))
        .write(&r);
    let err = format!("{:#}", result.unwrap_err());
    assert!(err.contains(&missing.display().to_string()), "{err}");
    // The exports after the failed one were written all the same, whole.
    let json = std::fs::read_to_string(dir.path().join("results.json")).unwrap();
    assert_eq!(json, one(Json.export(&r).unwrap()).text);
    let csv = std::fs::read_to_string(dir.path().join("sweep-sweep.csv")).unwrap();
    assert!(csv.starts_with("target,trial,connections,"), "{csv}");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["results.json", "sweep-sweep.csv"]);

    let written = ExportManager::new()
        .add(Markdown, Dest::Dir(dir.path().to_path_buf()))
        .write(&r)
        .unwrap();
    assert_eq!(written, vec![dir.path().join("report.md")]);
}

#[test]
fn a_stream_gets_each_text_ended_by_one_newline() {
    let mut out = Vec::new();
    to_stream(&mut out, "{\n  \"a\": 1\n}").unwrap();
    to_stream(&mut out, "table\n").unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "{\n  \"a\": 1\n}\ntable\n");
}

#[test]
fn a_figure_that_could_not_be_read_is_unmeasured_in_every_format() {
    let mut r = run();
    let s = &mut r.scenarios[0];
    s.connection_sweep = None;
    s.by_kind.set(
        &crate::kinds::long_run::SPEC,
        &crate::kinds::long_run::LongRunSpec::default(),
    );
    let t = &mut s.targets[0];
    // Started and sampled (cpu_source set), but nothing of its CPU or memory was read: a
    // target killed before the window.
    t.rss_idle_bytes = None;
    let tr = &mut t.trials[0];
    tr.vitals.cpu_source = "proc".into();
    tr.vitals.series.push(crate::results::VitalsPoint {
        t_s: 1.0,
        ..Default::default()
    });
    let sum = t.summary.as_mut().unwrap();
    (sum.cpu_avg_pct, sum.rss_peak_bytes, sum.rss_avg_bytes) = (None, None, None);
    let row = "| good | 1,000 [990 – 1,010] | ±1.0% | 1.0% | 2.50 | 2.00 | 5.00 | 9.50 | 0 | unmeasured | unmeasured / unmeasured / unmeasured |";
    let md = one(Markdown.export(&r).unwrap()).text;
    assert!(md.contains(row), "{md}");
    assert!(!md.contains("0 MiB"), "{md}");
    let term = one(Terminal.export(&r).unwrap()).text;
    assert!(
        term.contains("unmeasured / unmeasured / unmeasured"),
        "{term}"
    );
    let html = one(Html.export(&r).unwrap()).text;
    assert!(
        html.contains("<td>unmeasured / unmeasured / unmeasured</td>"),
        "{html}"
    );
    let csv = Csv.export(&r).unwrap();
    let memory = csv.iter().find(|o| o.file == "memory-sweep.csv").unwrap();
    assert_eq!(
        memory.text.lines().nth(1),
        Some("good,1,1.0,unmeasured,unmeasured,,")
    );
    // In the file itself: null, not 0.
    let json: serde_json::Value =
        serde_json::from_str(&one(Json.export(&r).unwrap()).text).unwrap();
    let target = &json["scenarios"][0]["targets"][0];
    assert!(target["rss_idle_bytes"].is_null());
    assert!(target["trials"][0]["vitals"]["rss_peak_bytes"].is_null());
    assert!(target["trials"][0]["vitals"]["series"][0]["rss_bytes"].is_null());

    // The cost section sizes a row whose CPU was read; its memory, unread, is unmeasured.
    let mut priced = r.clone();
    let tr = &mut priced.scenarios[0].targets[0].trials[0];
    (tr.sweep, tr.vitals.cpu_avg_pct, tr.load.throughput_rps) = (None, Some(95.0), 1000.0);
    let md = one(Markdown.export(&priced).unwrap()).text;
    let cost_row = md
        .lines()
        .find(|l| l.starts_with("| good | 95 |"))
        .unwrap_or_else(|| panic!("{md}"));
    assert_eq!(
        cost_row.split(" | ").nth(4),
        Some("unmeasured"),
        "{cost_row}"
    );

    // An imported run never measured them: "-", not "unmeasured".
    r.scenarios[0].targets[0].trials[0].vitals.cpu_source = String::new();
    r.scenarios[0].targets[0].ready_s = None;
    let md = one(Markdown.export(&r).unwrap()).text;
    assert!(md.contains("| 0 | - | - / - / - |"), "{md}");
}

#[test]
fn a_row_whose_only_trial_was_cut_short_shows_no_figure() {
    let mut r = run();
    r.scenarios[0].connection_sweep = None;
    let t = &mut r.scenarios[0].targets[0];
    t.status = crate::results::TargetStatus::Interrupted;
    let tr = &mut t.trials[0];
    tr.sweep = None;
    // Ctrl-C a third into the window: 400 req/s over what ran of it, not the target's.
    (
        tr.load.interrupted,
        tr.load.throughput_rps,
        tr.load.requests,
    ) = (true, 400.0, 400);
    (tr.valid, tr.problems) = (false, vec!["interrupted".into()]);
    t.summary = crate::summary::summarize(t);
    assert_eq!(t.summary.as_ref().map(|x| x.rps.n), Some(0));
    let row = &rows(&r.scenarios[0])[0];
    assert_eq!(
        [&row.rps, &row.cv, &row.p99],
        ["-", "-", "-"],
        "{}",
        row.cells().join(" | ")
    );
    assert_eq!(row.validity, "INTERRUPTED (0/1 trials valid)");
}

#[test]
fn markdown_shows_a_name_with_markup_or_a_line_break_as_text_in_one_cell() {
    let mut r = run();
    let name = "<img src=x onerror=alert(1)>a|b\nc";
    r.scenarios[0].targets[0].name = name.into();
    r.scenarios[0].targets[0].problem = Some("line one\r\nline two".into());
    let md = one(Markdown.export(&r).unwrap()).text;
    assert!(!md.contains("<img"), "{md}");
    let cell = "| &lt;img src=x onerror=alert(1)>a\\|b c | 1,000 [990 – 1,010] |";
    assert!(md.contains(cell), "{md}");
    // The main table's row still has its 13 cells: nothing ended it early.
    let row = md.lines().find(|l| l.contains("1,000 [990")).unwrap();
    assert_eq!(row.replace("\\|", "").matches('|').count(), 14, "{row}");
    // In a code span `<` is text already, and stays as written.
    assert_eq!(
        markdown::esc("gives `source: vrl-<subgraph>` to <b>"),
        "gives `source: vrl-<subgraph>` to &lt;b>"
    );
    // An unpaired backtick opens no code span, so what follows it is escaped.
    assert_eq!(markdown::esc("a`<b>"), "a`&lt;b>");
}

#[test]
fn the_run_lines_count_rows_within_fastest_named_pairs_decided_and_what_the_budget_cut() {
    use crate::results::StopReason;
    use crate::results::{BudgetInfo, RankPair, Ranking, RoundsInfo};
    let mut r = run();
    let rounds = |stop| RoundsInfo {
        run: 3,
        min: 3,
        max: 6,
        target_pct: Some(5.0),
        stop,
        canary: Vec::new(),
        slices: None,
        race: None,
    };
    let pair = |state: &str| RankPair {
        faster: "good".into(),
        slower: "wide".into(),
        margin: None,
        state: state.into(),
        race: None,
    };
    // Scenario 1 (`sweep`, stopped by the run's time): `good` within ±5% (±1%), `wide` not
    // (±20%); a fastest named, its one pair decided.
    let s = &mut r.scenarios[0];
    s.rounds = Some(rounds(StopReason::Time));
    let mut wide = s.targets[0].clone();
    wide.name = "wide".into();
    let est = &mut wide.summary.as_mut().unwrap().rps;
    (est.ci_low, est.ci_high) = (800.0, 1200.0);
    s.targets.push(wide);
    s.ranking = Some(Ranking {
        fastest: "good".into(),
        runner_up: "wide".into(),
        margin_pct: 1.0,
        margin_ci_pct: (0.5, 1.5),
        significant: true,
        min_trials: 3,
        pairs: vec![pair("faster")],
    });
    // Scenario 2: the same rows, no fastest named, its pair undecided, stopped by the most
    // rounds allowed (not the budget's doing).
    let mut s2 = r.scenarios[0].clone();
    s2.name = "medium".into();
    s2.rounds = Some(rounds(StopReason::MaxRounds));
    s2.ranking = Some(Ranking {
        significant: false,
        pairs: vec![pair("undecided")],
        ..s2.ranking.clone().unwrap()
    });
    r.scenarios.push(s2);
    assert_eq!(
        precision::run_line(&r).unwrap(),
        "precision: 2 of 4 throughput rows within ±5%; a fastest target named in 1 of 2 throughput scenarios; 1 of 2 adjacent pairs decided (faster or equivalent)"
    );
    // Efficiency scenarios' req/s is the rate they sent: their rows are not counted, their
    // rankings are; with no other rows, the line has no rows' part.
    let mut cost = r.clone();
    for s in &mut cost.scenarios {
        s.by_kind.set(
            &crate::summary::efficiency::RATE,
            &crate::summary::efficiency::Rate {
                rate: 20.0,
                share: None,
            },
        );
    }
    assert_eq!(
        precision::run_line(&cost).unwrap(),
        "precision: a fastest target named in 1 of 2 throughput scenarios; 1 of 2 adjacent pairs decided (faster or equivalent)"
    );
    r.budget = Some(BudgetInfo {
        max_s: 540.0,
        used_s: 579.0,
        promised_s: None,
    });
    let b = precision::budget_line(&r).unwrap();
    assert!(b.contains("9m 00s") && b.contains("9m 39s"), "{b}");
    assert!(
        b.contains("rounds added for precision in 1 scenario (sweep)") && !b.contains("medium"),
        "{b}"
    );
    r.budget = None;
    assert_eq!(precision::budget_line(&r), None);
}
