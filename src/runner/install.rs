//! Installing targets, with a cache: the install command runs only when the hash of its
//! inputs (lockfiles, the command itself, the runtime version) changed or its check file is
//! missing. Output goes to a log whose tail is shown on failure. The programs the install
//! declares in `requires` are looked up on PATH first, and a lock file in the target folder
//! keeps two gqlbench processes from installing one target at once: the second waits, then
//! finds the install current.
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use std::collections::BTreeMap;

use super::lock::{self, Holder, Lock};
use crate::catalog::target::Requirement;
use crate::catalog::{vars, TargetDef};

const STAMP: &str = ".gqlbench-install-stamp";
const LOG: &str = ".gqlbench-install.log";
/// In the target folder: the folder `npm ci` writes into is what must not be shared.
const LOCK: &str = ".gqlbench-install.lock";

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    NothingToInstall,
    Cached,
    Installed { seconds: f64 },
}

/// FNV-1a: a stable hash for cache keys (std's hasher may change between Rust versions).
fn fnv1a(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= *b as u64;
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

pub fn cache_key(t: &TargetDef, runtime_version: &str) -> Result<String> {
    let Some(inst) = &t.install else {
        return Ok(String::new());
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    fnv1a(&mut h, inst.command.join("\0").as_bytes());
    fnv1a(&mut h, runtime_version.as_bytes());
    for input in &inst.inputs {
        let p = t.dir.join(input);
        let bytes = std::fs::read(&p).with_context(|| {
            format!(
                "{}: install input '{input}' is missing ({})",
                t.manifest.display(),
                p.display()
            )
        })?;
        fnv1a(&mut h, input.as_bytes());
        fnv1a(&mut h, &bytes);
    }
    Ok(format!("{h:016x}"))
}

/// Placeholders an install command may use.
pub fn install_vars(t: &TargetDef) -> BTreeMap<&'static str, String> {
    let mut v = BTreeMap::new();
    v.insert("cache", vars::cache_dir().display().to_string());
    v.insert("target_dir", t.dir.display().to_string());
    if let Ok(exe) = std::env::current_exe() {
        v.insert("gqlbench", exe.display().to_string());
    }
    v
}

fn expanded(t: &TargetDef, s: &str) -> Result<String> {
    vars::expand(s, &install_vars(t)).map_err(|e| anyhow::anyhow!("{}: {e}", t.manifest.display()))
}

/// The install command with its placeholders replaced, as a user would type it.
pub fn command_line(t: &TargetDef) -> String {
    t.install
        .as_ref()
        .map(|i| {
            i.command
                .iter()
                .map(|a| expanded(t, a).unwrap_or_else(|_| a.clone()))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

pub fn is_current(t: &TargetDef, key: &str) -> bool {
    let Some(inst) = &t.install else {
        return true;
    };
    let stamp_ok = std::fs::read_to_string(t.dir.join(STAMP))
        .map(|s| s.trim() == key)
        .unwrap_or(false);
    let check_ok = inst
        .check
        .as_ref()
        .map(|c| {
            expanded(t, c)
                .map(|c| t.dir.join(c).exists())
                .unwrap_or(false)
        })
        .unwrap_or(true);
    stamp_ok && check_ok
}

pub fn log_path(t: &TargetDef) -> PathBuf {
    t.dir.join(LOG)
}

/// Install `t` unless the cache says it is current.
pub fn install(
    t: &TargetDef,
    runtime_version: &str,
    force: bool,
    on_progress: &dyn Fn(std::time::Duration, &str),
    cancelled: &dyn Fn() -> bool,
) -> Result<Outcome> {
    let Some(inst) = &t.install else {
        return Ok(Outcome::NothingToInstall);
    };
    let key = cache_key(t, runtime_version)?;
    if !force && is_current(t, &key) {
        return Ok(Outcome::Cached);
    }
    check_requirements(t)?;
    let (_lock, waited) = lock_install(t, on_progress, cancelled)?;
    // Another process installed it while we waited: that install is as fresh as ours would
    // be, so even --force does not repeat it.
    if (!force || waited) && is_current(t, &key) {
        return Ok(Outcome::Cached);
    }
    let _ = std::fs::remove_file(t.dir.join(STAMP));
    let log_file = log_path(t);
    let log = std::fs::File::create(&log_file)
        .with_context(|| format!("creating {}", log_file.display()))?;
    let start = Instant::now();
    let argv: Vec<String> = inst
        .command
        .iter()
        .map(|a| expanded(t, a))
        .collect::<Result<_>>()?;
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(&t.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log.try_clone()?))
        .stderr(Stdio::from(log))
        .spawn()
        .with_context(|| {
            format!(
                "running the install command `{}` of target '{}' (is `{}` installed?)",
                inst.command.join(" "),
                t.name,
                inst.command[0]
            )
        })?;
    // Long native builds report what they are doing: the last line of their log.
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if cancelled() {
            let _ = child.kill();
            let _ = child.wait();
            bail!("install of '{}' interrupted", t.name);
        }
        on_progress(
            start.elapsed(),
            super::process::log_tail(&log_file, 1).trim(),
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
    };
    if !status.success() {
        bail!(
            "install of '{}' failed ({status}): `{}` in {}\n{}",
            t.name,
            inst.command.join(" "),
            t.dir.display(),
            indent(&super::process::log_tail(&log_file, 15))
        );
    }
    if let Some(c) = &inst.check {
        let c = expanded(t, c)?;
        if !t.dir.join(&c).exists() {
            bail!(
                "install of '{}' ran but its check file {} is missing",
                t.name,
                Path::new(&c).display()
            );
        }
    }
    std::fs::write(t.dir.join(STAMP), &key)?;
    Ok(Outcome::Installed {
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Take the install lock of `t`, waiting (with a message on stderr) while another process
/// installs it; true when we had to wait.
fn lock_install(
    t: &TargetDef,
    on_progress: &dyn Fn(std::time::Duration, &str),
    cancelled: &dyn Fn() -> bool,
) -> Result<(Lock, bool)> {
    let path = t.dir.join(LOCK);
    let start = Instant::now();
    let mut waiting: Option<String> = None;
    loop {
        if let Some(mut l) = Lock::try_take(&path)? {
            l.record(&Holder::me(format!("install of {}", t.name)));
            return Ok((l, waiting.is_some()));
        }
        let msg = waiting.get_or_insert_with(|| {
            let who = lock::holder(&path)
                .map(|h| format!("PID {}, `{}`", h.pid, h.command_line()))
                .unwrap_or_else(|| "PID not yet recorded".into());
            let msg = format!("waiting for another install of {} ({who})", t.name);
            eprintln!("{}: {msg}", t.name);
            msg
        });
        if cancelled() {
            bail!("interrupted while {msg}");
        }
        on_progress(start.elapsed(), msg);
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Where `program` is: a path as given when it holds a '/', else the first executable file
/// of that name on PATH.
pub fn find_program(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p)
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return executable(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|d| !d.as_os_str().is_empty())
        .map(|d| d.join(program))
        .find(|p| executable(p))
}

/// The programs `t`'s install needs that this machine lacks.
pub fn missing_requirements(t: &TargetDef) -> Vec<&Requirement> {
    t.install
        .iter()
        .flat_map(|i| i.requires.iter())
        .filter(|r| find_program(&r.program).is_none())
        .collect()
}

/// Refuse to start an install whose programs are missing, naming each and how to get it.
pub fn check_requirements(t: &TargetDef) -> Result<()> {
    let missing = missing_requirements(t);
    if missing.is_empty() {
        return Ok(());
    }
    bail!(
        "the install of '{}' needs {} not found on PATH: {} (declared in {})",
        t.name,
        if missing.len() == 1 {
            "a program"
        } else {
            "programs"
        },
        missing
            .iter()
            .map(|r| format!("`{}` (get it: {})", r.program, r.hint))
            .collect::<Vec<_>>()
            .join(", "),
        t.manifest.display()
    )
}

pub fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
