//! `gqlbench audit PATH`: the correctness matrix (`audit`). For each suite: its SDL and
//! operations written into the audit folder, `init graph`, then a short `run federation
//! --graph`, each a child gqlbench (its own exit code, its own results folder the user can
//! open or run again); the matrix is saved after every suite, so an interrupted audit keeps
//! what it found. Exit: 0 every cell correct (or not run for the mocks' sake), 1 a gateway
//! wrong, refused or failed, 2 bad input or the mocks at fault, 130 interrupted.
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::atomic::Ordering;

use anyhow::{Context, Result};

use crate::audit::matrix::{self, Matrix, SuiteRow, Verdict};
use crate::audit::{render, suite};
use crate::cli::AuditArgs;
use crate::error::{CatalogError, PlanError};

pub fn run(root: &Path, a: &AuditArgs) -> Result<ExitCode> {
    let dirs = suite::find(&a.path).map_err(|message| CatalogError::File {
        file: a.path.clone(),
        message,
    })?;
    let dirs = chosen(dirs, &a.suites)?;
    let out = match &a.out {
        Some(d) => d.clone(),
        None => root.join("results").join(format!(
            "{}-audit",
            chrono::Local::now().format("%Y%m%d-%H%M%S")
        )),
    };
    let out = std::path::absolute(&out).with_context(|| format!("{}", out.display()))?;
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let settings = format!(
        "init graph, then run federation --graph --scenarios constant --trials 1 --warmup 0s --duration {}s -c 2{}",
        a.duration.as_secs_f64(),
        a.targets
            .as_deref()
            .map_or(String::new(), |t| format!(" --targets {t}"))
    );
    let mut m = Matrix {
        schema_version: 1,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        source: a.path.display().to_string(),
        started_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        finished_at: None,
        settings,
        gateways: Vec::new(),
        suites: Vec::new(),
    };
    let cancel = super::cancel_flag();
    let exe = std::env::current_exe().context("finding gqlbench's own executable")?;
    let child = Child {
        exe: &exe,
        root,
        cancel: &cancel,
    };
    for (i, dir) in dirs.iter().enumerate() {
        let name = dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        eprintln!("[{}/{}] {name}", i + 1, dirs.len());
        let row = match audit_suite(&child, dir, &out.join("suites").join(&name), a) {
            Ok(row) => row,
            Err(Interrupted) => break,
        };
        for g in row.cells.keys() {
            if !m.gateways.contains(g) {
                m.gateways.push(g.clone());
            }
        }
        eprintln!("  {}", summary(&row));
        m.suites.push(row);
        save(&out, &m)?;
    }
    let interrupted = cancel.load(Ordering::Relaxed);
    if !interrupted {
        m.finished_at = Some(chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    }
    save(&out, &m)?;
    println!("{}", render::markdown(&m));
    eprintln!("correctness matrix: {}", out.join("report.md").display());
    let cells = || m.suites.iter().flat_map(|s| s.cells.values());
    Ok(if interrupted {
        ExitCode::from(130)
    } else if cells().any(|c| c.verdict.against_gateway()) {
        ExitCode::from(1)
    } else if cells().any(|c| c.verdict == Verdict::MocksFault) {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// The suites `--suites` names (all when none), each checked against those found.
fn chosen(dirs: Vec<PathBuf>, names: &[String]) -> Result<Vec<PathBuf>> {
    if names.is_empty() {
        return Ok(dirs);
    }
    let name = |d: &PathBuf| d.file_name().map(|n| n.to_string_lossy().into_owned());
    let found: Vec<String> = dirs.iter().filter_map(name).collect();
    if let Some(bad) = names.iter().find(|n| !found.contains(n)) {
        return Err(PlanError::Flag {
            flag: "--suites",
            message: format!(
                "no suite '{bad}' in the path given; its suites: {}",
                found.join(", ")
            ),
        }
        .into());
    }
    Ok(dirs
        .into_iter()
        .filter(|d| name(d).is_some_and(|n| names.contains(&n)))
        .collect())
}

fn save(out: &Path, m: &Matrix) -> Result<()> {
    let write = |file: &str, text: String| {
        let p = out.join(file);
        std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))
    };
    write("audit.json", serde_json::to_string_pretty(m)?)?;
    write("report.md", render::markdown(m))?;
    write("report.html", render::html(m))
}

fn summary(row: &SuiteRow) -> String {
    if let Some(why) = &row.not_run {
        return format!("not run: {why}");
    }
    row.cells
        .iter()
        .map(|(g, c)| format!("{g} {}", c.verdict.label()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The audit was interrupted (Ctrl-C, SIGTERM) while a child ran.
struct Interrupted;

/// How a child gqlbench is started and stopped.
struct Child<'a> {
    exe: &'a Path,
    root: &'a Path,
    cancel: &'a std::sync::atomic::AtomicBool,
}

impl Child<'_> {
    /// Runs gqlbench with `args`, its output into `log`; its exit code and what it wrote.
    /// A signal to the audit is passed on (the child saves its partial results and stops).
    fn run(&self, args: &[&std::ffi::OsStr], log: &Path) -> Result<(i32, String), Interrupted> {
        let file = std::fs::File::create(log).map_err(|_| Interrupted)?;
        let err = file.try_clone().map_err(|_| Interrupted)?;
        let mut child = Command::new(self.exe)
            .arg("--root")
            .arg(self.root)
            .args(args)
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(err)
            .spawn()
            .map_err(|_| Interrupted)?;
        let mut signalled = false;
        let code = loop {
            if let Ok(Some(st)) = child.try_wait() {
                break st.code().unwrap_or(130);
            }
            if self.cancel.load(Ordering::Relaxed) && !signalled {
                // SAFETY: kill(2) on our own child's pid.
                unsafe {
                    libc::kill(child.id() as i32, libc::SIGTERM);
                }
                signalled = true;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        if signalled || code == 130 {
            return Err(Interrupted);
        }
        Ok((code, std::fs::read_to_string(log).unwrap_or_default()))
    }
}

fn audit_suite(c: &Child, dir: &Path, at: &Path, a: &AuditArgs) -> Result<SuiteRow, Interrupted> {
    let mut row = SuiteRow {
        suite: dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
        ..Default::default()
    };
    let s = match suite::read(dir) {
        Ok(s) => s,
        Err(why) => {
            row.not_run = Some(why);
            return Ok(row);
        }
    };
    row.dropped = s.dropped.clone();
    let mut s = s;
    row.graph_dir = Some("suites/".to_string() + &row.suite + "/graph");
    // An operation every gateway disagrees on with the computed answer (the mocks' fault)
    // is set aside with that reason and the suite runs again on the rest, so that the
    // other operations still give each gateway a verdict.
    loop {
        if !set_up(c, &mut s, at, &mut row)? {
            return Ok(row);
        }
        run_suite(c, &s, at, a, &mut row)?;
        let fault = row
            .cells
            .values()
            .find(|c| c.verdict == Verdict::MocksFault)
            .and_then(|c| c.detail.clone());
        let Some((i, detail)) = fault.and_then(|d| Some((faulted(&d, &s)?, d))) else {
            return Ok(row);
        };
        if s.operations.len() - row.left_out.len() < 2 {
            return Ok(row);
        }
        let (name, _) = s.operations.remove(i);
        if erred_as_expected(&s, &name, &detail) {
            row.erred_as_expected.push((name, detail));
        } else {
            row.set_aside.push((name, detail));
        }
    }
}

/// Whether every gateway answered operation `name` with an error (the fault's `detail`)
/// where the audit's test.ts expects one: the gateways agree with the audit, not a fault
/// of the mocks.
fn erred_as_expected(s: &suite::Suite, name: &str, detail: &str) -> bool {
    s.expects_errors.iter().any(|e| e == name) && detail.contains(" with errors (")
}

/// The index of the operation a catalogue fault names (`operation graph/t3`).
fn faulted(detail: &str, s: &suite::Suite) -> Option<usize> {
    s.operations
        .iter()
        .position(|(name, _)| detail.contains(&format!("operation graph/{name} ")))
}

/// `init graph` on the suite as `s` holds it now; false when the suite cannot run (the
/// reason is in `row.not_run`).
fn set_up(
    c: &Child,
    s: &mut suite::Suite,
    at: &Path,
    row: &mut SuiteRow,
) -> Result<bool, Interrupted> {
    let graph = at.join("graph");
    // An operation init refuses (one the audit runs to see an error: it does not fit the
    // graph) is dropped with init's reason, and init runs again on the rest.
    loop {
        if s.operations.is_empty() {
            row.not_run = Some("no operation to check (none taken from test.ts)".into());
            return Ok(false);
        }
        if let Err(e) = stage(s, at) {
            row.not_run = Some(format!("{e:#}"));
            return Ok(false);
        }
        let (code, text) = c.run(
            &[
                "init".as_ref(),
                "graph".as_ref(),
                graph.as_os_str(),
                "--force".as_ref(),
                "--from".as_ref(),
                at.join("sdl").as_os_str(),
                "--operations".as_ref(),
                at.join("operations").as_os_str(),
            ],
            &at.join("init.log"),
        )?;
        row.left_out = matrix::left_out(&text);
        if code == 0 {
            break;
        }
        let error = last_error(&text);
        if error.contains("no operation can be checked") {
            row.left_out = s
                .operations
                .iter()
                .map(|(name, _)| (name.clone(), all_left_out_why(&error, name)))
                .collect();
            row.not_run = Some(
                "no operation can be checked: the mocks cannot serve any consistently (below)"
                    .into(),
            );
            return Ok(false);
        }
        match refused_operation(&error, s) {
            Some(i) => {
                let (name, _) = s.operations.remove(i);
                let file = format!("operations/{name}.graphql");
                let why = error
                    .rfind(&file)
                    .map_or(error.as_str(), |at| &error[at + "operations/".len()..]);
                row.dropped
                    .push((name, format!("refused by init graph: {why}")));
            }
            None => {
                row.not_run = Some(format!("init graph exited {code}: {error}"));
                return Ok(false);
            }
        }
    }
    Ok(true)
}

/// The short run of the suite's graph through the gateways: the row's cells.
fn run_suite(
    c: &Child,
    s: &suite::Suite,
    at: &Path,
    a: &AuditArgs,
    row: &mut SuiteRow,
) -> Result<(), Interrupted> {
    let graph = at.join("graph");
    let left: Vec<&str> = row.left_out.iter().map(|(op, _)| op.as_str()).collect();
    row.operations = s
        .operations
        .iter()
        .map(|(n, _)| n.clone())
        .filter(|n| !left.contains(&n.as_str()))
        .collect();
    let run_dir = at.join("run");
    let duration = format!("{}s", a.duration.as_secs_f64());
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "run".as_ref(),
        "federation".as_ref(),
        "--graph".as_ref(),
        graph.as_os_str(),
        "--scenarios".as_ref(),
        "constant".as_ref(),
        "--trials".as_ref(),
        "1".as_ref(),
        "--warmup".as_ref(),
        "0s".as_ref(),
        "--duration".as_ref(),
        duration.as_ref(),
        "-c".as_ref(),
        "2".as_ref(),
        "--out".as_ref(),
        run_dir.as_os_str(),
    ];
    if let Some(t) = &a.targets {
        args.push("--targets".as_ref());
        args.push(std::ffi::OsStr::new(t));
    }
    let (code, text) = c.run(&args, &at.join("run.log"))?;
    row.run_dir = Some("suites/".to_string() + &row.suite + "/run");
    let results = std::fs::read_to_string(run_dir.join("results.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<crate::results::RunResults>(&t).ok());
    match results {
        Some(r) => row.cells = matrix::cells(&r),
        None => row.not_run = Some(format!("run exited {code}: {}", last_error(&text))),
    }
    Ok(())
}

/// Why operation `name` was left out, from init's "no operation can be checked" error
/// (`operations/NAME.graphql: why; operations/...`).
fn all_left_out_why(error: &str, name: &str) -> String {
    let file = format!("operations/{name}.graphql: ");
    let Some(at) = error.find(&file) else {
        return error.to_string();
    };
    let rest = &error[at + file.len()..];
    let end = [rest.find("; operations/"), rest.find("). Add an operation")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    rest[..end].to_string()
}

/// The index of the operation init's `error` names by its file, if it names one.
fn refused_operation(error: &str, s: &suite::Suite) -> Option<usize> {
    s.operations
        .iter()
        .position(|(name, _)| error.contains(&format!("operations/{name}.graphql")))
}

/// The suite's SDL files and operations, written where init reads them.
fn stage(s: &suite::Suite, at: &Path) -> Result<()> {
    let _ = std::fs::remove_dir_all(at);
    for (sub, files) in [("sdl", &s.subgraphs), ("operations", &s.operations)] {
        let d = at.join(sub);
        std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
        for (name, text) in files {
            let p = d.join(format!("{name}.graphql"));
            std::fs::write(&p, text).with_context(|| format!("writing {}", p.display()))?;
        }
    }
    Ok(())
}

/// How many lines of a child's last error a row keeps (then at most 600 characters).
const ERROR_LINES: usize = 16;

/// The `error: ...` a child printed (with the lines that follow it: a composition's
/// reasons), else its last line; at most 600 characters.
fn last_error(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let at = lines.iter().rposition(|l| l.starts_with("error:"));
    let picked = match at {
        Some(i) => lines[i..]
            .iter()
            // Enough lines for a composition error's query and reasons (it spans ~10).
            .take(ERROR_LINES)
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" "),
        None => lines
            .last()
            .map_or_else(|| "(no output)".into(), |l| l.trim().to_string()),
    };
    if picked.chars().count() > 600 {
        format!("{}…", picked.chars().take(600).collect::<String>())
    } else {
        picked
    }
}

#[cfg(test)]
mod tests;
