//! End-to-end: installs of targets. Two installs of one target at once run its install
//! command once (the second waits, then finds it current); a program the install declares
//! in `requires` that is missing fails it at once, naming the program and how to get it.
//! Builds into the shared cache (`fx-native`, a stand-in for the native gateways that
//! "builds" in milliseconds and counts its builds) are recorded there: any checkout finds
//! them, a changed input invalidates them, builds of older gqlbench versions are recognised,
//! and a run skips one that is not installed once, without failing.
use crate::common;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use gqlbench::measure::install_record::InstallRecord;
use gqlbench::results::TargetStatus;

fn add_target(root: &Path, name: &str, install: &str) {
    let dir = root.join("targets").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("target.toml"),
        format!(
            "name = \"{name}\"\nkind = \"server\"\nworkloads = [\"fixture\"]\n\n[install]\n{install}\n\n[start]\ncommand = [\"node\", \"../_fixture/server.mjs\", \"good\"]\nready_timeout = \"10s\"\n"
        ),
    )
    .unwrap();
}

#[test]
fn two_installs_of_one_target_at_once_run_its_command_once() {
    let root = fixture_copy();
    // The install appends to a counter and then holds until the test releases it, so the
    // second install certainly starts while the first one runs.
    add_target(
        root.path(),
        "fx-slow-install",
        r#"command = ["sh", "-c", "echo run >> runs.txt; i=0; while [ ! -f release ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; touch installed"]
check = "installed"
requires = [{ program = "sh", hint = "a POSIX shell" }]"#,
    );
    let tdir = root.path().join("targets/fx-slow-install");
    let logs = tempfile::tempdir().unwrap();
    let start = |log: &str| {
        let log = std::fs::File::create(logs.path().join(log)).unwrap();
        Gqlbench::new(["install", "fx-slow-install"])
            .root(root.path())
            .spawn_with(Stdio::null(), log.into())
    };
    let first = start("first.err");
    wait_for(
        "the first install to start its command",
        Duration::from_secs(30),
        || tdir.join("runs.txt").exists(),
    );
    let second = start("second.err");
    let waiting = format!(
        "waiting for another install of fx-slow-install (PID {}",
        first.id()
    );
    wait_for(
        "the second install to wait for the first",
        Duration::from_secs(30),
        || {
            std::fs::read_to_string(logs.path().join("second.err"))
                .unwrap_or_default()
                .contains(&waiting)
        },
    );
    std::fs::write(tdir.join("release"), "").unwrap();
    let (a, b) = (
        first.wait_with_output().unwrap(),
        second.wait_with_output().unwrap(),
    );
    let second_err = std::fs::read_to_string(logs.path().join("second.err")).unwrap();
    assert!(a.status.success() && b.status.success(), "{second_err}");
    assert_eq!(
        std::fs::read_to_string(tdir.join("runs.txt")).unwrap(),
        "run\n",
        "the install command ran once"
    );
    assert!(second_err.contains("already installed"), "{second_err}");
    // The waiting one never showed a command it did not run.
    assert!(!second_err.contains("(log: "), "{second_err}");
    let first_err = std::fs::read_to_string(logs.path().join("first.err")).unwrap();
    assert!(first_err.contains("(log: "), "{first_err}");

    // An install stamp that is a folder is named, with what to do.
    std::fs::remove_file(tdir.join("installed")).unwrap();
    std::fs::remove_file(tdir.join("release")).ok();
    std::fs::write(tdir.join("release"), "").unwrap();
    let stamp = tdir.join(".gqlbench-install-stamp");
    std::fs::remove_file(&stamp).ok();
    std::fs::create_dir(&stamp).unwrap();
    let o = Gqlbench::new(["install", "fx-slow-install"])
        .root(root.path())
        .go();
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    assert!(
        o.stderr.contains(".gqlbench-install-stamp is a folder") && o.stderr.contains("remove it"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_missing_prerequisite_fails_the_install_at_once_naming_it_and_its_hint() {
    let root = fixture_copy();
    add_target(
        root.path(),
        "fx-needs-tool",
        r#"command = ["sh", "-c", "touch ran"]
check = "ran"
requires = [
  { program = "sh", hint = "a POSIX shell" },
  { program = "gqlbench-no-such-tool", hint = "apt-get install gqlbench-no-such-tool" },
]"#,
    );
    let tdir = root.path().join("targets/fx-needs-tool");
    let o = Gqlbench::new(["install", "fx-needs-tool"])
        .root(root.path())
        .go();
    o.assert_exit(1);
    let e = &o.stderr;
    assert!(
        e.contains("`gqlbench-no-such-tool` (get it: apt-get install gqlbench-no-such-tool)"),
        "{e}"
    );
    assert!(
        !e.contains("`sh`"),
        "only the missing program is named: {e}"
    );
    assert!(!tdir.join("ran").exists(), "the install command never ran");

    // `list` shows what is missing.
    let o = Gqlbench::new(["list"]).root(root.path()).go();
    assert!(o.stdout.contains("fx-needs-tool: `gqlbench-no-such-tool`"));

    // A run's own install of it fails the same way, and the target is reported as such.
    let out = tempfile::tempdir().unwrap();
    hello(
        Gqlbench::run("e2e").root(root.path()),
        "fx-needs-tool",
        out.path(),
    )
    .go();
    let r = read_results(out.path());
    let t = target(&r, 0, "fx-needs-tool");
    assert_eq!(t.status, TargetStatus::InstallFailed);
    let p = t.problem.as_deref().unwrap();
    assert!(
        p.contains("`gqlbench-no-such-tool` (get it: apt-get install gqlbench-no-such-tool)"),
        "{p}"
    );
    assert!(!tdir.join("ran").exists());
}

#[test]
fn a_failed_install_shows_its_command_as_run_and_says_when_its_log_is_empty() {
    let cache = tempfile::tempdir().unwrap();
    let root = fixture_copy();
    // Fails without writing a line, as a build whose output a `$(...)` swallowed.
    add_target(
        root.path(),
        "fx-fails-quietly",
        r#"command = ["sh", "-c", "test -d {cache}/absent"]
check = "{cache}/fx-fails-quietly-1.0/bin/server"
auto = false"#,
    );
    let o = install(root.path(), cache.path(), &["fx-fails-quietly"]);
    o.assert_exit(1);
    let e = &o.stderr;
    let failed = e
        .lines()
        .find(|l| l.contains("FAILED"))
        .unwrap_or_else(|| panic!("{e}"));
    assert!(
        failed.contains(&format!("test -d {}/absent", cache.path().display())),
        "the command as it ran: {e}"
    );
    assert!(!e.contains("{cache}"), "{e}");
    assert!(
        e.contains("fx-fails-quietly/.gqlbench-install.log is empty: the command failed without writing anything"),
        "{e}"
    );
    // A command that wrote something: its last lines, not the note.
    add_target(
        root.path(),
        "fx-fails-loudly",
        r#"command = ["sh", "-c", "echo 403 Forbidden; exit 1"]
check = "built""#,
    );
    let o = install(root.path(), cache.path(), &["fx-fails-loudly"]);
    o.assert_exit(1);
    assert!(o.stderr.contains("    | 403 Forbidden"), "{}", o.stderr);
    assert!(!o.stderr.contains("is empty"), "{}", o.stderr);
}

/// A native-like target: its install writes a "binary" into `{cache}/fx-native-1.0/` from
/// its input `build.txt` and appends a line to `{cache}/runs.txt` per build; `run` never
/// builds it (auto = false). It starts as the good fixture server.
fn add_native(root: &Path) {
    add_target(
        root,
        "fx-native",
        r#"command = ["sh", "-c", "echo run >> {cache}/runs.txt; mkdir -p {cache}/fx-native-1.0/bin; cp build.txt {cache}/fx-native-1.0/bin/server"]
inputs = ["build.txt"]
check = "{cache}/fx-native-1.0/bin/server"
auto = false
takes = "~1 s"
requires = [{ program = "sh", hint = "a POSIX shell" }]"#,
    );
    std::fs::write(root.join("targets/fx-native/build.txt"), "version 1\n").unwrap();
}

/// gqlbench on the catalogue `root` with the build cache `cache`.
fn gq(root: &Path, cache: &Path) -> Gqlbench {
    Gqlbench::default().root(root).env("GQLBENCH_CACHE", cache)
}

/// `install ARGS` on the catalogue `root` with the build cache `cache`.
fn install(root: &Path, cache: &Path, args: &[&str]) -> Outcome {
    gq(root, cache).arg("install").args(args).go()
}

/// What `list` on the catalogue `root` with the build cache `cache` prints.
fn list(root: &Path, cache: &Path) -> String {
    gq(root, cache).arg("list").go().stdout
}

/// `run` (on the catalogue of `run`) of the scenario hello against `targets`.
fn hello(run: Gqlbench, targets: &str, out: &Path) -> Gqlbench {
    run.scenarios("hello").targets(targets).out(out)
}

/// How many times the fixture's install command ran against `cache`.
fn builds(cache: &Path) -> usize {
    std::fs::read_to_string(cache.join("runs.txt"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// The install record beside the fixture's build in `cache`.
fn record(cache: &Path) -> InstallRecord {
    let p = cache.join("fx-native-1.0/.gqlbench-install.json");
    serde_json::from_slice(&std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        .unwrap()
}

#[test]
fn a_cache_build_made_in_one_checkout_is_current_in_another() {
    let cache = tempfile::tempdir().unwrap();
    let first = fixture_copy();
    add_native(first.path());
    install(first.path(), cache.path(), &["fx-native"]).assert_exit(0);
    assert_eq!(builds(cache.path()), 1);
    // The record beside the build says what was built, how, from what and when.
    let rec = record(cache.path());
    assert_eq!(rec.target, "fx-native");
    assert!(
        rec.command[2].contains(&format!("{}/runs.txt", cache.path().display())),
        "the command as it ran, placeholders expanded: {rec:?}"
    );
    assert_eq!(rec.inputs, ["build.txt"]);
    assert_eq!(rec.key.len(), 16, "{rec:?}");
    assert!(rec.duration_s.is_some(), "{rec:?}");
    assert!(rec.built_at.ends_with('Z'));
    assert!(rec.gqlbench.starts_with("0."));

    // A second checkout of the same catalogue: installed, without running the command.
    let second = fixture_copy();
    add_native(second.path());
    let o = install(second.path(), cache.path(), &["fx-native"]);
    let e = &o.stderr;
    assert_eq!(o.code, Some(0), "{e}");
    assert!(
        e.contains(&format!(
            "fx-native: already built in the cache ({}/fx-native-1.0, built ",
            cache.path().display()
        )) && e.contains("--force rebuilds"),
        "{e}"
    );
    assert_eq!(builds(cache.path()), 1, "no second build: {e}");
    let listed = list(second.path(), cache.path());
    assert!(
        listed.contains(&format!(
            "fx-native: built in {}/fx-native-1.0",
            cache.path().display()
        )),
        "{listed}"
    );
    // ... and a run there measures it instead of skipping it.
    let out = tempfile::tempdir().unwrap();
    hello(
        gq(second.path(), cache.path()).args(["run", "e2e"]),
        "fx-native",
        out.path(),
    )
    .go()
    .assert_exit(0);
    let r = read_results(out.path());
    assert_eq!(target(&r, 0, "fx-native").status, TargetStatus::Ok);

    // --force rebuilds all the same.
    install(second.path(), cache.path(), &["fx-native", "--force"]).assert_exit(0);
    assert_eq!(builds(cache.path()), 2);
}

#[test]
fn a_changed_install_input_invalidates_the_cache_build() {
    let cache = tempfile::tempdir().unwrap();
    let root = fixture_copy();
    add_native(root.path());
    let install_native = || install(root.path(), cache.path(), &["fx-native"]);
    install_native().assert_exit(0);
    let key1 = record(cache.path()).key;
    install_native().assert_exit(0);
    assert_eq!(builds(cache.path()), 1, "unchanged inputs: no rebuild");

    // An `inputs` file changed: the record no longer matches, and the build runs again.
    std::fs::write(
        root.path().join("targets/fx-native/build.txt"),
        "version 2\n",
    )
    .unwrap();
    let listed = list(root.path(), cache.path());
    assert!(
        listed.contains("fx-native: not installed (no current build in"),
        "{listed}"
    );
    let o = install_native();
    o.assert_exit(0);
    assert!(
        o.stderr.contains("fx-native: rebuilding: the build there"),
        "{}",
        o.stderr
    );
    assert_eq!(builds(cache.path()), 2);
    assert_eq!(
        std::fs::read_to_string(cache.path().join("fx-native-1.0/bin/server")).unwrap(),
        "version 2\n"
    );
    let key2 = record(cache.path()).key;
    assert_ne!(key1, key2);

    // The command in target.toml changed: the same.
    let manifest = root.path().join("targets/fx-native/target.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(&manifest, text.replace("cp build.txt", "cp -f build.txt")).unwrap();
    install_native().assert_exit(0);
    assert_eq!(builds(cache.path()), 3);
    assert_ne!(record(cache.path()).key, key2);
}

/// `install --check` answers whether a build is current without building anything: what
/// .ci/run asks before running the native gateways' opt-in test.
#[test]
fn install_check_says_whether_a_build_is_current_and_builds_nothing() {
    let cache = tempfile::tempdir().unwrap();
    let root = fixture_copy();
    add_native(root.path());
    let check = || install(root.path(), cache.path(), &["--check", "fx-native"]);

    let o = check();
    o.assert_exit(1);
    assert!(
        o.stdout.contains(&format!(
            "fx-native: not installed (no build in {}/fx-native-1.0)",
            cache.path().display()
        )),
        "{}",
        o.stdout
    );
    assert_eq!(builds(cache.path()), 0, "--check built it");
    assert!(!cache.path().join("fx-native-1.0").exists());

    install(root.path(), cache.path(), &["fx-native"]).assert_exit(0);
    let o = check();
    o.assert_exit(0);
    assert!(
        o.stdout.contains("fx-native: already built in the cache ("),
        "{}",
        o.stdout
    );
    assert_eq!(builds(cache.path()), 1);

    // An input changed: no longer current, and still nothing built.
    std::fs::write(
        root.path().join("targets/fx-native/build.txt"),
        "version 2\n",
    )
    .unwrap();
    let o = check();
    o.assert_exit(1);
    assert!(o.stdout.contains("no current build in"), "{}", o.stdout);
    assert_eq!(builds(cache.path()), 1);

    // Checking and forcing a build at once is a contradiction.
    let o = install(
        root.path(),
        cache.path(),
        &["--check", "--force", "fx-native"],
    );
    o.assert_exit(2);
    assert!(o.stderr.contains("--force"), "{}", o.stderr);
}

/// The stamp a gqlbench before install records wrote into the target folder: FNV-1a over
/// the command as written, the Node version and each input's name and contents.
fn legacy_stamp(root: &Path) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h ^= *b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
    };
    let manifest: toml::Value = toml::from_str(
        &std::fs::read_to_string(root.join("targets/fx-native/target.toml")).unwrap(),
    )
    .unwrap();
    let command: Vec<&str> = manifest["install"]["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    feed(command.join("\0").as_bytes());
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    feed(node.as_bytes());
    feed(b"build.txt");
    feed(&std::fs::read(root.join("targets/fx-native/build.txt")).unwrap());
    format!("{h:016x}")
}

/// A build in the cache as an older gqlbench left it: the file, no record.
fn old_build(cache: &Path) {
    std::fs::create_dir_all(cache.join("fx-native-1.0/bin")).unwrap();
    std::fs::write(cache.join("fx-native-1.0/bin/server"), "version 1\n").unwrap();
}

#[test]
fn a_build_finished_under_the_old_scheme_is_recorded_not_rebuilt() {
    let cache = tempfile::tempdir().unwrap();
    let root = fixture_copy();
    add_native(root.path());
    old_build(cache.path());
    let stamp = root
        .path()
        .join("targets/fx-native/.gqlbench-install-stamp");
    std::fs::write(&stamp, legacy_stamp(root.path())).unwrap();

    let listed = list(root.path(), cache.path());
    assert!(
        listed.contains("fx-native: built in") && listed.contains("by an older gqlbench"),
        "{listed}"
    );
    assert!(
        !cache
            .path()
            .join("fx-native-1.0/.gqlbench-install.json")
            .exists(),
        "list only reads"
    );
    let o = install(root.path(), cache.path(), &["fx-native"]);
    let e = &o.stderr;
    assert_eq!(o.code, Some(0), "{e}");
    assert!(e.contains("fx-native: already built in the cache ("), "{e}");
    assert_eq!(builds(cache.path()), 0, "recognised, not rebuilt: {e}");
    let rec = record(cache.path());
    assert_eq!(rec.migrated_from, Some(stamp.clone()));
    assert!(
        rec.duration_s.is_none(),
        "unknown for an old build: {rec:?}"
    );

    // From now on every checkout finds it, stamp or not.
    let other = fixture_copy();
    add_native(other.path());
    install(other.path(), cache.path(), &["fx-native"]).assert_exit(0);
    assert_eq!(builds(cache.path()), 0);

    // A stamp of other inputs vouches for nothing: rebuilt.
    let fresh = tempfile::tempdir().unwrap();
    old_build(fresh.path());
    std::fs::write(&stamp, "0123456789abcdef").unwrap();
    install(root.path(), fresh.path(), &["fx-native"]).assert_exit(0);
    assert_eq!(builds(fresh.path()), 1);
}

#[test]
fn a_build_in_the_cache_without_a_record_is_rebuilt_only_with_force() {
    let cache = tempfile::tempdir().unwrap();
    let root = fixture_copy();
    add_native(root.path());
    old_build(cache.path());
    // `install` without names never builds natives, so it has nothing to refuse.
    let o = install(root.path(), cache.path(), &[]);
    o.assert_exit(0);
    assert!(
        o.stderr.contains("fx-native: skipped (native build, ~1 s;"),
        "{}",
        o.stderr
    );
    let o = install(root.path(), cache.path(), &["fx-native"]);
    let e = &o.stderr;
    assert_eq!(o.code, Some(2), "{e}");
    assert!(
        e.contains("fx-native-1.0/bin/server is already in the cache but has no install record")
            && e.contains("`gqlbench install fx-native --force` here rebuilds it (~1 s)"),
        "{e}"
    );
    // Not blamed on --force, which was not given.
    assert!(!e.contains("--force: "), "{e}");
    assert_eq!(builds(cache.path()), 0);
    install(root.path(), cache.path(), &["fx-native", "--force"]).assert_exit(0);
    assert_eq!(builds(cache.path()), 1);

    // A record that is cut short, or of a format this gqlbench does not read, is not "no
    // record": the build is made again, saying why.
    let rec = cache.path().join("fx-native-1.0/.gqlbench-install.json");
    let good = std::fs::read_to_string(&rec).unwrap();
    for (damaged, why) in [
        (
            good[..good.len() / 2].to_string(),
            "is damaged or cut short",
        ),
        (
            good.replace("\"format\": 1", "\"format\": 99"),
            "is of format 99",
        ),
    ] {
        std::fs::write(&rec, damaged).unwrap();
        let before = builds(cache.path());
        let o = install(root.path(), cache.path(), &["fx-native"]);
        o.assert_exit(0);
        assert!(
            o.stderr.contains("rebuilding: its install record") && o.stderr.contains(why),
            "{}",
            o.stderr
        );
        assert_eq!(builds(cache.path()), before + 1);
    }
}

#[test]
fn naming_a_native_target_that_is_not_installed_is_refused_before_anything_starts() {
    let cache = tempfile::tempdir().unwrap();
    let root = fixture_copy();
    add_native(root.path());
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().join("run");
    let o = hello(
        gq(root.path(), cache.path()).args(["run", "e2e"]),
        "fx-good,fx-native",
        &out_dir,
    )
    .go();
    let e = &o.stderr;
    assert_eq!(o.code, Some(2), "{e}");
    assert!(
        e.contains("--targets: fx-native: not installed (no build in")
            && e.contains("`gqlbench install fx-native` builds it (~1 s)"),
        "{e}"
    );
    assert!(!out_dir.exists(), "nothing started");
    assert_eq!(builds(cache.path()), 0, "run never builds a native target");
    // ab says so in its own flags: it has no --targets.
    let o = gq(root.path(), cache.path())
        .args([
            "ab",
            "e2e/hello",
            "--a-target",
            "fx-good",
            "--b-target",
            "fx-native",
        ])
        .arg("--out")
        .arg(&out_dir)
        .go();
    let e = &o.stderr;
    assert_eq!(o.code, Some(2), "{e}");
    assert!(
        e.contains("fx-native: not installed") && e.contains("leave it out of --b-target"),
        "{e}"
    );
    assert!(!e.contains("--targets") && !e.contains("`run`"), "{e}");
    assert!(!out_dir.exists(), "nothing started");
}

#[test]
fn a_native_target_not_installed_is_skipped_once_and_the_run_passes() {
    let cache = tempfile::tempdir().unwrap();
    let root = fixture_copy();
    add_native(root.path());
    for name in ["native-a", "native-b"] {
        std::fs::write(
            root.path().join(format!("scenarios/e2e/{name}.toml")),
            "description = \"the good fixture and a native build\"\nworkload = \"fixture\"\ntargets = [\"fx-good\", \"fx-native\"]\n\n[[operations]]\nname = \"fixture/hello\"\n\n[load]\nconnections = 4\ntimeout = \"2s\"\n",
        )
        .unwrap();
    }
    let out = tempfile::tempdir().unwrap();
    let o = gq(root.path(), cache.path())
        .args(["run", "e2e"])
        .scenarios("native-a,native-b")
        .out(out.path())
        .go();
    let e = &o.stderr;
    assert_eq!(o.code, Some(0), "{e}");
    assert_eq!(
        e.matches("skipping fx-native: not installed").count(),
        1,
        "said once at the start: {e}"
    );
    let r = read_results(out.path());
    for k in 0..2 {
        assert_eq!(
            target(&r, k, "fx-native").status,
            TargetStatus::NotInstalled
        );
        assert_eq!(target(&r, k, "fx-good").status, TargetStatus::Ok);
    }
    let v = r.verdict.as_ref().unwrap();
    assert!(v.failures.is_empty(), "{v:?}");
    assert_eq!(v.skipped.len(), 1, "{v:?}");
    assert!(
        v.skipped[0].starts_with("fx-native (in 2 scenarios): not installed"),
        "{v:?}"
    );
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert_eq!(
        md.matches("`gqlbench install fx-native`").count(),
        1,
        "{md}"
    );
    assert!(md.contains("- skipped fx-native: not installed"), "{md}");
    assert_eq!(
        md.matches("not run: fx-native (not installed").count(),
        2,
        "{md}"
    );
    assert!(!md.contains("| fx-native |"), "no row in any table: {md}");
    assert!(md.contains("| fx-good |"), "{md}");
}

/// A variant installs as its base (one install, in the base's folder) unless it gives its
/// own `[install]` (another dependency set, as Apollo Server on Express 4 beside its base's
/// Express 5): then it installs in its own folder, by its own command.
#[test]
fn a_variant_shares_its_base_install_unless_it_gives_its_own() {
    let root = fixture_copy();
    add_target(
        root.path(),
        "fx-base",
        r#"command = ["sh", "-c", "echo base >> runs.txt; touch installed"]
check = "installed""#,
    );
    let variant = |name: &str, install: &str| {
        let dir = root.path().join("targets").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("target.toml"),
            format!("name = \"{name}\"\nbase = \"fx-base\"\n{install}"),
        )
        .unwrap();
    };
    variant("fx-shared", "");
    variant(
        "fx-own",
        "\n[install]\ncommand = [\"sh\", \"-c\", \"echo own >> runs.txt; touch installed\"]\ncheck = \"installed\"\n",
    );
    let out = Gqlbench::new(["install", "fx-shared", "fx-own"])
        .root(root.path())
        .go();
    out.assert_exit(0);
    let runs = |t: &str| {
        std::fs::read_to_string(root.path().join("targets").join(t).join("runs.txt"))
            .unwrap_or_default()
    };
    assert_eq!(
        runs("fx-base"),
        "base\n",
        "the shared variant installed its base once"
    );
    assert_eq!(
        runs("fx-own"),
        "own\n",
        "the other ran its own install in its folder"
    );
    assert_eq!(
        runs("fx-shared"),
        "",
        "nothing installed in the shared variant's folder"
    );

    // Both start (the fixture server) and are measured as variants of fx-base.
    let cat = gqlbench::catalog::Catalog::load(root.path()).unwrap();
    assert_eq!(cat.target("fx-own").unwrap().install_owner(), "fx-own");
    assert_eq!(cat.target("fx-shared").unwrap().install_owner(), "fx-base");
    assert_eq!(
        cat.target("fx-own").unwrap().base.as_deref(),
        Some("fx-base")
    );
}

/// A runtime that does not install here (Bun's postinstall unable to fetch its binary, say)
/// fails that target's install only: it is reported with the install's own words, and the
/// rest of the scenario is measured.
#[test]
fn a_runtime_that_does_not_install_fails_its_target_only() {
    let root = fixture_copy();
    let dir = root.path().join("targets/fx-good-bun");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("target.toml"),
        r#"name = "fx-good-bun"
base = "fx-good"
runtime = "bun"

[install]
command = ["sh", "-c", "echo 'bun: postinstall could not download bun-linux-x64' >&2; exit 1"]
check = "node_modules/.bin/bun"
"#,
    )
    .unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = hello(
        Gqlbench::run("e2e").root(root.path()),
        "fx-good,fx-good-bun",
        out.path(),
    )
    .go();
    o.assert_exit(1);
    let r = read_results(out.path());
    let t = target(&r, 0, "fx-good-bun");
    assert_eq!(t.status, TargetStatus::InstallFailed);
    let why = format!(
        "{} {}",
        t.problem.as_deref().unwrap_or_default(),
        t.log_tail.as_deref().unwrap_or_default()
    );
    assert!(why.contains("could not download bun-linux-x64"), "{why}");
    let good = target(&r, 0, "fx-good");
    assert!(
        good.summary.as_ref().is_some_and(|s| s.valid),
        "the rest is measured"
    );
    assert_eq!(good.status, TargetStatus::Ok);
}

/// `install --except` installs (here: checks) every target but those named; an unknown name
/// is bad input naming it, and so is `--except` beside named targets.
#[test]
fn install_except_leaves_out_the_targets_it_names_and_refuses_an_unknown_one() {
    let install = |args: &[&str]| Gqlbench::new(["install"]).root(fixtures()).args(args).go();
    let all = install(&["--check"]);
    all.assert_exit(0);
    let out = install(&["--check", "--except", "fx-good,fx-slow"]);
    out.assert_exit(0);
    let named = |o: &Outcome, t: &str| o.stdout.lines().any(|l| l.starts_with(&format!("{t}: ")));
    for t in ["fx-good", "fx-slow"] {
        assert!(
            named(&all, t),
            "{t} is checked without --except: {}",
            all.stdout
        );
        assert!(!named(&out, t), "{t} is left out: {}", out.stdout);
    }
    assert!(
        named(&out, "fx-crash"),
        "the others are checked: {}",
        out.stdout
    );

    let out = install(&["--check", "--except", "fx-good,nope"]);
    out.assert_exit(2);
    assert!(
        out.stderr.contains("unknown target 'nope'"),
        "{}",
        out.stderr
    );
    let out = install(&["fx-crash", "--except", "fx-good"]);
    out.assert_exit(2);
    assert!(out.stderr.contains("--except"), "{}", out.stderr);
}
