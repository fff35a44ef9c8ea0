//! Provenance: the machine, the tool and the runtimes a run used, so a report names them.
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde::{Deserialize, Serialize};

use crate::sys::runtime::Runtime;

/// The program that measured a run (results.json `tool`).
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
    /// `git describe`-like commit of the gqlbench checkout, "+dirty" when modified.
    pub git_commit: Option<String>,
}

/// The machine a run measured on (results.json `machine`).
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct MachineInfo {
    pub cpu_model: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub kernel: String,
    pub os: String,
    pub hostname: String,
}

pub fn machine() -> MachineInfo {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu_model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let memory_bytes = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kib| kib * 1024)
        .unwrap_or(0);
    let read = |p: &str| {
        std::fs::read_to_string(p)
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    };
    let os = std::fs::read_to_string("/etc/os-release")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("PRETTY_NAME="))
        .map(|v| v.trim_matches('"').to_string())
        .unwrap_or_else(|| std::env::consts::OS.into());
    MachineInfo {
        cpu_model,
        cores: super::cpus::num_cpus(),
        memory_bytes,
        kernel: read("/proc/sys/kernel/osrelease"),
        os,
        hostname: read("/proc/sys/kernel/hostname"),
    }
}

pub fn tool(root: &Path) -> ToolInfo {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).map(|c| {
        let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
            .map(|s| !s.is_empty())
            .unwrap_or(false);
        if dirty {
            format!("{c}+dirty")
        } else {
            c
        }
    });
    ToolInfo {
        name: "gqlbench".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        git_commit: commit,
    }
}

/// `node --version`, asked once per process (every target's row names it).
pub fn node_version() -> Option<String> {
    static V: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    V.get_or_init(ask_node_version).clone()
}

fn ask_node_version() -> Option<String> {
    Command::new("node")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// "3.11.7" from `python --version` of the interpreter at `python` (a target's venv).
pub fn python_version(python: &Path) -> Option<String> {
    let out = Command::new(python).arg("--version").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let v = text.trim().strip_prefix("Python ")?;
    out.status.success().then(|| v.to_string())
}

/// The version of a compiled target's toolchain (`Runtime::toolchain`), run in the target's
/// folder: "1.26.8" for Go, "1.95.0" for Rust (rustc), "17.0.15" for Java. None when the
/// runtime has no toolchain to ask, or the program is missing or says something else.
pub fn toolchain_version(runtime: Runtime, dir: &Path) -> Option<String> {
    let (program, args) = runtime.toolchain()?;
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    // `java -version` writes to stderr.
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    runtime.parse_toolchain_version(&text)
}

pub fn runtimes() -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    if let Some(v) = node_version() {
        m.insert("node".into(), v);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runtime_without_a_toolchain_has_no_toolchain_version() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(toolchain_version(Runtime::Node, dir.path()), None);
        assert_eq!(toolchain_version(Runtime::Python, dir.path()), None);
    }

    #[test]
    fn a_venv_interpreter_names_its_version_and_a_missing_one_none() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("python");
        std::fs::write(&fake, "#!/bin/sh\necho 'Python 3.99.1'\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(python_version(&fake).as_deref(), Some("3.99.1"));
        assert_eq!(python_version(&dir.path().join("absent")), None);
        // Not an interpreter's answer: no version.
        std::fs::write(&fake, "#!/bin/sh\necho 'something else'\n").unwrap();
        assert_eq!(python_version(&fake), None);
    }
}
