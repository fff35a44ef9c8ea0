//! The race of a scenario's rounds end to end on the fixture server: targets of known
//! different costs are decided pair by pair on rounds of fresh processes (each round after
//! the first starts them again, its output in a log of its own); a target that cannot start
//! again is reported and the race goes on without it; a round the hypervisor disturbed (a
//! burst of steal, injected here) is measured again and not counted, a steady level is
//! counted and named, and `--steal-limit off` judges nothing.

use crate::common::*;
use gqlbench::results::TargetStatus;

/// The tests of this file measure: one at a time, so that one's load does not land in
/// another's slices.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fixture server target whose every answer costs `spin_us` of CPU: its server's path.
fn spin_target(root: &std::path::Path, name: &str, spin_us: u32) -> String {
    let spin = format!("FIXTURE_SPIN_US={spin_us}");
    abs_fixture_target(root, name, "server", "good", &[&spin])
}

/// A race of `targets` on `hello`: 2 to 5 rounds, ±5% wanted, short rounds.
fn race(root: &std::path::Path, targets: &str, out: &std::path::Path) -> Outcome {
    Gqlbench::run("e2e")
        .root(root)
        .scenarios("hello")
        .targets(targets)
        .warmup("400ms")
        .duration("800ms")
        .args(["--trials", "2", "--max-trials", "5", "--precision", "5%"])
        .out(out)
        .go()
}

#[test]
fn known_costs_are_decided_pair_by_pair_on_fresh_processes() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = spin_target(dir.path(), "fx-light", 300);
    spin_target(dir.path(), "fx-heavy", 1500);
    let out = dir.path().join("run");
    let o = race(dir.path(), "fx-heavy,fx-light,fx-good", &out);
    assert_eq!(o.code, Some(0), "{}", o.stderr);
    let r = read_results(&out);
    let s = &r.scenarios[0];
    let rounds = s.rounds.as_ref().expect("rounds");
    let info = rounds.race.as_ref().expect("the rounds raced");
    // Every round after the first started its targets afresh: the second round all three.
    assert!(rounds.run >= 2 && rounds.run <= 5, "{}", rounds.run);
    assert!(info.restarts >= 3, "{info:?}");
    assert!(info.restart_s > 0.0, "{info:?}");
    for name in ["fx-heavy", "fx-light", "fx-good"] {
        let log = out.join(format!("logs/hello-{name}.round-2.log"));
        assert!(log.is_file(), "{} missing", log.display());
        assert!(counted_trials(target(&r, 0, name)).len() >= 2, "{name}");
    }
    let ranking = s.ranking.as_ref().expect("a ranking");
    assert_eq!(
        pair_states(&r, 0),
        [
            ("fx-good", "fx-light", "faster"),
            ("fx-light", "fx-heavy", "faster")
        ]
    );
    for p in &ranking.pairs {
        let race = p.race.as_ref().expect("judged by the race");
        let after = race.decided_after.expect("decided");
        assert!((2..=rounds.run).contains(&after), "{race:?}");
        assert!(race.alpha > 0.0 && race.alpha <= 0.025, "{race:?}");
        assert!(race.forecast.is_none(), "a decided pair forecasts nothing");
    }
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains(&format!(
            "{} fresh processes started for later rounds",
            info.restarts
        )),
        "{md}"
    );
    assert_no_process(&server);
}

#[test]
fn a_target_that_cannot_start_again_is_reported_and_the_race_goes_on() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    let dir = fixture_copy();
    let server = spin_target(dir.path(), "fx-light", 300);
    spin_target(dir.path(), "fx-heavy", 1500);
    // Starts once: its second start finds the marker its first left and exits.
    let once = dir.path().join("targets/fx-once");
    std::fs::create_dir_all(&once).unwrap();
    let marker = dir.path().join("fx-once.started");
    std::fs::write(
        once.join("target.toml"),
        format!(
            "name = \"fx-once\"\nkind = \"server\"\nworkloads = [\"fixture\"]\n\n[start]\ncommand = [\"sh\", \"-c\", \"[ -e '{m}' ] && {{ echo 'second start refused' >&2; exit 3; }}; touch '{m}'; exec node '{s}' good\"]\nready_timeout = \"10s\"\n",
            m = marker.display(),
            s = server
        ),
    )
    .unwrap();
    let out = dir.path().join("run");
    let o = race(dir.path(), "fx-heavy,fx-light,fx-once", &out);
    assert_eq!(o.code, Some(1), "a target failed: {}", o.stderr);
    let r = read_results(&out);
    let failed = target(&r, 0, "fx-once");
    assert_ne!(failed.status, TargetStatus::Ok);
    let problem = failed.problem.as_deref().unwrap_or("");
    assert!(problem.contains("started afresh for round 2"), "{problem}");
    // Its first round stays in the results; the others raced on.
    assert_eq!(counted_trials(failed).len(), 1);
    for name in ["fx-light", "fx-heavy"] {
        let t = target(&r, 0, name);
        assert_eq!(t.status, TargetStatus::Ok, "{name}: {:?}", t.problem);
        assert!(counted_trials(t).len() >= 2, "{name}");
    }
    let ranking = r.scenarios[0].ranking.as_ref().expect("a ranking");
    assert!(
        ranking.pairs.iter().any(|p| p.faster == "fx-light"
            && p.slower == "fx-heavy"
            && p.state.as_str() == "faster"),
        "{ranking:?}"
    );
    assert!(
        o.stderr.contains("when started afresh for round 2"),
        "{}",
        o.stderr
    );
    assert_no_process(&server);
}

/// Three fixed rounds of two targets, alternating, with steal injected into the measured
/// windows as `cycle` (see `noise::injected_steal`) and `flags`: its results and report.
fn injected(cycle: &str, flags: &[&str]) -> (gqlbench::results::RunResults, String) {
    let dir = tempfile::tempdir().unwrap();
    Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("hello")
        .targets("fx-good,fx-chunked")
        .trials(3)
        .warmup("200ms")
        .duration("400ms")
        .args(flags)
        .env("GQLBENCH_INJECT_STEAL", cycle)
        .out(dir.path())
        .go()
        .assert_exit(0);
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    (read_results(dir.path()), md)
}

#[test]
fn a_burst_of_steal_is_measured_again_and_not_counted() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    // The first window of every three reads 60% of a CPU stolen: a burst against the level
    // the quiet ones set (the first is judged against the start's, 0 without a probe).
    let (r, md) = injected("60,0,0", &[]);
    for t in &r.scenarios[0].targets {
        assert_eq!(counted_trials(t).len(), 3, "{}", t.name);
        let again: Vec<_> = t.trials.iter().filter(|x| x.excluded.is_some()).collect();
        assert!(!again.is_empty(), "{}: nothing measured again", t.name);
        for x in &again {
            let why = x.excluded.as_deref().unwrap();
            assert!(why.contains("a burst of noise"), "{why}");
            let n = x.noise.as_ref().expect("its sentinels");
            assert_eq!(n.injected_steal_pct, Some(60.0), "{n:?}");
        }
        let counted = &t.summary.as_ref().unwrap().rps.samples;
        assert_eq!(counted.len(), 3, "{}: {counted:?}", t.name);
    }
    // The report names the injection beside the noise it counted.
    assert!(md.contains("GQLBENCH_INJECT_STEAL"), "{md}");
}

#[test]
fn a_steady_level_of_steal_is_counted_and_named_and_off_judges_nothing() {
    let _turn = file_turn(module_path!());
    let _one = serial();
    // Every window 60%: the level itself, counted with the caveat that names it (measuring
    // again would only meet the same level).
    let (r, _) = injected("60", &[]);
    for t in &r.scenarios[0].targets {
        assert_eq!(counted_trials(t).len(), 3, "{}", t.name);
        let named = t.trials.iter().filter(|x| {
            x.saturation
                .iter()
                .any(|f| f.kind == gqlbench::results::FlagKind::Interference)
        });
        assert!(named.count() >= 2, "{}: {:?}", t.name, t.trials);
        assert!(t.summary.as_ref().unwrap().valid, "{}", t.name);
    }
    let (r, _) = injected("60,0,0", &["--steal-limit", "off"]);
    for t in &r.scenarios[0].targets {
        assert_eq!(t.trials.len(), 3, "{}", t.name);
        assert!(t.trials.iter().all(|x| x.excluded.is_none()
            && x.saturation
                .iter()
                .all(|f| f.kind != gqlbench::results::FlagKind::Interference)));
    }
}
