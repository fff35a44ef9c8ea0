//! Reading what a run wrote, through the library's own result model.
use std::path::Path;

use gqlbench::results::{RunResults, TargetResult, TargetStatus};

/// The run saved in `dir` (its results.json), read as `report` and `compare` read it.
pub fn read_results(dir: &Path) -> RunResults {
    RunResults::load(dir).unwrap_or_else(|e| panic!("{e:#}"))
}

/// The row of target `name` in the `scenario`-th scenario.
pub fn target<'a>(results: &'a RunResults, scenario: usize, name: &str) -> &'a TargetResult {
    results.scenarios[scenario]
        .targets
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("target {name} missing"))
}

/// The row of target `name` in the first scenario, to edit.
pub fn target_mut<'a>(v: &'a mut RunResults, name: &str) -> &'a mut TargetResult {
    v.scenarios[0]
        .targets
        .iter_mut()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("target {name} missing"))
}

/// The same run with one target's req/s samples replaced (what another build would have
/// measured), the row marked valid.
pub fn with_samples(v: &RunResults, target: &str, samples: &[f64]) -> RunResults {
    let mut v = v.clone();
    // Without canary timings the change is judged on these samples as they are (with
    // them, compare would scale the trials' own req/s by the machine's speed).
    for s in &mut v.scenarios {
        s.rounds = None;
    }
    let t = target_mut(&mut v, target);
    t.status = TargetStatus::Ok;
    let s = t.summary.as_mut().expect("a measured row has a summary");
    s.valid = true;
    s.saturated = false;
    s.trials = samples.len() as u32;
    s.valid_trials = samples.len() as u32;
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    s.rps.median = sorted[sorted.len() / 2];
    s.rps.samples = samples.to_vec();
    v
}

/// A real short run of the fixture catalogue (e2e/hello, three 300 ms trials of `targets`),
/// whose figures tests then edit: verdicts that do not depend on how noisy the machine is.
pub fn fixture_run(targets: &str) -> RunResults {
    let dir = tempfile::tempdir().unwrap();
    let out = super::Gqlbench::run("e2e")
        .root(super::fixtures())
        .scenarios("hello")
        .targets(targets)
        .trials(3)
        .duration("300ms")
        // Its figures are edited: three trials, none measured again for noise.
        .args(["--steal-limit", "off"])
        .out(dir.path().join("a"))
        .go();
    assert!(out.success());
    read_results(&dir.path().join("a"))
}

/// `v` saved as a run folder `dir/name` (results.json), for `report` and `compare` to read.
pub fn save_run(dir: &Path, name: &str, v: &RunResults) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::create_dir_all(&p).unwrap();
    v.save(&p).unwrap();
    p
}

/// Scenario `si`'s adjacent pairs as (faster, slower, state); panics without a ranking.
pub fn pair_states(r: &RunResults, si: usize) -> Vec<(&str, &str, &str)> {
    r.scenarios[si]
        .ranking
        .as_ref()
        .expect("a ranking")
        .pairs
        .iter()
        .map(|p| (p.faster.as_str(), p.slower.as_str(), p.state.as_str()))
        .collect()
}

/// The gateways a graph test runs: two query planners of their own (JavaScript, and Hive's).
pub const TWO_GATEWAYS: [&str; 2] = ["hive-gateway", "apollo-gateway"];

/// A graph of one's own made by `init graph` in `dir`/g from `subgraphs` (name, SDL after a
/// `link` header) and `ops` (file stem, document), asserted successful with none left out.
pub fn init_own_graph(dir: &Path, link: &str, subgraphs: &[(&str, &str)], ops: &[(&str, &str)]) {
    let (sdl, opdir) = (dir.join("sdl"), dir.join("ops"));
    std::fs::create_dir_all(&sdl).unwrap();
    std::fs::create_dir_all(&opdir).unwrap();
    for (name, text) in subgraphs {
        let text = format!("{link}\n{text}\n");
        std::fs::write(sdl.join(format!("{name}.graphql")), text).unwrap();
    }
    for (name, doc) in ops {
        std::fs::write(opdir.join(format!("{name}.graphql")), doc).unwrap();
    }
    crate::common::federation_tools();
    let init = crate::common::Gqlbench::new(["init", "graph"])
        .root(crate::common::repo())
        .arg(dir.join("g"))
        .arg("--from")
        .arg(&sdl)
        .arg("--operations")
        .arg(&opdir)
        .go();
    assert!(init.success(), "{}", init.stderr);
    assert!(!init.stderr.contains("LEFT OUT"), "{}", init.stderr);
}

/// `run federation --graph GRAPH` through [`TWO_GATEWAYS`], one short trial (such tests
/// check answers, not speed), into `out`; asserted successful.
pub fn run_graph_on_two_gateways(graph: &Path, out: &Path) -> RunResults {
    let run = crate::common::Gqlbench::run("federation")
        .root(crate::common::repo())
        .arg("--graph")
        .arg(graph)
        .scenarios("constant")
        .targets(&TWO_GATEWAYS.join(","))
        .warmup("0s")
        .duration("1s")
        .connections(2)
        .trials(1)
        .json()
        .out(out)
        .go();
    assert!(run.success(), "{}", run.stderr);
    run.results()
}

/// Each of [`TWO_GATEWAYS`] valid, with `checks` operations checked and all right.
pub fn assert_two_gateways_checked(r: &RunResults, checks: usize) {
    for name in TWO_GATEWAYS {
        let t = target(r, 0, name);
        assert_eq!(t.status, TargetStatus::Ok, "{name}: {:?}", t.problem);
        assert_eq!(t.checks.len(), checks, "{name}: {:?}", t.checks);
        assert!(t.checks.iter().all(|c| c.ok), "{name}: {:?}", t.checks);
        // What bound the row is read from the trial's own shares: the gateway's cores are
        // recorded whenever the targets were pinned.
        let pinned = r.isolation.target_cpus.len();
        let up = t.trials[0].upstream.as_ref().expect("upstream figures");
        assert_eq!(up.gateway_cores, (pinned > 0).then_some(pinned), "{name}");
        let bound = gqlbench::summary::bound::Bound::of(t).expect("a bound");
        assert_eq!(bound.gateway.is_some(), pinned > 0, "{name}: {bound:?}");
    }
}
