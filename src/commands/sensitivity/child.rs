//! One separate `gqlbench run` of the calibration's reference, as a CI job would make it,
//! and how it ends: its exit code, its results, and an interruption passed on to it (a
//! SIGINT or SIGTERM to the calibration alone does not reach the run by itself).
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::results::RunResults;

/// One separate `gqlbench run` (or `ab`) of the reference with `work`, into `out`.
pub struct Child<'a> {
    pub exe: &'a Path,
    pub root: Option<&'a Path>,
    pub extra: &'a [String],
    /// Set by Ctrl-C or SIGTERM to this process (`cancel_flag`).
    pub cancel: &'a AtomicBool,
    pub reference: &'a Reference,
}

/// The calibration's reference: a target, the variable that sets its work per request,
/// and the environment that makes it read it (the injected-work preload of a Node server).
pub struct Reference {
    pub target: String,
    pub var: &'static str,
    pub env: Vec<String>,
}

/// How long an interrupted run may take to save what it measured and stop its target
/// before it is killed (it normally takes well under a second).
const STOP_GRACE: Duration = Duration::from_secs(20);

/// A run's exit code: killed by SIGINT or SIGTERM (a Ctrl-C reaches it too) means
/// interrupted (130); any other signal (the OOM killer's SIGKILL) a failed run (1).
fn exit_code(status: ExitStatus) -> i32 {
    match (status.code(), status.signal()) {
        (Some(c), _) => c,
        (None, Some(s)) if s == libc::SIGINT || s == libc::SIGTERM => 130,
        (None, _) => 1,
    }
}

/// Wait for a run; once this process is interrupted, pass SIGINT on to the run (a signal
/// sent to this process alone does not reach it), and kill it if it has not stopped
/// within `STOP_GRACE`. Interrupted, the code is 130 whatever the run made of it.
fn wait(child: &mut std::process::Child, cancel: &AtomicBool) -> Result<i32> {
    let mut passed_on: Option<Instant> = None;
    loop {
        if let Some(st) = child.try_wait().context("waiting for gqlbench run")? {
            return Ok(if passed_on.is_some() {
                130
            } else {
                exit_code(st)
            });
        }
        if cancel.load(Ordering::Relaxed) {
            match passed_on {
                None => {
                    // SAFETY: kill(2) on the pid of a child we have not reaped yet.
                    unsafe {
                        libc::kill(child.id() as libc::pid_t, libc::SIGINT);
                    }
                    passed_on = Some(Instant::now());
                }
                Some(t) if t.elapsed() > STOP_GRACE => {
                    // Its targets end with it (parent-death signal).
                    let _ = child.kill();
                }
                Some(_) => {}
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A run that ended: its exit code, and its results (None only for a run interrupted
/// before it saved any).
pub struct Ran {
    pub code: i32,
    pub results: Option<RunResults>,
}

impl Ran {
    pub fn interrupted(&self) -> bool {
        self.code == 130
    }
}

/// The reference whose own variable sets its work.
pub const REFERENCE: &str = "node-baseline";

/// The reference as the child runs see it: node-baseline reads GQLBENCH_WORK itself; any
/// other Node server gets the work injected by a preload.
pub fn reference(a: &crate::cli::CalibrateArgs, cat: &crate::catalog::Catalog) -> Reference {
    if a.target == REFERENCE {
        return Reference {
            target: a.target.clone(),
            var: "GQLBENCH_WORK",
            env: Vec::new(),
        };
    }
    let preload = cat.root.join("targets/_node/inject-work.mjs");
    Reference {
        target: a.target.clone(),
        var: "GQLBENCH_INJECT_WORK",
        env: vec![format!("NODE_OPTIONS=--import={}", preload.display())],
    }
}

impl Child<'_> {
    /// `gqlbench run servers --scenarios simple` of the reference with `work`.
    pub fn run(&self, profile_flags: &[&str], work: u64, out: &Path) -> Result<Ran> {
        let r = self.reference;
        let mut c = self.command();
        c.args(["run", "servers", "--scenarios", "simple", "--targets"])
            .arg(&r.target)
            .args(profile_flags)
            .arg("--target-env")
            .arg(format!("{}={work}", r.var));
        self.finish(c, out)
    }

    /// `gqlbench ab servers/simple` of the reference: side A with `a_work`, side B with
    /// `b_work`.
    pub fn ab(
        &self,
        a_work: u64,
        b_work: u64,
        allowance_pct: f64,
        profile: &str,
        out: &Path,
    ) -> Result<Ran> {
        let r = self.reference;
        let mut c = self.command();
        c.args(["ab", "servers/simple", "--target"])
            .arg(&r.target)
            .arg("--a-env")
            .arg(format!("{}={a_work}", r.var))
            .arg("--b-env")
            .arg(format!("{}={b_work}", r.var))
            .args(["--a-label", "A", "--b-label", "B"])
            .arg("--allowance")
            .arg(format!("{allowance_pct}%"))
            .args(["--profile", profile]);
        self.finish(c, out)
    }

    fn command(&self) -> Command {
        let mut c = Command::new(self.exe);
        if let Some(r) = self.root {
            c.arg("--root").arg(r);
        }
        c
    }

    /// The reference's environment, the extra flags, JSON and the output folder; then the
    /// child run to its end.
    fn finish(&self, mut c: Command, out: &Path) -> Result<Ran> {
        for e in &self.reference.env {
            c.arg("--target-env").arg(e);
        }
        c.args(self.extra).arg("--json").arg("--out").arg(out);
        let log_path = log_of(out);
        let log = std::fs::File::create(&log_path)
            .with_context(|| format!("creating {}", log_path.display()))?;
        let mut child = c
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .context("starting gqlbench")?;
        let code = wait(&mut child, self.cancel)?;
        let results = match RunResults::load(out) {
            Ok(r) => Some(r),
            // Interrupted before its first save: nothing to keep, not an error.
            Err(_) if code == 130 => None,
            Err(e) => {
                return Err(anyhow::Error::from(e).context(format!(
                    "the run in {} left no results (exit {code}); its output: {}",
                    out.display(),
                    log_path.display()
                )))
            }
        };
        Ok(Ran { code, results })
    }
}

/// A run's output beside its folder: `rep-01/B5.log` for `rep-01/B5` (the whole name, so
/// `B7.5` is not cut at its dot).
fn log_of(run: &Path) -> std::path::PathBuf {
    let name = run
        .file_name()
        .map_or_else(Default::default, |n| n.to_string_lossy().to_string());
    run.with_file_name(format!("{name}.log"))
}
