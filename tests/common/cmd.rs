//! The one way the tests run the binary end to end: a command line built with `Gqlbench`,
//! run with `go()` (or started with `spawn()` and ended with `Outcome::finish`), and what
//! it did as an `Outcome`, whose JSON output is read through the library's typed models.
//!
//! ```ignore
//! let out = Gqlbench::run("e2e")
//!     .root(fixtures())
//!     .scenarios("hello")
//!     .targets("fx-good")
//!     .duration("500ms")
//!     .json()
//!     .out(dir.path())
//!     .go();
//! out.assert_exit(0);
//! let r = out.results();
//! ```
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use gqlbench::commands::load::LoadReport;
use gqlbench::compare::Comparison;
use gqlbench::results::RunResults;

/// A command line of gqlbench: `--root`, the subcommand and its flags, the environment, and
/// optionally a program to start it under (`taskset -c 0`).
#[derive(Clone, Debug, Default)]
pub struct Gqlbench {
    root: Option<PathBuf>,
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
    wrapper: Vec<OsString>,
}

impl Gqlbench {
    /// Any subcommand and its arguments: `Gqlbench::new(["install", "fx-native"])`.
    pub fn new<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(args: I) -> Gqlbench {
        Gqlbench::default().args(args)
    }

    /// `run SUITE`. The tests of a binary run in parallel, so each run sees the others' CPU
    /// use: interference is not flagged (a test of it sets its own limit after this one).
    pub fn run(suite: &str) -> Gqlbench {
        Gqlbench::new(["run", suite, "--interference-limit", "10000%"])
    }

    /// `load URL -q QUERY`.
    pub fn load(url: &str, query: impl AsRef<Path>) -> Gqlbench {
        Gqlbench::new(["load", url, "-q"]).arg(query.as_ref())
    }

    /// `compare BASELINE CANDIDATE`.
    pub fn compare(baseline: impl AsRef<Path>, candidate: impl AsRef<Path>) -> Gqlbench {
        Gqlbench::new(["compare"])
            .arg(baseline.as_ref())
            .arg(candidate.as_ref())
    }

    /// `report RUN`.
    pub fn report(run: impl AsRef<Path>) -> Gqlbench {
        Gqlbench::new(["report"]).arg(run.as_ref())
    }

    /// `--root DIR`: the catalogue (this checkout's, the fixtures or a copy).
    pub fn root(mut self, dir: impl AsRef<Path>) -> Gqlbench {
        self.root = Some(dir.as_ref().to_path_buf());
        self
    }

    pub fn scenarios(self, names: &str) -> Gqlbench {
        self.args(["--scenarios", names])
    }

    pub fn targets(self, names: &str) -> Gqlbench {
        self.args(["--targets", names])
    }

    pub fn trials(self, n: u32) -> Gqlbench {
        self.args(["--trials", &n.to_string()])
    }

    pub fn duration(self, d: &str) -> Gqlbench {
        self.args(["--duration", d])
    }

    pub fn warmup(self, d: &str) -> Gqlbench {
        self.args(["--warmup", d])
    }

    /// `-c N`.
    pub fn connections(self, n: u64) -> Gqlbench {
        self.args(["-c", &n.to_string()])
    }

    /// `--json`: the result model on stdout.
    pub fn json(self) -> Gqlbench {
        self.arg("--json")
    }

    /// `--out DIR`.
    pub fn out(self, dir: impl AsRef<Path>) -> Gqlbench {
        self.arg("--out").arg(dir.as_ref())
    }

    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Gqlbench {
        self.args.push(a.as_ref().to_owned());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Gqlbench {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// An environment variable of the run (given after the defaults, so it overrides them).
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Gqlbench {
        self.envs.push((key.into(), value.as_ref().to_owned()));
        self
    }

    /// Start gqlbench under another program: `.under(["taskset", "-c", "0"])`.
    pub fn under<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, program: I) -> Gqlbench {
        self.wrapper = program.into_iter().map(|a| a.as_ref().to_owned()).collect();
        self
    }

    /// The command, with a CPU-lock folder of its own: the tests of one binary run in
    /// parallel threads and many start a run with the default CPU split, which the
    /// machine-wide lock would refuse (and checkouts tested side by side would block each
    /// other). Tests of the lock itself set one GQLBENCH_LOCK_DIR with `env`.
    pub fn command(&self) -> Command {
        let bin = env!("CARGO_BIN_EXE_gqlbench");
        let mut c = match self.wrapper.split_first() {
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(bin);
                c
            }
            None => Command::new(bin),
        };
        c.env("GQLBENCH_LOCK_DIR", fresh_lock_dir());
        if let Some(root) = &self.root {
            c.arg("--root").arg(root);
        }
        c.args(&self.args);
        for (k, v) in &self.envs {
            c.env(k, v);
        }
        c
    }

    /// Run it to the end.
    pub fn go(&self) -> Outcome {
        Outcome::of(self.command().output().expect("running gqlbench"))
    }

    /// Start it, its output piped: end it with `Outcome::finish`.
    pub fn spawn(&self) -> Child {
        self.spawn_with(Stdio::piped(), Stdio::piped())
    }

    /// Start it, its output where the test wants it (`Stdio::null()`, a log file).
    pub fn spawn_with(&self, stdout: Stdio, stderr: Stdio) -> Child {
        self.command()
            .stdout(stdout)
            .stderr(stderr)
            .spawn()
            .expect("starting gqlbench")
    }
}

/// `<target>/tmp/locks/<test pid>-<n>`; folders of test processes that have ended are
/// removed on the first call.
fn fresh_lock_dir() -> PathBuf {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    static CLEAN: std::sync::Once = std::sync::Once::new();
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("locks");
    CLEAN.call_once(|| {
        for e in std::fs::read_dir(&base).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let pid = name.split('-').next().unwrap_or("");
            if !pid.is_empty() && !Path::new("/proc").join(pid).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    base.join(format!("{}-{n}", std::process::id()))
}

/// What one gqlbench did: its exit code (None when a signal ended it) and its output.
#[derive(Debug)]
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// From a finished process; its output is echoed for the test's log.
    pub fn of(out: Output) -> Outcome {
        let o = Outcome {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        eprintln!("--- stdout\n{}\n--- stderr\n{}", o.stdout, o.stderr);
        o
    }

    /// Wait for a gqlbench started with `Gqlbench::spawn`.
    pub fn finish(child: Child) -> Outcome {
        Outcome::of(child.wait_with_output().expect("waiting for gqlbench"))
    }

    /// Exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// Assert the exit code, showing stderr when it differs.
    pub fn assert_exit(&self, code: i32) -> &Outcome {
        assert_eq!(self.code, Some(code), "exit code; stderr:\n{}", self.stderr);
        self
    }

    /// `run --json` (and `report --format json`): the run's results.
    pub fn results(&self) -> RunResults {
        self.parse()
    }

    /// `load --json`.
    pub fn load_report(&self) -> LoadReport {
        self.parse()
    }

    /// `compare --json`.
    pub fn comparison(&self) -> Comparison {
        self.parse()
    }

    /// Stdout as untyped JSON, for tests of the serialized form itself.
    pub fn json(&self) -> serde_json::Value {
        self.parse()
    }

    fn parse<T: serde::de::DeserializeOwned>(&self) -> T {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not a {}: {e}", std::any::type_name::<T>()))
    }
}
