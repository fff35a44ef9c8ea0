//! Helpers for the end-to-end tests: run the real binary, read what it wrote.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gqlbench"))
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    repo().join("tests/fixtures")
}

pub fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("running gqlbench");
    eprintln!(
        "--- stdout\n{}\n--- stderr\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

pub fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// (pid, command line) of every process whose command line contains `needle`, this test
/// process excepted.
fn scan(needle: &str) -> Vec<(i32, String)> {
    let me = std::process::id() as i32;
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| *p != me)
        .filter_map(|p| {
            let c = std::fs::read(format!("/proc/{p}/cmdline")).ok()?;
            Some((p, String::from_utf8_lossy(&c).replace('\0', " ")))
        })
        .filter(|(_, c)| c.contains(needle))
        .collect()
}

/// Command lines of processes containing `needle` (to prove no child outlives a run).
pub fn processes_with(needle: &str) -> Vec<String> {
    scan(needle).into_iter().map(|(_, c)| c).collect()
}

pub fn pids_with(needle: &str) -> Vec<i32> {
    scan(needle).into_iter().map(|(p, _)| p).collect()
}

pub fn target<'a>(
    results: &'a serde_json::Value,
    scenario: usize,
    name: &str,
) -> &'a serde_json::Value {
    results["scenarios"][scenario]["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("target {name} missing"))
}

/// A copy of the fixture catalogue that a test may edit.
pub fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures(), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}
