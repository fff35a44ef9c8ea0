//! End-to-end: `--precision` adds rounds until every row is within the precision asked for,
//! or says per row that the budget ended them first; the flags of the method refuse what
//! cannot work (exit 2, naming the flag); a fixed count of trials is what progress says;
//! `calibrate --sensitivity` stops at once on Ctrl-C (exit 130, nothing left running).
use crate::common;
use common::*;
use gqlbench::results::StopReason;

/// Two fixture servers, 300 ms trials without warm-up, with these extra flags.
fn precise_run(dir: &std::path::Path, flags: &[&str]) -> Outcome {
    Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("hello")
        .targets("fx-good,fx-chunked")
        .warmup("0s")
        .duration("300ms")
        .args(flags)
        .out(dir)
        .go()
}

#[test]
fn rounds_stop_once_every_interval_is_within_the_precision_and_the_report_says_so() {
    let dir = tempfile::tempdir().unwrap();
    // One target (no ranking that could end the rounds instead), warmed up: a cold fixture
    // server's first trials differ several-fold. Tests run side by side, so how many rounds
    // it takes varies; what must hold is that the rounds stop as soon as the interval is
    // within ±50% (or at the most allowed), and that the figures say so.
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("hello")
        .targets("fx-good")
        .warmup("500ms")
        .duration("300ms")
        .args(["--trials", "3", "--max-trials", "8", "--precision", "50%"])
        .out(dir.path())
        .go();
    out.assert_exit(0);
    let r = read_results(dir.path());
    let rounds = r.scenarios[0].rounds.as_ref().expect("rounds info");
    assert_eq!((rounds.min, rounds.max), (3, 8));
    assert!((3..=8).contains(&rounds.run), "{}", rounds.run);
    assert_eq!(rounds.target_pct, Some(50.0));
    // A canary timing before the first round and after each.
    assert_eq!(rounds.canary.len(), rounds.run as usize + 1);
    let t = &r.scenarios[0].targets[0];
    assert_eq!(
        t.trials.iter().filter(|x| x.excluded.is_none()).count(),
        rounds.run as usize
    );
    let hw = t
        .summary
        .as_ref()
        .unwrap()
        .rps
        .relative_half_width()
        .unwrap();
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    match rounds.stop {
        StopReason::Precise => {
            assert!(hw <= 0.5, "{hw}");
            assert!(md.contains("(within ±50%)"), "{md}");
        }
        StopReason::MaxRounds => {
            assert_eq!(rounds.run, 8);
            assert!(hw > 0.5, "{hw}");
            assert!(
                md.contains("(wanted ±50%: budget: the most trials allowed)"),
                "{md}"
            );
        }
        other => panic!("stopped for {other:?}"),
    }
    assert!(
        md.contains(&format!("rounds: {} (at least 3, at most 8", rounds.run)),
        "{md}"
    );
}

#[test]
fn an_unreachable_precision_ends_on_the_budget_and_each_row_says_why() {
    let dir = tempfile::tempdir().unwrap();
    // One target: no ranking to decide, so only the precision could end the rounds early.
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("hello")
        .targets("fx-good")
        .warmup("0s")
        .duration("300ms")
        .args([
            "--trials",
            "3",
            "--max-trials",
            "4",
            "--precision",
            "0.001%",
        ])
        .out(dir.path())
        .go();
    // Not an error: a precision the budget cannot reach is a result.
    out.assert_exit(0);
    let r = read_results(dir.path());
    let rounds = r.scenarios[0].rounds.as_ref().unwrap();
    assert_eq!((rounds.run, rounds.stop), (4, StopReason::MaxRounds));
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(
        md.contains("(wanted ±0.001%: budget: the most trials allowed)"),
        "{md}"
    );
}

#[test]
fn method_flags_that_cannot_work_are_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    for (flags, says) in [
        (vec!["--precision", "60%"], "(0, 50]"),
        (vec!["--precision", "0"], "(0, 50]"),
        (vec!["--precision", "five"], "(0, 50]"),
        (
            vec![
                "--precision",
                "5%",
                "--trials",
                "3",
                "--max-trials",
                "4",
                "--max-time",
                "100ms",
            ],
            "shorter than one round",
        ),
        (
            vec!["--interference-limit", "0"],
            "not a share of one CPU above 0",
        ),
        (vec!["--target-env", "PORT=1"], "set by gqlbench"),
        (vec!["--target-env", "NOVALUE"], "NAME=VALUE"),
    ] {
        let out = precise_run(&dir.path().join("x"), &flags);
        out.assert_exit(2);
        assert!(out.stderr.contains(says), "{flags:?}: {}", out.stderr);
        assert!(!dir.path().join("x").join("results.json").exists());
    }
}

#[test]
fn sensitivity_flags_that_cannot_work_are_refused_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    for (flags, says) in [
        (vec!["--repetitions", "0"], "--repetitions"),
        (vec!["--slowdowns", "0"], "--slowdowns"),
        (vec!["--slowdowns", "5,5"], "distinct"),
        (vec!["--work", "10"], "--work"),
        (vec!["--profile", "nope"], "unknown profile 'nope'"),
        (vec!["--wrk"], "cannot be used with"),
    ] {
        let out_dir = dir.path().join("s");
        let out = Gqlbench::new(["calibrate", "--sensitivity"])
            .root(repo())
            .args(&flags)
            .arg("--out")
            .arg(&out_dir)
            .go();
        out.assert_exit(2);
        assert!(out.stderr.contains(says), "{flags:?}: {}", out.stderr);
        // Nothing was run: no probe folder.
        assert!(!out_dir.join("probe-no-work").exists(), "{flags:?}");
    }
}

#[test]
fn a_fixed_count_of_trials_is_what_progress_and_the_rounds_say() {
    // A profile that adds rounds up to 6 until precise; --trials 1 fixes the count at 1.
    let dir = fixture_copy();
    std::fs::write(
        dir.path().join("scenarios/profiles.toml"),
        "[quick]\ntrials = 3\nmax_trials = 6\nprecision = 5\nwarmup = \"0s\"\nduration = \"1s\"\n",
    )
    .unwrap();
    let out = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("hello")
        .targets("fx-good")
        .trials(1)
        .duration("300ms")
        .out(dir.path().join("run"))
        .go();
    out.assert_exit(0);
    assert!(
        out.stderr.contains("hello trial 1/1 fx-good"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("trial 1/6"), "{}", out.stderr);
    let r = read_results(&dir.path().join("run"));
    let rounds = r.scenarios[0].rounds.as_ref().unwrap();
    assert_eq!((rounds.min, rounds.max), (1, 1));
}

/// A copy of the fixture catalogue holding what `calibrate --sensitivity` runs: a
/// `node-baseline` (the good fixture server, started from its absolute path so its processes
/// are told from other tests') and `servers/simple` (the scenario hello).
fn sensitivity_catalogue() -> tempfile::TempDir {
    let dir = fixture_copy();
    let root = dir.path();
    abs_fixture_target(root, "node-baseline", "baseline", "good", &[]);
    std::fs::create_dir_all(root.join("scenarios/servers")).unwrap();
    std::fs::copy(
        root.join("scenarios/e2e/hello.toml"),
        root.join("scenarios/servers/simple.toml"),
    )
    .unwrap();
    dir
}

/// Wait for `child` (bounded: a hang fails the test instead of holding it), its exit code.
fn exit_within(child: &mut std::process::Child, limit: std::time::Duration) -> Option<i32> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st.code();
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("still running {} s after the interrupt", limit.as_secs());
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn ctrl_c_stops_a_sensitivity_calibration_at_once_with_130() {
    use std::os::unix::process::CommandExt;
    let cat = sensitivity_catalogue();
    let server = cat.path().join("targets/_fixture/server.mjs");
    let server = server.to_string_lossy();
    // To the calibration alone (it must pass it on), then to its whole process group (a
    // Ctrl-C at the terminal: the run gets it too, and no further run may start).
    for (case, group) in [("alone", false), ("group", true)] {
        let out = cat.path().join(format!("sens-{case}"));
        let mut cmd = Gqlbench::new(["calibrate", "--sensitivity"])
            .root(cat.path())
            .args(["--profile", "quick", "--repetitions", "1"])
            .arg("--out")
            .arg(&out)
            .command();
        cmd.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0);
        let mut child = cmd.spawn().unwrap();
        let pid = child.id() as i32;
        // In the first probe's run, its target up.
        wait_for(
            "the first probe's target",
            std::time::Duration::from_secs(30),
            || !processes_with(&server).is_empty(),
        );
        unsafe {
            libc::kill(if group { -pid } else { pid }, libc::SIGINT);
        }
        let code = exit_within(&mut child, std::time::Duration::from_secs(25));
        assert_eq!(code, Some(130), "{case}");
        // Nothing left: no run, no target, and the second probe never started.
        assert_no_process(&out.display().to_string());
        assert_no_process(&server);
        assert!(!out.join("probe-work").exists(), "{case}");
        let probe = read_results(&out.join("probe-no-work"));
        assert_eq!(
            probe.status,
            gqlbench::results::RunStatus::Interrupted,
            "{case}"
        );
    }
}
