//! A sweep as a latency-versus-throughput curve: each step of each counted trial a point
//! at (achieved req/s, p99), joined in the order the steps ran, a dot where the step held
//! and a ring where it did not, optionally labelled (a connection count). The rate sweep
//! and the connection sweep both draw theirs with it.
use super::xy::{Marker, Series, XAxis, Xy, YAxis};
use super::{color_of, legend, Figure};
use crate::results::{ScenarioResult, SweepStep, TrialResult};

/// What a sweep kind tells the curve.
pub struct Curve {
    pub kind: &'static str,
    pub title: &'static str,
    pub about: String,
    /// The steps of a trial that belong on the curve, in the order to join them.
    pub steps: fn(&TrialResult) -> Vec<&SweepStep>,
    /// A label drawn beside a step of each target's first trial.
    pub note: fn(&SweepStep) -> Option<String>,
}

impl Curve {
    pub fn figure(&self, s: &ScenarioResult) -> Figure {
        let mut chart = Xy::new(
            "achieved requests per second",
            "p99 latency (ms, log scale)",
            XAxis::Linear { from_zero: true },
            YAxis::Log,
        );
        let mut drawn = Vec::new();
        for t in &s.targets {
            let c = color_of(s, t);
            for (k, tr) in crate::summary::counted_trials(t).into_iter().enumerate() {
                let steps = (self.steps)(tr);
                if steps.is_empty() {
                    continue;
                }
                let at = |x: &SweepStep| (x.achieved_rps, x.p99_us as f64 / 1000.0);
                chart
                    .series
                    .push(Series::line(c, steps.iter().map(|x| at(x)).collect()));
                let (held, lost): (Vec<&&SweepStep>, Vec<&&SweepStep>) =
                    steps.iter().partition(|x| x.held);
                chart.series.push(Series::dots(
                    c,
                    held.iter().map(|x| at(x)).collect(),
                    Marker::Dot,
                ));
                chart.series.push(Series::dots(
                    c,
                    lost.iter().map(|x| at(x)).collect(),
                    Marker::Ring,
                ));
                if k == 0 {
                    for x in &steps {
                        if let Some(n) = (self.note)(x) {
                            chart.notes.push((at(x), n));
                        }
                    }
                }
                if !drawn.contains(&t.name) {
                    drawn.push(t.name.clone());
                }
            }
        }
        Figure::of(
            self.kind,
            self.title,
            self.about.clone(),
            legend(s, |t| drawn.contains(&t.name)),
            chart,
        )
    }
}
