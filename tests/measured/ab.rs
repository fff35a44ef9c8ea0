//! `gqlbench ab` end to end on the fixture server: a known extra cost per request is found
//! (exit 1), a side that answers wrong or crashes fails the run naming the side (the other
//! side's figures kept, nothing left running), and bad input is refused with exit 2 naming
//! the flag or file.

use crate::common::*;

/// The tests of this file measure: one at a time, so that one's load does not land in
/// another's slices (the other test files run after this one, not beside it).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Short pairs: the fixture starts in a fraction of a second, so 3 pairs take ~12 s.
const QUICK: [&str; 12] = [
    "--pair-time",
    "2s",
    "--warmup",
    "400ms",
    "--slice",
    "100ms",
    "--latency-time",
    "0s",
    "--max-pairs",
    "3",
    "--budget",
    "60s",
];

fn ab(root: &std::path::Path) -> Gqlbench {
    Gqlbench::new(["ab", "e2e/hello"]).root(root).args(QUICK)
}

/// A fixture server target in `mode` (see `abs_fixture_target`): its server's path.
fn abs_target(root: &std::path::Path, name: &str, mode: &str) -> String {
    abs_fixture_target(root, name, "server", mode, &[])
}

fn ab_record(r: &gqlbench::results::RunResults) -> gqlbench::kinds::ab::AbRecord {
    r.scenarios[0]
        .by_kind
        .get(&gqlbench::kinds::ab::AB)
        .expect("an ab record")
}

#[test]
fn a_known_cost_per_request_is_found_and_fails_the_gate() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = abs_target(dir.path(), "fx-abs", "good");
    let out = dir.path().join("ab");
    let o = ab(dir.path())
        .args(["--target", "fx-abs", "--allowance", "2%"])
        .args([
            "--a-env",
            "FIXTURE_SPIN_US=1000",
            "--b-env",
            "FIXTURE_SPIN_US=1400",
        ])
        .args(["--a-label", "base", "--b-label", "head"])
        .out(&out)
        .go();
    let r = read_results(&out);
    let rec = ab_record(&r);
    let d = rec.decision.as_ref().expect("a decision");
    assert_eq!(o.code, Some(1), "{d:?}\n{}", o.stderr);
    assert_eq!(d.verdict, gqlbench::summary::ab::AbVerdict::Slower, "{d:?}");
    assert!(d.trips, "{d:?}");
    // 40% more spin is a bit less than 40% more cost (Node's own time per request): about
    // -25% req/s. A cost far beyond what a noisy machine moves single pairs by (up to ±12%
    // on a VM whose hypervisor took 10-40% of a CPU), so that every pair shows it.
    assert!(d.pct < -8.0 && d.pct > -40.0, "{d:?}");
    // Three planned pairs count; a first pair whose switches called for a longer guard is
    // not counted and is replaced by one more.
    let counted = rec.pairs.iter().filter(|p| p.uncounted.is_none()).count();
    assert_eq!(counted, 3, "{:?}", rec.pairs);
    assert!(rec.pairs.iter().skip(1).all(|p| p.uncounted.is_none()));
    for p in &rec.pairs {
        assert!(p.blocks >= 2, "{p:?}");
        assert!(p.d.is_some_and(|d| d < 0.0), "{p:?}");
        assert!(p.a_rps > p.b_rps, "{p:?}");
    }
    // The side started first alternates from pair to pair.
    for (i, p) in rec.pairs.iter().enumerate() {
        assert_eq!(p.first, i % 2, "{:?}", rec.pairs);
    }
    let names: Vec<&str> = r.scenarios[0]
        .targets
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["base", "head"]);
    for t in &r.scenarios[0].targets {
        assert_eq!(counted_trials(t).len(), rec.pairs.len(), "{}", t.name);
        assert!(t.trials.iter().all(|x| x.valid), "{}", t.name);
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("A/B: head vs base"), "{md}");
    // The load is the pairs', the change the blocks', and the sides are not raced.
    assert!(
        md.contains(&format!("{} pairs × (", rec.pairs.len()))
            && !md.contains("1 trials")
            && md.contains("change (blocks)")
            && md.contains("no ranking: an A/B run decides side B against side A"),
        "{md}"
    );
    // `report` says what the run said: no race of the two sides made up afterwards.
    let again = Gqlbench::report(&out).go();
    again.assert_exit(0);
    assert!(
        !again.stdout.contains("ranking, each adjacent pair")
            && again.stdout.contains("no ranking: an A/B run decides"),
        "{}",
        again.stdout
    );
    assert!(
        o.stdout.contains("head is slower than base"),
        "{}",
        o.stdout
    );
    // A measured regression, not a failure: CI's comment tells them apart by this.
    let v = r.verdict.as_ref().unwrap();
    assert!(v.failures.is_empty(), "{v:?}");
    assert_eq!(v.regressions.len(), 1, "{v:?}");
    assert_no_process(&server);
}

#[test]
fn the_duet_finds_the_same_cost_from_cpu_per_request() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = abs_target(dir.path(), "fx-abs", "good");
    let out = dir.path().join("duet");
    let o = ab(dir.path())
        .args(["--target", "fx-abs", "--form", "duet"])
        // CPU per request is read from 200 ms samples: longer pairs, more of them.
        .args(["--pair-time", "3s", "--max-pairs", "4"])
        .args([
            "--a-env",
            "FIXTURE_SPIN_US=1000",
            "--b-env",
            "FIXTURE_SPIN_US=1400",
        ])
        .out(&out)
        .go();
    let r = read_results(&out);
    let rec = ab_record(&r);
    assert_eq!(rec.form, gqlbench::plan::ab::Form::Duet);
    for p in &rec.pairs {
        // Both sides' CPU per request was measured, B's the higher: the estimate is A's
        // cost over B's, below 1.
        let (a, b) = (p.a_cpu_ms_per_req.unwrap(), p.b_cpu_ms_per_req.unwrap());
        assert!(b > a, "{p:?}");
        assert!(p.d.is_some_and(|d| d < 0.0), "{p:?}");
    }
    let d = rec.decision.as_ref().expect("a decision");
    assert_eq!(d.verdict, gqlbench::summary::ab::AbVerdict::Slower, "{d:?}");
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert_no_process(&server);
}

#[test]
fn ctrl_c_stops_an_ab_at_once_with_130_and_leaves_nothing_running() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = abs_target(dir.path(), "fx-abs", "good");
    let out = dir.path().join("int");
    let mut child = ab(dir.path())
        .args(["--target", "fx-abs"])
        .out(&out)
        .spawn_with(std::process::Stdio::null(), std::process::Stdio::null());
    wait_for("both sides up", std::time::Duration::from_secs(30), || {
        processes_with(&server).len() >= 2
    });
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let code = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        assert!(std::time::Instant::now() < deadline, "still running");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(code, Some(130));
    assert_no_process(&server);
    let r = read_results(&out);
    let rec = ab_record(&r);
    assert_eq!(rec.stopped, gqlbench::kinds::ab::AbStop::Interrupted);
    // An interruption is not a side's failure.
    assert_eq!(rec.failure, None);
}

#[test]
fn a_side_that_answers_wrong_or_crashes_fails_the_run_naming_it() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = abs_target(dir.path(), "fx-abs", "good");
    abs_target(dir.path(), "fx-abs-wrong", "wrong");
    abs_target(dir.path(), "fx-abs-crash", "crash");
    for (b, what) in [
        ("fx-abs-wrong", "WRONG ANSWERS"),
        ("fx-abs-crash", "exited"),
    ] {
        let out = dir.path().join(format!("ab-{b}"));
        let o = ab(dir.path())
            .args(["--a-target", "fx-abs", "--b-target", b])
            .out(&out)
            .go();
        o.assert_exit(1);
        let r = read_results(&out);
        let rec = ab_record(&r);
        let failure = rec.failure.clone().expect("a failure");
        assert!(failure.starts_with("side b"), "{failure}");
        assert!(failure.contains(what), "{failure}");
        assert_eq!(rec.stopped, gqlbench::kinds::ab::AbStop::SideFailed);
        // Side A's row is kept; nothing of either side is left running.
        assert_eq!(
            r.scenarios[0].targets[0].status,
            gqlbench::results::TargetStatus::Ok
        );
        let v = r.verdict.as_ref().unwrap();
        assert!(v.failures.iter().any(|f| f.contains("side b")), "{v:?}");
        assert_no_process(&server);
    }
}

#[test]
fn bad_input_is_refused_with_exit_2_naming_the_flag_or_file() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let root = dir.path();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--target", "fx-good", "--b-label", "feature/x"],
            "--b-label",
        ),
        (vec!["--target", "fx-good", "--slice", "2m"], "--slice"),
        (
            vec!["--target", "fx-good", "--allowance", "60%"],
            "--allowance",
        ),
        (vec!["--allowance", "2%"], "--a-target"),
        (vec!["--target", "no-such-target"], "no-such-target"),
        // A target the scenario does not run is the side's flag's, not --targets.
        (
            vec!["--a-target", "fx-good", "--b-target", "fx-work"],
            "--b-target: no scenario of suite 'e2e' runs the side's target",
        ),
        (vec!["--target", "fx-good", "--slice", "10ms"], "--slice"),
        (vec!["--target", "fx-good", "--budget", "5s"], "--budget"),
    ];
    for (args, needle) in cases {
        let o = ab(root).args(&args).go();
        o.assert_exit(2);
        assert!(o.stderr.contains(needle), "{args:?}: {}", o.stderr);
    }
    // The range an allowance may take is ab's own, not compare's gate's.
    let o = ab(root)
        .args(["--target", "fx-good", "--allowance", "0%"])
        .go();
    o.assert_exit(2);
    assert!(
        o.stderr.contains("(0, 50%]") && !o.stderr.contains("100]"),
        "{}",
        o.stderr
    );
    // A scenario of another kind, and side B's scenario with other operations.
    let o = Gqlbench::new(["ab", "e2e/sweep", "--target", "fx-good"])
        .root(root)
        .args(QUICK)
        .go();
    o.assert_exit(2);
    assert!(o.stderr.contains("plain-load"), "{}", o.stderr);
    assert!(!o.stderr.contains("or rate"), "{}", o.stderr);
    let other = tempfile::tempdir().unwrap();
    copy_dir(root, other.path());
    let hello = other.path().join("scenarios/e2e/hello.toml");
    let text = std::fs::read_to_string(&hello).unwrap();
    std::fs::write(&hello, text.replace("connections = 8", "connections = 9")).unwrap();
    let o = ab(root)
        .args(["--target", "fx-good", "--b-root"])
        .arg(other.path())
        .go();
    o.assert_exit(2);
    assert!(o.stderr.contains("differ from side A"), "{}", o.stderr);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    let st = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", from.display()))
        .arg(to)
        .status()
        .unwrap();
    assert!(st.success());
}
