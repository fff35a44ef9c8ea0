//! What no gqlbench ever writes, found in a results file before it is judged: a throughput
//! that is negative, not a number or beyond any machine's reach ([`MAX_RPS`]) anywhere, or
//! not above 0 where requests were answered (a valid trial that answered requests, a valid
//! row of a throughput scenario). Such a file
//! was edited or damaged; `compare` refuses it (exit 2) naming the field, instead of
//! judging a gate on it (a candidate at 0 req/s passed, blaming the baseline).
use super::{RunResults, ScenarioKind};

/// A billion requests a second: no single machine answers GraphQL that fast (the fastest
/// loopback rows gqlbench measured are under 10⁵). A figure above it was edited, and
/// judging it would overflow every ratio into "+inf%".
pub const MAX_RPS: f64 = 1e9;

/// Not a req/s any run could measure.
fn impossible(v: f64) -> bool {
    !v.is_finite() || !(0.0..=MAX_RPS).contains(&v)
}

/// The first damaged throughput of `r`: its field path in results.json, what it is, and
/// the row it belongs to. None when every figure is one gqlbench could have written.
pub fn damaged_throughput(r: &RunResults) -> Option<String> {
    for (si, s) in r.scenarios.iter().enumerate() {
        // Subscriptions and cold starts measure no req/s: their rows carry 0 by design.
        let throughput = s.kind == ScenarioKind::Load;
        for (ti, t) in s.targets.iter().enumerate() {
            let at = |field: String, v: f64, why: &str| {
                // 1e308 as written, not as 309 digits.
                let v = if v.abs() > MAX_RPS {
                    format!("{v:e}")
                } else {
                    v.to_string()
                };
                format!(
                    "scenarios[{si}].targets[{ti}].{field} is {v} ({}/{}, target {}): {why}",
                    s.suite, s.name, t.name
                )
            };
            for (k, x) in t.trials.iter().enumerate() {
                let v = x.load.throughput_rps;
                let answered = x.valid && x.load.requests > 0;
                if impossible(v) || (answered && v <= 0.0) {
                    return Some(at(
                        format!("trials[{k}].load.throughput_rps"),
                        v,
                        "a trial's req/s is never negative nor above a billion, and above 0 when it answered requests",
                    ));
                }
            }
            let Some(sum) = &t.summary else { continue };
            let must_be_positive = throughput && sum.valid;
            let figures = sum
                .rps
                .samples
                .iter()
                .enumerate()
                .map(|(k, v)| (format!("summary.rps.samples[{k}]"), *v))
                .chain(
                    (sum.rps.n > 0)
                        .then(|| {
                            [
                                ("summary.rps.median".to_string(), sum.rps.median),
                                ("summary.rps.center".to_string(), sum.rps.center),
                            ]
                        })
                        .into_iter()
                        .flatten()
                        // Schema 2 files have no center (0): the median stands for it.
                        .filter(|(f, v)| !(f.ends_with("center") && *v == 0.0)),
                );
            for (field, v) in figures {
                if impossible(v) || (must_be_positive && v <= 0.0) {
                    return Some(at(
                        field,
                        v,
                        "a valid row's req/s is above 0, and no req/s is negative nor above a billion",
                    ));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{Estimate, TargetResult, TargetSummary, TrialResult};

    fn run(rps: f64, samples: &[f64], valid: bool) -> RunResults {
        let load = gqlbench_engine::LoadResult {
            requests: 1000,
            elapsed_s: 1.0,
            throughput_rps: rps,
            ..Default::default()
        };
        let mut t = TargetResult::new("t".into(), crate::catalog::TargetKind::Server);
        t.trials = vec![TrialResult::of_load(1, "x".into(), load)];
        t.trials[0].valid = valid;
        let mut sum: TargetSummary = crate::summary::summarize(&t).unwrap();
        sum.rps = crate::stats::estimate(samples);
        sum.valid = valid;
        t.summary = Some(sum);
        let info = crate::results::LoadInfo {
            model: crate::catalog::scenario::Model::Closed,
            connections: 1,
            pipelining: 1,
            think_time_s: 0.0,
            rate: None,
            stages: vec![],
            timeout_s: 1.0,
            unique_request_header: false,
        };
        let mut s = crate::results::ScenarioResult {
            suite: "e2e".into(),
            name: "hello".into(),
            load: info,
            ..Default::default()
        };
        s.targets = vec![t];
        let mut r: RunResults = crate::results::test_run(serde_json::json!({"suite": "e2e"}));
        r.scenarios.push(s);
        r
    }

    #[test]
    fn a_throughput_no_run_could_have_measured_is_named() {
        assert_eq!(
            damaged_throughput(&run(1000.0, &[1000.0, 990.0], true)),
            None
        );
        // An invalid row that answered nothing: 0 req/s is what it measured.
        assert_eq!(damaged_throughput(&run(0.0, &[0.0], false)), None);
        let e = damaged_throughput(&run(1000.0, &[1000.0, 0.0], true)).unwrap();
        assert!(
            e.starts_with(
                "scenarios[0].targets[0].summary.rps.samples[1] is 0 (e2e/hello, target t)"
            ),
            "{e}"
        );
        let e = damaged_throughput(&run(1000.0, &[-5.0], false)).unwrap();
        assert!(e.contains("summary.rps.samples[0] is -5"), "{e}");
        // A valid trial that answered 1,000 requests at 0 req/s.
        let e = damaged_throughput(&run(0.0, &[1000.0], true)).unwrap();
        assert!(e.contains("trials[0].load.throughput_rps is 0"), "{e}");
        let e = damaged_throughput(&run(f64::NAN, &[1000.0], false)).unwrap();
        assert!(e.contains("throughput_rps is NaN"), "{e}");
        // Finite, but no machine's: a ratio of two would overflow.
        let e = damaged_throughput(&run(1e308, &[1000.0], true)).unwrap();
        assert!(e.contains("throughput_rps is 1e308"), "{e}");
        let e = damaged_throughput(&run(1000.0, &[1000.0, 1e308], true)).unwrap();
        assert!(e.contains("summary.rps.samples[1]"), "{e}");
        let mut r = run(1000.0, &[1000.0], true);
        r.scenarios[0].targets[0].summary.as_mut().unwrap().rps = Estimate {
            n: 1,
            median: -1.0,
            samples: vec![1000.0],
            ..Default::default()
        };
        let e = damaged_throughput(&r).unwrap();
        assert!(e.contains("summary.rps.median is -1"), "{e}");
    }
}
