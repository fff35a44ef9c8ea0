//! What a test needs from the machine that it cannot bring itself (the PostgreSQL server,
//! Python, writable cgroups, ...): `require` is the one way a test skips for it. Under
//! `GQLBENCH_CI=1` (set by `.ci/run`) a missing prerequisite fails the test, so CI never
//! counts a test that did not run as passed; elsewhere the test is skipped with a line on
//! stderr (shown by a plain `cargo test`) that says what is missing and how to get it.

/// Whether this is CI (`GQLBENCH_CI=1`), where nothing may be skipped.
pub fn in_ci() -> bool {
    std::env::var("GQLBENCH_CI").as_deref() == Ok("1")
}

/// True when the prerequisite is `present`. When it is not: panics under GQLBENCH_CI=1,
/// else prints `SKIPPED <test>: <missing>` and returns false (the test then returns).
/// `missing` says what is missing and how to get it.
#[track_caller]
pub fn require(present: bool, missing: &str) -> bool {
    require_in(in_ci(), present, missing)
}

/// `require` with CI given (the environment is process-wide, so its own test passes it).
#[track_caller]
pub fn require_in(ci: bool, present: bool, missing: &str) -> bool {
    if present {
        return true;
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("this test")
        .to_string();
    assert!(
        !ci,
        "{test}: {missing}; GQLBENCH_CI=1 (.ci/run) requires it instead of skipping the test"
    );
    // Straight to the process's stderr: libtest captures only the print macros, and a
    // skip must show in a plain `cargo test` run, not only with --nocapture.
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {missing}");
    false
}
