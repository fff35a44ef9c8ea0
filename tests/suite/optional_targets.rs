//! An optional target (`optional = true` in its target.toml: a server a team may weigh
//! beside the default ones, issue 40) is left out of a scenario that picks its targets by
//! workload, so the default run's scope and budget do not change, and measured when named
//! with `--targets`.
use crate::common;

use std::path::Path;

use common::*;
use gqlbench::results::NOT_SUPPORTED;

fn names(out: &Path) -> Vec<String> {
    let r = read_results(out);
    let s = &r.scenarios[0];
    assert!(s.by_kind.get(&NOT_SUPPORTED).is_none(), "{:?}", s.by_kind);
    s.targets.iter().map(|t| t.name.clone()).collect()
}

#[test]
fn an_optional_target_runs_only_when_named() {
    let dir = fixture_copy();
    workload_target(dir.path(), "fx-batch", "good", "\"fixture-batching\"", "");
    workload_target(dir.path(), "fx-extra", "good", "\"fixture-batching\"", "");
    let manifest = dir.path().join("targets/fx-extra/target.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    let optional = text.replacen(
        "kind = \"server\"\n",
        "kind = \"server\"\noptional = true\n",
        1,
    );
    assert_ne!(optional, text);
    std::fs::write(&manifest, optional).unwrap();

    let out = dir.path().join("default");
    let o = one_short_trial(dir.path(), "batching", &out);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    assert_eq!(names(&out), ["fx-batch"]);

    let out = dir.path().join("named");
    let o = one_short_trial_of(dir.path(), "batching", "fx-batch,fx-extra", &out);
    assert_eq!(o.code, Some(0), "{}\n{}", o.stdout, o.stderr);
    let mut got = names(&out);
    got.sort();
    assert_eq!(got, ["fx-batch", "fx-extra"]);
}
