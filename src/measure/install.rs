//! Installing targets, with a cache: the install command runs only when the hash of its
//! inputs (the command itself, its `inputs` files, for npm installs the Node version)
//! changed or its check file is missing. Where that hash is kept depends on where the
//! install writes: npm installs fill the checkout's `node_modules` and keep a stamp in their
//! target folder; cache builds (a `check` under `{cache}/<folder>/`: the native gateways)
//! keep an install record beside the build in the shared cache (install_record.rs), so every
//! checkout finds them. Output goes to a log whose tail is shown on failure. The programs the
//! install declares in `requires` are looked up on PATH first, and a lock (in the target
//! folder, or the build's folder in the cache) keeps two gqlbench processes from installing
//! one target at once: the second waits, then finds the install current.
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context, Result};

use std::collections::BTreeMap;

use super::install_record::{self as record, InstallRecord};
use crate::catalog::{vars, TargetDef};
use crate::error::InstallError;
use crate::sys::lock::{self, Holder, Lock};

/// npm installs: the key of the current install, in the target folder. Cache builds had one
/// there too before install records (see `State::Legacy`).
const STAMP: &str = ".gqlbench-install-stamp";
const LOG: &str = ".gqlbench-install.log";
/// In the target folder for npm installs (the folder `npm ci` writes into is what must not
/// be shared); in the build's folder for cache builds (which every checkout shares).
const LOCK: &str = ".gqlbench-install.lock";

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    NothingToInstall,
    /// Current already; the record of a cache build.
    Cached(Option<Box<InstallRecord>>),
    Installed {
        seconds: f64,
    },
}

/// Whether a target's install is current, and if not, why.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// No [install] section.
    Nothing,
    /// Installed from today's inputs; the record for a cache build.
    Current(Option<Box<InstallRecord>>),
    /// A cache build finished by a gqlbench before install records: the build is there and
    /// the checkout's stamp matches today's inputs. `settle` records it in the cache.
    Legacy {
        stamp: PathBuf,
    },
    NotCurrent(Missing),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Missing {
    /// Nothing installed (or its check file is gone).
    Never,
    /// Installed from other inputs than today's; why, for messages.
    Stale(String),
    /// A cache build whose file is there without a record: built by an older gqlbench from
    /// another checkout (whose stamp could vouch for it), or put there by hand.
    Unrecorded(PathBuf),
}

impl State {
    pub fn is_current(&self) -> bool {
        matches!(self, State::Nothing | State::Current(_))
    }
}

/// FNV-1a: a stable hash for cache keys (std's hasher may change between Rust versions).
fn fnv1a(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= *b as u64;
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

/// The hash of an install's command (as written, placeholders unexpanded, so the same in
/// every checkout and cache location), `runtime` and the contents of its `inputs`.
fn hash_inputs(t: &TargetDef, runtime: &str) -> Result<String> {
    let Some(inst) = &t.install else {
        return Ok(String::new());
    };
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    fnv1a(&mut h, inst.command.join("\0").as_bytes());
    fnv1a(&mut h, runtime.as_bytes());
    for input in &inst.inputs {
        let p = t.install_dir().join(input);
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

/// The key an install is current for. npm installs include the Node version (native
/// addons are built for it); cache builds do not: Node plays no part in them, and a Node
/// update must not cost a 20-minute rebuild of every native gateway.
pub fn cache_key(t: &TargetDef, runtime_version: &str) -> Result<String> {
    if is_cache_build(t) {
        hash_inputs(t, "")
    } else {
        hash_inputs(t, runtime_version)
    }
}

/// The key gqlbench wrote into the stamp of every install before install records (the Node
/// version included): what a build finished under the old scheme is recognised by.
fn legacy_key(t: &TargetDef, runtime_version: &str) -> Result<String> {
    hash_inputs(t, runtime_version)
}

/// Whether `t`'s install writes into the shared cache: its `check` is `{cache}/<folder>/...`.
pub fn is_cache_build(t: &TargetDef) -> bool {
    record::build_dir(t).is_some()
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
    vars::expand(s, &install_vars(t)).with_context(|| t.manifest.display().to_string())
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

/// The install's check file, expanded (relative ones are in the target folder).
fn check_file(t: &TargetDef) -> Option<PathBuf> {
    let c = t.install.as_ref()?.check.as_ref()?;
    expanded(t, c).ok().map(|c| t.install_dir().join(c))
}

fn read_stamp(t: &TargetDef) -> Option<String> {
    std::fs::read_to_string(t.install_dir().join(STAMP))
        .ok()
        .map(|s| s.trim().to_string())
}

/// Whether `t` is installed from today's inputs, reading only (see `settle`).
pub fn state(t: &TargetDef, runtime_version: &str) -> Result<State> {
    if t.install.is_none() {
        return Ok(State::Nothing);
    }
    let key = cache_key(t, runtime_version)?;
    let check = check_file(t);
    let check_ok = check.as_ref().map(|c| c.exists()).unwrap_or(true);
    let Some(dir) = record::build_dir(t) else {
        return Ok(match read_stamp(t) {
            Some(s) if s == key && check_ok => {
                match super::install_tree::missing_package(t.install_dir()) {
                    // A folder npm put there and something removed since: installed again.
                    Some(p) => State::NotCurrent(Missing::Stale(format!(
                        "{p} is missing from node_modules (removed since the install?)"
                    ))),
                    None => State::Current(None),
                }
            }
            Some(s) if s != key && check_ok => State::NotCurrent(Missing::Stale(
                "installed from other inputs (its lockfile, command or the Node version changed)"
                    .into(),
            )),
            _ => State::NotCurrent(Missing::Never),
        });
    };
    let check = check.unwrap_or_else(|| dir.clone());
    // A record there that cannot be read is no vouching: rebuilt, saying why.
    let rec = match record::read_checked(&dir) {
        Ok(rec) => rec,
        Err(why) => {
            return Ok(State::NotCurrent(Missing::Stale(format!(
                "its install record {why}"
            ))))
        }
    };
    if let Some(rec) = rec {
        return Ok(if rec.target != t.install_owner() {
            State::NotCurrent(Missing::Stale(format!(
                "the build there is recorded as target '{}'",
                rec.target
            )))
        } else if rec.key != key {
            State::NotCurrent(Missing::Stale(format!(
                "the build there ({}) was made from other install inputs: the install command in target.toml or an `inputs` file changed since",
                rec.describe()
            )))
        } else if !check_ok {
            State::NotCurrent(Missing::Stale(format!(
                "its record is there but {} is missing",
                record::tilde(&check)
            )))
        } else {
            State::Current(Some(Box::new(rec)))
        });
    }
    if !check_ok {
        return Ok(State::NotCurrent(Missing::Never));
    }
    Ok(match read_stamp(t) {
        Some(s) if s == legacy_key(t, runtime_version)? => State::Legacy {
            stamp: t.install_dir().join(STAMP),
        },
        Some(_) => State::NotCurrent(Missing::Stale(format!(
            "{} was built by an older gqlbench from other install inputs (its stamp in {} does not match)",
            record::tilde(&check),
            t.install_dir().display()
        ))),
        None => State::NotCurrent(Missing::Unrecorded(check)),
    })
}

/// `state`, with a build finished under the old scheme recorded in the cache (so every
/// checkout finds it from now on) instead of being reported as not installed.
pub fn settle(t: &TargetDef, runtime_version: &str) -> Result<State> {
    let st = state(t, runtime_version)?;
    let State::Legacy { stamp } = &st else {
        return Ok(st);
    };
    let (Some(dir), Some(check)) = (record::build_dir(t), check_file(t)) else {
        return Ok(st);
    };
    let key = cache_key(t, runtime_version)?;
    let rec = record::migrate(t, &dir, check, argv(t)?, &key, stamp)?;
    Ok(State::Current(Some(Box::new(rec))))
}

pub use super::install_required::{not_installed_message, require_installed};

pub fn log_path(t: &TargetDef) -> PathBuf {
    t.install_dir().join(LOG)
}

fn argv(t: &TargetDef) -> Result<Vec<String>> {
    t.install
        .iter()
        .flat_map(|i| i.command.iter())
        .map(|a| expanded(t, a))
        .collect()
}

/// Install `t` unless the cache says it is current.
pub fn install(
    t: &TargetDef,
    runtime_version: &str,
    force: bool,
    on_start: &dyn Fn(),
    on_progress: &dyn Fn(std::time::Duration, &str),
    cancelled: &dyn Fn() -> bool,
) -> Result<Outcome> {
    let Some(inst) = &t.install else {
        return Ok(Outcome::NothingToInstall);
    };
    let key = cache_key(t, runtime_version)?;
    if !force {
        if let State::Current(rec) = settle(t, runtime_version)? {
            return Ok(Outcome::Cached(rec));
        }
    }
    check_requirements(t)?;
    let build_dir = record::build_dir(t);
    let lock_path = match &build_dir {
        Some(d) => {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
            d.join(LOCK)
        }
        None => t.install_dir().join(LOCK),
    };
    let (_lock, waited) = lock_install(t, &lock_path, on_progress, cancelled)?;
    // Another process installed it while we waited: that install is as fresh as ours would
    // be, so even --force does not repeat it.
    if !force || waited {
        if let State::Current(rec) = settle(t, runtime_version)? {
            return Ok(Outcome::Cached(rec));
        }
    }
    match &build_dir {
        Some(d) => record::remove(d)?,
        None => {
            let stamp = t.install_dir().join(STAMP);
            if stamp.is_dir() {
                bail!(
                    "{} is a folder where the install stamp (a file) goes; remove it and install again",
                    stamp.display()
                );
            }
            let _ = std::fs::remove_file(&stamp);
        }
    }
    // Asked before the build: what the build ran with.
    let toolchain = build_dir
        .as_ref()
        .map(|_| record::toolchain(t))
        .unwrap_or_default();
    let log_file = log_path(t);
    let log = std::fs::File::create(&log_file)
        .with_context(|| format!("creating {}", log_file.display()))?;
    let start = Instant::now();
    let argv = argv(t)?;
    // Said once the lock is ours: a run that waited for another's install said that first.
    on_start();
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(t.install_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::from(log.try_clone()?))
        .stderr(Stdio::from(log))
        .spawn()
        .map_err(|source| InstallError::CannotStart {
            target: t.name.clone(),
            command: argv.join(" "),
            program: argv[0].clone(),
            source,
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
            crate::sys::process::log_tail(&log_file, 1).trim(),
        );
        std::thread::sleep(std::time::Duration::from_millis(250));
    };
    if !status.success() {
        return Err(InstallError::Failed {
            target: t.name.clone(),
            status: status.to_string(),
            command: argv.join(" "),
            dir: t.install_dir().to_path_buf(),
            log: crate::sys::process::failure_log(&log_file, 15),
        }
        .into());
    }
    if let Some(c) = &inst.check {
        let c = expanded(t, c)?;
        if !t.install_dir().join(&c).exists() {
            let (target, file) = (t.name.clone(), c.into());
            return Err(InstallError::NoCheckFile { target, file }.into());
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    match (&build_dir, check_file(t)) {
        (Some(d), Some(check)) => {
            let rec = record::new_record(t, check, argv, &key, toolchain, seconds);
            record::write(d, &rec)?;
        }
        _ => {
            let stamp = t.install_dir().join(STAMP);
            std::fs::write(&stamp, &key).with_context(|| {
                format!(
                    "writing the install stamp {} (remove what is there if it is not a file)",
                    stamp.display()
                )
            })?
        }
    }
    Ok(Outcome::Installed { seconds })
}

/// Take the install lock of `t`, waiting (with a message on stderr) while another process
/// installs it; true when we had to wait.
fn lock_install(
    t: &TargetDef,
    path: &Path,
    on_progress: &dyn Fn(std::time::Duration, &str),
    cancelled: &dyn Fn() -> bool,
) -> Result<(Lock, bool)> {
    let start = Instant::now();
    let mut waiting: Option<String> = None;
    loop {
        if let Some(mut l) = Lock::try_take(path)? {
            l.record(&Holder::me(format!("install of {}", t.name)));
            return Ok((l, waiting.is_some()));
        }
        let msg = waiting.get_or_insert_with(|| {
            let who = lock::holder(path)
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

pub use super::requirements::{check_requirements, find_program, missing_requirements};

pub fn indent(s: &str) -> String {
    s.lines()
        .map(|l| format!("    | {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
