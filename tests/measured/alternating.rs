//! Alternating rounds end to end on the fixture server: a round's targets are measured
//! together in time slices, each trial's figures are its own slices' (CPU over its own
//! share, not diluted by the others'), targets of known different costs are ranked apart;
//! a target that crashes mid-round is reported and the others go on; Ctrl-C mid-round
//! stops them all and keeps the rounds before; `--one-at-a-time`
//! measures them one after another; a target's own warm-up (`[start] warmup`) runs alone
//! on its fresh process; bad slice flags are refused naming the flag.

use crate::common::*;
use gqlbench::results::TargetStatus;

/// The tests of this file measure: one at a time, so that one's load does not land in
/// another's slices.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fixture server target in `mode` whose every answer costs `spin_us` of CPU (see
/// `abs_fixture_target`): its server's path.
fn spin_target(root: &std::path::Path, name: &str, mode: &str, spin_us: u32) -> String {
    let spin = format!("FIXTURE_SPIN_US={spin_us}");
    abs_fixture_target(root, name, "server", mode, &[&spin])
}

/// `n` short rounds of `hello`: 400 ms of warm-up and 800 ms measured per target.
fn rounds(root: &std::path::Path, targets: &str, n: u32) -> Gqlbench {
    Gqlbench::run("e2e")
        .root(root)
        .scenarios("hello")
        .targets(targets)
        .trials(n)
        .warmup("400ms")
        .duration("800ms")
}

#[test]
fn targets_of_a_round_alternate_and_known_costs_are_ranked_apart() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = spin_target(dir.path(), "fx-light", "good", 300);
    spin_target(dir.path(), "fx-heavy", "good", 900);
    let out = dir.path().join("run");
    let o = rounds(dir.path(), "fx-light,fx-heavy,fx-good", 3)
        .args(["--slice", "200ms"])
        .out(&out)
        .go();
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    let info = s.rounds.as_ref().expect("rounds");
    let slices = info.slices.as_ref().expect("the rounds alternated");
    assert_eq!(slices.rounds, 3);
    assert_eq!(slices.slice_ms, 200.0);
    assert_eq!(slices.guard_ms, 50.0);
    for t in &s.targets {
        // Counted rounds: a round the hypervisor disturbed is measured again (kept, not
        // counted), so on a noisy machine a target may hold more trials than rounds.
        assert_eq!(counted_trials(t).len(), 3, "{}", t.name);
        for x in &t.trials {
            assert!(x.valid, "{}: {:?}", t.name, x.problems);
            assert_eq!(x.alternated, Some(3), "{}", t.name);
            // Whole blocks (two of 400 ms a target): every own slice of the window counted,
            // less its guard.
            assert!(x.load.slices.len() >= 4, "{}: {:?}", t.name, x.load.slices);
            assert!(x.load.slices.iter().all(|sl| sl.counted_ms <= 150.0 + 1.0));
        }
    }
    // The spinning target is busy in its own slices: its CPU is over its share of the
    // window (near a core), not diluted by the others' slices (a third of that).
    let heavy = target(&r, 0, "fx-heavy");
    for x in &heavy.trials {
        if let Some(cpu) = x.vitals.cpu_avg_pct {
            assert!(cpu > 50.0, "fx-heavy CPU {cpu}% over its own slices");
        }
    }
    let rps = |name: &str| target(&r, 0, name).summary.as_ref().unwrap().rps.center;
    assert!(rps("fx-good") > rps("fx-light") && rps("fx-light") > rps("fx-heavy"));
    assert_eq!(
        pair_states(&r, 0),
        [
            ("fx-good", "fx-light", "faster"),
            ("fx-light", "fx-heavy", "faster")
        ]
    );
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("targets measured together in every round, alternating in 200 ms slices"),
        "{md}"
    );
    assert!(o.stderr.contains("3 targets alternating"), "{}", o.stderr);
    assert_no_process(&server);
}

#[test]
fn a_target_crashing_mid_round_is_reported_and_the_others_go_on() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = spin_target(dir.path(), "fx-spin-crash", "crash", 0);
    spin_target(dir.path(), "fx-spin-good", "good", 0);
    let out = dir.path().join("run");
    let o = rounds(dir.path(), "fx-spin-good,fx-spin-crash", 3)
        .out(&out)
        .go();
    assert_eq!(o.code, Some(1), "a target failed: {}", o.stderr);
    let r = read_results(&out);
    let crash = target(&r, 0, "fx-spin-crash");
    assert_eq!(crash.status, TargetStatus::Crashed, "{:?}", crash.problem);
    assert!(
        crash
            .problem
            .as_deref()
            .unwrap_or("")
            .contains("during trial 1"),
        "{:?}",
        crash.problem
    );
    let good = target(&r, 0, "fx-spin-good");
    assert_eq!(good.status, TargetStatus::Ok);
    assert_eq!(counted_trials(good).len(), 3);
    assert!(good.trials.iter().all(|x| x.valid));
    // The round it crashed in alternated; the rest, one target left, ran it alone.
    assert_eq!(good.trials[0].alternated, Some(2));
    assert!(good.trials[1..].iter().all(|x| x.alternated.is_none()));
    assert_eq!(
        r.scenarios[0]
            .rounds
            .as_ref()
            .unwrap()
            .slices
            .as_ref()
            .unwrap()
            .rounds,
        1
    );
    assert_no_process(&server);
}

#[test]
fn ctrl_c_in_an_alternating_round_stops_every_target_and_keeps_the_rounds_before() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = spin_target(dir.path(), "fx-int-a", "good", 0);
    spin_target(dir.path(), "fx-int-b", "good", 0);
    let out = dir.path().join("run");
    let child = rounds(dir.path(), "fx-int-a,fx-int-b", 6).out(&out).spawn();
    // Interrupt in the second round: the first is saved once both its trials are.
    let first_round_saved = || {
        std::fs::read_to_string(out.join("results.json"))
            .ok()
            .and_then(|j| serde_json::from_str::<gqlbench::results::RunResults>(&j).ok())
            .is_some_and(|r| {
                r.scenarios
                    .first()
                    .is_some_and(|s| s.targets.iter().all(|t| !t.trials.is_empty()))
            })
    };
    wait_for(
        "the first round",
        std::time::Duration::from_secs(60),
        first_round_saved,
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    Outcome::finish(child).assert_exit(130);
    let r = read_results(&out);
    assert_eq!(r.status, gqlbench::results::RunStatus::Interrupted);
    for t in &r.scenarios[0].targets {
        assert_eq!(t.status, TargetStatus::Interrupted, "{}", t.name);
        assert!(
            t.trials[0].valid && t.trials[0].alternated == Some(2),
            "{}",
            t.name
        );
        assert_ne!(
            t.summary.as_ref().map(|s| s.valid),
            Some(true),
            "{}",
            t.name
        );
    }
    assert_no_process(&server);
}

#[test]
fn one_at_a_time_measures_each_target_alone() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let out = dir.path().join("run");
    rounds(dir.path(), "fx-good,fx-chunked", 3)
        .arg("--one-at-a-time")
        .out(&out)
        .go()
        .assert_exit(0);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    assert!(s.rounds.as_ref().unwrap().slices.is_none());
    for t in &s.targets {
        assert_eq!(counted_trials(t).len(), 3);
        assert!(t
            .trials
            .iter()
            .all(|x| x.alternated.is_none() && x.load.slices.is_empty()));
    }
}

#[test]
fn slice_flags_that_cannot_work_are_refused_naming_the_flag() {
    let _turn = file_turn(module_path!());
    for (flags, needle) in [
        (vec!["--slice", "10ms"], "--slice"),
        (vec!["--slice", "2m"], "--slice"),
        (
            vec!["--slice", "200ms", "--one-at-a-time"],
            "--one-at-a-time",
        ),
    ] {
        let o = Gqlbench::run("e2e")
            .root(fixtures())
            .scenarios("hello")
            .targets("fx-good")
            .args(&flags)
            .go();
        assert_eq!(o.code, Some(2), "{flags:?}: {}", o.stderr);
        assert!(o.stderr.contains(needle), "{flags:?}: {}", o.stderr);
    }
}

/// What a run announces is what it will measure: a window rounded up to whole blocks says
/// so, one target does not alternate (and is not "1 targets"), and `--slice` on a scenario
/// whose targets are measured one at a time is noted.
#[test]
fn the_header_says_what_the_slices_make_of_the_window() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    // 300 ms slices: a block is 600 ms of each target's own time, so 800 ms is 1.2 s.
    let o = rounds(dir.path(), "fx-good,fx-chunked", 1)
        .args(["--slice", "300ms"])
        .out(dir.path().join("two"))
        .go();
    o.assert_exit(0);
    assert!(
        o.stderr.contains("2 targets alternating in 300ms slices")
            && o.stderr.contains("1s 200ms measured, each")
            && o.stderr
                .contains("800ms measured asked, rounded up to whole blocks"),
        "{}",
        o.stderr
    );
    let o = rounds(dir.path(), "fx-good", 1)
        .args(["--slice", "300ms"])
        .out(dir.path().join("one"))
        .go();
    o.assert_exit(0);
    assert!(
        o.stderr.contains("scenario e2e/hello: 1 target x") && !o.stderr.contains("1 targets"),
        "{}",
        o.stderr
    );
    let o = Gqlbench::run("e2e")
        .root(dir.path())
        .scenarios("latency-met")
        .args(["--slice", "300ms", "--duration", "1s", "--warmup", "0s"])
        .trials(1)
        .out(dir.path().join("open"))
        .go();
    assert!(
        o.stderr
            .contains("note: --slice 300ms does not apply to latency-met"),
        "{}",
        o.stderr
    );
}

/// A target that names its own warm-up (`[start] warmup`, as a JVM's does) is loaded alone on
/// its fresh process, at least that long and until steady, before it is measured, alternating
/// or one at a time; the others keep the scenario's short one. A warm-up that is not a
/// duration is bad input naming the file.
#[test]
fn a_target_with_its_own_warm_up_is_warmed_alone_before_it_counts() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = spin_target(dir.path(), "fx-jvm", "good", 100);
    let toml = dir.path().join("targets/fx-jvm/target.toml");
    let manifest = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{manifest}warmup = \"4s\"\n")).unwrap();
    for (i, mode) in [vec!["--slice", "200ms"], vec!["--one-at-a-time"]]
        .into_iter()
        .enumerate()
    {
        let out = dir.path().join(format!("run{i}"));
        let o = rounds(dir.path(), "fx-jvm,fx-good", 2)
            .args(&mode)
            .out(&out)
            .go();
        assert_eq!(o.code, Some(0), "{mode:?}: {}", o.stderr);
        let r = read_results(&out);
        let jvm = target(&r, 0, "fx-jvm");
        let w = jvm.trials[0]
            .warmup
            .as_ref()
            .expect("its own warm-up, first");
        assert_eq!((w.min_s, w.max_s), (4.0, 8.0), "{mode:?}");
        assert!(
            w.used_s >= 4.0 && w.requests > 0 && w.own,
            "{mode:?}: {w:?}"
        );
        for t in &target(&r, 0, "fx-good").trials {
            assert!(
                t.warmup.as_ref().is_none_or(|w| w.min_s < 4.0 && !w.own),
                "{mode:?}: {:?}",
                t.warmup
            );
        }
        assert!(jvm
            .trials
            .iter()
            .chain(&target(&r, 0, "fx-good").trials)
            .all(|t| t.valid));
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(
            md.contains("fx-jvm: its own warm-up (its target.toml's, at least 4 s"),
            "{md}"
        );
        assert!(!md.contains("fx-good: its own warm-up"), "{md}");
    }
    std::fs::write(&toml, format!("{manifest}warmup = \"soon\"\n")).unwrap();
    let o = rounds(dir.path(), "fx-jvm,fx-good", 2).go();
    assert_eq!(o.code, Some(2), "{}", o.stderr);
    assert!(
        o.stderr.contains("fx-jvm") && o.stderr.contains("'soon' is not a duration"),
        "{}",
        o.stderr
    );
    assert_no_process(&server);
}
