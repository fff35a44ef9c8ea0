//! The verdict of a run, which its exit code carries: 0 every measured row valid, 1 a
//! failure (a row invalid, a target that failed to install, start, get ready, answer right,
//! or that crashed), 2 a fault of the catalogue (an expected answer or a query that no
//! target can satisfy), 130 interrupted. Findings about a server (a depth limit it does not
//! enforce or enforces differently, a suspected leak, a start that fails in a constrained
//! box) are shown but never change the exit code: they are what was measured, not a
//! failure to measure. Targets not run because this machine lacks something (a native
//! build not installed, PostgreSQL absent) are listed as skipped.

pub use crate::results::RunVerdict;
use crate::results::{RunResults, RunStatus, ScenarioResult, TargetResult};
use crate::results::{TargetStatus, TargetSummary};

fn row(s: &ScenarioResult, t: &TargetResult) -> String {
    format!("{}/{} {}", s.suite, s.name, t.name)
}

/// Why a measured row is invalid, from its first invalid trial.
fn invalid_reason(t: &TargetResult, sum: &TargetSummary) -> String {
    let first = t
        .trials
        .iter()
        .find(|x| !x.valid)
        .and_then(|x| x.problems.first().cloned())
        .unwrap_or_else(|| "no trial ran".into());
    format!(
        "invalid ({} of {} trials valid): {first}",
        sum.valid_trials, sum.trials
    )
}

/// What one target's row says, or None when it is a plain valid row.
enum RowVerdict {
    Failure(String),
    Finding(String),
    Skipped(String),
}

fn judge_target(s: &ScenarioResult, t: &TargetResult) -> Vec<RowVerdict> {
    let mut out = Vec::new();
    let problem = t.problem.clone().unwrap_or_default();
    if let Some(d) = &t.depth_check {
        if !d.passed() {
            out.push(RowVerdict::Finding(format!(
                "depth limit {}: {}",
                d.limit,
                if d.at_limit_ok {
                    format!("depth {} was answered, not refused", d.limit + 1)
                } else {
                    format!("depth {} was refused, not answered", d.limit)
                }
            )));
        }
    }
    if let Some(l) = t.summary.as_ref().and_then(|s| s.leak.as_ref()) {
        if l.verdict == "growing" {
            out.push(RowVerdict::Finding(format!(
                "memory keeps growing: {}",
                l.detail
            )));
        }
    }
    let constrained = s.limits.cpus.is_some() || s.limits.memory_bytes.is_some();
    match t.status {
        TargetStatus::Ok => {}
        TargetStatus::NotInstalled | TargetStatus::Skipped => {
            out.push(RowVerdict::Skipped(problem));
            return out;
        }
        TargetStatus::Interrupted => return out,
        // A server whose own depth limit refuses the operation at the limit counts depth
        // differently: a finding (shown above), not a failure.
        TargetStatus::WrongAnswers if t.depth_check.as_ref().is_some_and(|d| !d.at_limit_ok) => {
            return out
        }
        // Failing to start in a constrained box is what such a scenario measures.
        TargetStatus::StartFailed if s.kind.measures_starts() && constrained => {
            out.push(RowVerdict::Finding(format!(
                "no start succeeded: {problem}"
            )));
            return out;
        }
        st => {
            out.push(RowVerdict::Failure(format!("{}: {problem}", st.label())));
            return out;
        }
    }
    if s.kind.measures_starts() {
        let failed = t.cold_starts.iter().filter(|c| !c.outcome.is_ok()).count();
        if failed > 0 {
            let msg = format!(
                "{failed} of {} starts failed: {}",
                t.cold_starts.len(),
                t.cold_starts
                    .iter()
                    .find(|c| !c.outcome.is_ok())
                    .map(|c| c.outcome.to_string())
                    .unwrap_or_default()
            );
            out.push(if constrained {
                RowVerdict::Finding(msg)
            } else {
                RowVerdict::Failure(msg)
            });
        }
        return out;
    }
    match &t.summary {
        Some(sum) if !sum.valid => out.push(RowVerdict::Failure(invalid_reason(t, sum))),
        Some(_) => {}
        None if !t.trials.is_empty() => out.push(RowVerdict::Failure("no summary".into())),
        None => {}
    }
    out
}

/// Judges a finished (or partial) run.
pub fn judge(r: &RunResults, ignore_failures: bool) -> RunVerdict {
    let mut v = RunVerdict {
        failures_ignored: ignore_failures,
        ignorable: true,
        ..Default::default()
    };
    // A build not installed is the same news in every scenario that has it: one entry per
    // target, naming how many scenarios it missed.
    let mut not_installed: Vec<(String, String, usize)> = Vec::new();
    // Rows that were run (measured, or failed trying): none at all makes "every measured
    // row valid" vacuous.
    let mut run_rows = 0usize;
    for s in &r.scenarios {
        if let Some(f) = &s.catalogue_fault {
            v.catalogue_faults
                .push(format!("{}/{}: {f}", s.suite, s.name));
        }
        for t in &s.targets {
            // Targets that tripped over a catalogue fault are covered by it.
            if s.catalogue_fault.is_some() && t.status == TargetStatus::WrongAnswers {
                continue;
            }
            if t.status == TargetStatus::NotInstalled {
                match not_installed.iter_mut().find(|(n, _, _)| n == &t.name) {
                    Some(e) => e.2 += 1,
                    None => not_installed.push((
                        t.name.clone(),
                        t.problem.clone().unwrap_or_default(),
                        1,
                    )),
                }
                continue;
            }
            if !matches!(t.status, TargetStatus::Skipped | TargetStatus::Interrupted) {
                run_rows += 1;
            }
            for rv in judge_target(s, t) {
                match rv {
                    RowVerdict::Failure(m) => v.failures.push(format!("{}: {m}", row(s, t))),
                    RowVerdict::Finding(m) => v.findings.push(format!("{}: {m}", row(s, t))),
                    RowVerdict::Skipped(m) => v.skipped.push(format!("{}: {m}", row(s, t))),
                }
            }
        }
    }
    for (name, problem, n) in not_installed {
        v.skipped.push(format!(
            "{name} (in {n} scenario{}): {problem}",
            if n == 1 { "" } else { "s" }
        ));
    }
    // Every target skipped or not installed: nothing was measured, and exit 0 would tell a
    // CI job that the benchmark passed. A failure, named as such (the skipped list says why
    // each was left out).
    if run_rows == 0
        && v.failures.is_empty()
        && v.catalogue_faults.is_empty()
        && r.status != RunStatus::Interrupted
    {
        v.failures.push(format!(
            "nothing was measured: every target of the run was skipped or not installed ({} listed under skipped)",
            v.skipped.len()
        ));
    }
    v.exit_code = if r.status == RunStatus::Interrupted {
        130
    } else if !v.catalogue_faults.is_empty() {
        2
    } else if !v.failures.is_empty() && !ignore_failures {
        1
    } else {
        0
    };
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A run of one scenario whose targets have the statuses given, none with trials.
    fn run_of(statuses: &[(&str, &str)]) -> RunResults {
        let targets: Vec<_> = statuses
            .iter()
            .map(|(name, status)| {
                json!({
                    "name": name, "kind": "gateway", "package": null, "version": null,
                    "settings": {}, "status": status, "problem": "it reads Federation v1",
                    "log_tail": null, "log_file": null, "ready_s": null,
                    "rss_idle_bytes": null, "checks": [], "trials": [], "summary": null
                })
            })
            .collect();
        let scenario = json!({
            "suite": "federation", "name": "constant", "description": "d",
            "workload": "federation", "operations": [],
            "load": {"model": "closed", "connections": 4, "pipelining": 1,
                     "think_time_s": 0.0, "rate": null, "stages": [], "timeout_s": 10.0,
                     "unique_request_header": false},
            "trials_planned": 1, "warmup_s": 0.0, "duration_s": 1.0,
            "limits": {"cpus": null, "memory_bytes": null, "applied": ""},
            "ranking": null, "targets": targets
        });
        crate::results::test_run(json!({"suite": "federation", "scenarios": [scenario]}))
    }

    #[test]
    fn a_run_that_measured_nothing_fails_instead_of_claiming_every_row_valid() {
        for statuses in [
            &[("mercurius-gateway", "skipped")][..],
            &[
                ("fx-native", "not_installed"),
                ("yoga-stitching", "skipped"),
            ],
        ] {
            let v = judge(&run_of(statuses), false);
            assert_eq!(v.exit_code, 1, "{statuses:?}: {v:?}");
            assert!(
                v.failures.len() == 1 && v.failures[0].starts_with("nothing was measured"),
                "{v:?}"
            );
            assert_eq!(v.skipped.len(), statuses.len(), "{v:?}");
            assert!(!v
                .lines()
                .iter()
                .any(|l| l.contains("every measured row valid")));
            // --ignore-failures keeps exit 0, as for any failure; the failure is still listed.
            let v = judge(&run_of(statuses), true);
            assert_eq!(v.exit_code, 0);
            assert_eq!(v.failures.len(), 1);
        }
        // One row run beside skipped ones: the skipped do not change the exit code.
        let mut r = run_of(&[("hive-gateway", "ok"), ("mercurius-gateway", "skipped")]);
        assert_eq!(judge(&r, false).exit_code, 0, "{:?}", judge(&r, false));
        // Interrupted before anything ran: 130, not a failure.
        r.status = RunStatus::Interrupted;
        r.scenarios[0].targets.remove(0);
        let v = judge(&r, false);
        assert_eq!(v.exit_code, 130);
        assert!(v.failures.is_empty(), "{v:?}");
    }
}
