//! The run's one time budget (the profile's `max_time`, or `--max-time`), counted from the
//! end of the installs and shared by every scenario. Each scenario always does its minimum
//! (its `trials` rounds of every target; a rate sweep's probe and first two steps); what it
//! does beyond (rounds added for precision, repeated disturbed trials, a sweep's further
//! steps) stops once the rest of the budget is what the later scenarios need at least.
//!
//! That need is estimated from the plan's nominal seconds and learned as the run goes: the
//! wall time trials took against their nominal length (warm-ups until steady, connecting,
//! drains and window extensions are not in it) and what starting and checking a target took.
//! The default scope is chosen at the start on guesses (`scope`); a scenario they left out
//! comes back once the learned figures show its minimum fits (`fits_after_all`). What a
//! scenario costs beyond its trials and starts (checks, canaries, stopping its processes) is
//! learned too: a scenario that did its minimum and took longer than its estimate scales
//! every later estimate (`record_scenario`), so the last scenario brought back cannot
//! overrun the budget by what the estimates leave out.
use std::time::{Duration, Instant};

use crate::plan::ScenarioPlan;

/// Seconds to start and check one target, until the run has timed some, on the reference
/// machine (a Node server starts in 0.3–0.5 s there and its answers are checked in a few
/// hundred ms); a probe that finds the machine slower scales it (`with_machine`).
const START_GUESS_S: f64 = 1.5;
/// Seconds an alternating round waits for its runs to connect before its clock starts
/// (`alternate::CONNECT_ALLOWANCE`), plus its drain.
const ROUND_OVERHEAD_S: f64 = 1.0;
/// Wall seconds per nominal second of a trial, until the run has timed some: a closed
/// trial warms up until steady (up to its `warmup_max`), connects and drains.
const PACE_GUESS: f64 = 1.3;
/// A scenario left out at the start is measured after all only when its minimum with this
/// much to spare fits: its own kind's pace has not been timed yet (a cold start's or a
/// subscription's trial is not a throughput round's), and the budget must hold.
const READMIT_MARGIN: f64 = 1.2;

#[derive(Debug)]
pub struct Budget {
    started: Instant,
    total: Option<Duration>,
    nominal_s: f64,
    actual_s: f64,
    starts: u32,
    start_s: f64,
    /// The run's alternation (a round's targets together), for the rounds' lengths.
    alternation: Option<crate::plan::alternation::Alternation>,
    /// How much slower than the reference machine the start's probe found this one.
    slowdown: f64,
    /// Scenarios that did their minimum: their estimates (at the pace learned by their end)
    /// and the wall time they took.
    scenario_est_s: f64,
    scenario_actual_s: f64,
}

impl Budget {
    /// A budget of `total` from now (None: no limit).
    pub fn new(total: Option<Duration>) -> Budget {
        Budget {
            started: Instant::now(),
            total,
            nominal_s: 0.0,
            actual_s: 0.0,
            starts: 0,
            start_s: 0.0,
            alternation: None,
            slowdown: 1.0,
            scenario_est_s: 0.0,
            scenario_actual_s: 0.0,
        }
    }

    /// The run's alternation and the machine's slowdown against the reference (the start's
    /// probe), which its estimates use until it has timed its own trials and starts.
    pub fn with_machine(
        mut self,
        alternation: Option<crate::plan::alternation::Alternation>,
        slowdown: f64,
    ) -> Budget {
        self.alternation = alternation;
        self.slowdown = slowdown.max(1.0);
        self
    }

    pub fn total(&self) -> Option<Duration> {
        self.total
    }

    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Wall seconds per nominal second of the trials timed so far (at least 1).
    pub fn pace(&self) -> f64 {
        if self.nominal_s > 0.0 {
            (self.actual_s / self.nominal_s).max(1.0)
        } else {
            PACE_GUESS
        }
    }

    /// The slowdown the start's probe found (1 on the reference machine).
    pub fn slowdown(&self) -> f64 {
        self.slowdown
    }

    /// Seconds starting and checking a target took, on average so far.
    pub fn start_s(&self) -> f64 {
        if self.starts > 0 {
            self.start_s / self.starts as f64
        } else {
            START_GUESS_S * self.slowdown
        }
    }

    /// A trial of `nominal` seconds took `actual`.
    pub fn record_trial(&mut self, nominal: f64, actual: Duration) {
        if nominal > 0.0 {
            self.nominal_s += nominal;
            self.actual_s += actual.as_secs_f64();
        }
    }

    /// Starting and checking a target took `actual`.
    pub fn record_start(&mut self, actual: Duration) {
        self.starts += 1;
        self.start_s += actual.as_secs_f64();
    }

    /// A scenario that did its minimum and no more, estimated at `estimated_s`
    /// (`estimate_s` at its end), took `actual` in all.
    pub fn record_scenario(&mut self, estimated_s: f64, actual: Duration) {
        if estimated_s > 0.0 {
            self.scenario_est_s += estimated_s;
            self.scenario_actual_s += actual.as_secs_f64();
        }
    }

    /// Wall time of the scenarios that did their minimum over their estimates (at least 1;
    /// 1 until one has).
    pub fn overrun(&self) -> f64 {
        if self.scenario_est_s > 0.0 {
            (self.scenario_actual_s / self.scenario_est_s).max(1.0)
        } else {
            1.0
        }
    }

    /// The least time `sp` takes at the pace measured so far: its minimum rounds of every
    /// target that starts (`ScenarioPlan::running_targets`), each target started (for every round, when the rounds race and start fresh
    /// processes) and, alternating, each round its warm-up (fresh processes) and window in
    /// whole blocks of every target's slices.
    pub fn minimum_s<K: ?Sized>(&self, sp: &ScenarioPlan<K>) -> f64 {
        self.estimate_s(sp) * self.overrun()
    }

    /// `minimum_s` from the trials' pace and the starts alone.
    pub fn estimate_s<K: ?Sized>(&self, sp: &ScenarioPlan<K>) -> f64 {
        let n = sp.running_targets();
        let rounds = sp.needs.budget_trials.max(1);
        let races = sp.races();
        let starts = if races { rounds } else { 1 };
        let start = n as f64 * starts as f64 * self.start_s();
        let load = match self.alternation.filter(|_| sp.needs.alternates && n >= 2) {
            Some(alt) => {
                let warm = alt.wall(alt.blocks_for(sp.warmup.max(sp.warmup_max)), n);
                let window = alt.wall(alt.blocks_for(sp.duration), n).as_secs_f64();
                let fresh = if races { rounds } else { 1 };
                fresh as f64 * warm.as_secs_f64() + rounds as f64 * (window + ROUND_OVERHEAD_S)
            }
            None => n as f64 * sp.needs.min_trial_secs * rounds as f64,
        };
        // Targets that name their own warm-up (a JVM) run it alone on each fresh process.
        start + (load + sp.own_warmup_s(0..sp.targets.len()) * starts as f64) * self.pace()
    }

    /// The least time `scenarios` take together.
    pub fn minimum_of<K: ?Sized>(&self, scenarios: &[&ScenarioPlan<K>]) -> f64 {
        scenarios.iter().map(|s| self.minimum_s(s)).sum()
    }

    /// Which of `scenarios` the run keeps so that their minimums fit the budget, when they
    /// do not all fit: the scenarios whose rounds race (the rankings) before the others
    /// (cold starts, subscriptions), each group's first ones kept, and never none (the
    /// first one always runs). All of them without a budget or when they fit.
    pub fn scope<K: ?Sized>(&self, scenarios: &[ScenarioPlan<K>]) -> Vec<bool> {
        let mut keep = vec![true; scenarios.len()];
        let Some(total) = self.total.map(|t| t.as_secs_f64()) else {
            return keep;
        };
        let need = |keep: &[bool]| -> f64 {
            scenarios
                .iter()
                .zip(keep)
                .filter(|(_, k)| **k)
                .map(|(s, _)| self.minimum_s(s))
                .sum()
        };
        // The order of leaving: the others from the last, then the races from the last.
        let mut order: Vec<usize> = (0..scenarios.len())
            .rev()
            .filter(|&i| !scenarios[i].races())
            .collect();
        order.extend((0..scenarios.len()).rev().filter(|&i| scenarios[i].races()));
        for i in order {
            if need(&keep) <= total || keep.iter().filter(|k| **k).count() <= 1 {
                break;
            }
            keep[i] = false;
        }
        keep
    }

    /// Whether `next`, which the start's estimates left out of the scope, fits after all:
    /// its minimum (with [`READMIT_MARGIN`]) and the minimums of `later` (the scenarios
    /// still to run) within what is left of the budget, at the pace and start time this
    /// run has measured. Never before it has timed a trial and a start: until then its
    /// figures are the start's guesses, which left `next` out.
    pub fn fits_after_all<K: ?Sized>(
        &self,
        next: &ScenarioPlan<K>,
        later: &[&ScenarioPlan<K>],
    ) -> bool {
        let Some(total) = self.total else {
            return true;
        };
        if self.nominal_s <= 0.0 || self.starts == 0 {
            return false;
        }
        let left = total.as_secs_f64() - self.elapsed().as_secs_f64();
        self.minimum_s(next) * READMIT_MARGIN + self.minimum_of(later) <= left
    }

    /// When work beyond the minimum must stop in scenario `this`, which `later` follow,
    /// starting now: after its own minimum and its share of what the budget holds beyond
    /// every minimum, so that the first scenarios do not spend it all; a share one leaves
    /// unused goes to those after it. Shares are in proportion to the minimums: a round
    /// of eight targets costs four times one of two, and an even share gave the six
    /// gateways of efficiency-20 5 rounds while the two scenarios after it, of one and two
    /// targets, left most of theirs unused (docs/runs/own-graph-chain-efficiency-2026-11-30:
    /// 3 min 35 s of 12 used, three pairs open). Never past the end of the budget less what
    /// the later scenarios need at least. None without a budget.
    pub fn deadline<K: ?Sized>(
        &self,
        this: &ScenarioPlan<K>,
        later: &[&ScenarioPlan<K>],
    ) -> Option<Instant> {
        self.deadline_from(
            Instant::now(),
            self.minimum_s(this),
            self.minimum_of(later),
            later.len(),
        )
    }

    /// `deadline` with its figures given: the scenario's minimum, the later ones' together
    /// and how many they are.
    fn deadline_from(
        &self,
        now: Instant,
        own_min_s: f64,
        later_min_s: f64,
        later: usize,
    ) -> Option<Instant> {
        let end = self.started + self.total?;
        let need = Duration::from_secs_f64(later_min_s);
        let latest = end
            .checked_sub(need)
            .unwrap_or(self.started)
            .max(self.started);
        let left = latest.saturating_duration_since(now).as_secs_f64();
        let spare = (left - own_min_s).max(0.0);
        let share = if own_min_s + later_min_s > 0.0 {
            spare * own_min_s / (own_min_s + later_min_s)
        } else {
            spare / (1 + later) as f64
        };
        Some((now + Duration::from_secs_f64(own_min_s + share)).min(latest))
    }

    /// The line printed before the first scenario: what the run needs at least, and the
    /// budget that what it does beyond that shares.
    pub fn expectation<K: ?Sized>(&self, scenarios: &[&ScenarioPlan<K>]) -> String {
        let min = crate::units::fmt_minutes(self.minimum_of(scenarios));
        match self.total {
            None => format!(
                "expected time: about {min} for every scenario's minimum (no time budget: rounds are added until each is decided or at its most)"
            ),
            Some(t) if self.minimum_of(scenarios) > t.as_secs_f64() => format!(
                "expected time: about {min}, beyond the {} budget: every scenario does its minimum and adds nothing (fewer --scenarios or --targets, or a larger --max-time)",
                crate::units::fmt_minutes(t.as_secs_f64())
            ),
            Some(t) => format!(
                "expected time: {min} to {} (every scenario's minimum, then rounds and sweep steps added within the budget)",
                crate::units::fmt_minutes(t.as_secs_f64())
            ),
        }
    }
}

/// Whether `secs` more fit before `deadline` (always, without one).
pub fn fits(deadline: Option<Instant>, secs: f64) -> bool {
    deadline.is_none_or(|d| Instant::now() + Duration::from_secs_f64(secs.max(0.0)) <= d)
}

/// The deadline of one trial when `trials_left` trials (this one included) share what is
/// left before `deadline`.
pub fn share(deadline: Option<Instant>, trials_left: u32) -> Option<Instant> {
    let d = deadline?;
    let now = Instant::now();
    Some(now + d.saturating_duration_since(now) / trials_left.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pace_and_start_time_are_learned_from_what_was_timed() {
        let mut b = Budget::new(Some(Duration::from_secs(600)));
        assert_eq!(b.pace(), PACE_GUESS);
        assert_eq!(b.start_s(), START_GUESS_S);
        b.record_trial(2.0, Duration::from_secs(5));
        b.record_trial(2.0, Duration::from_secs(3));
        assert_eq!(b.pace(), 2.0);
        // Trials never count as faster than nominal: a window is never shorter.
        let mut fast = Budget::new(None);
        fast.record_trial(4.0, Duration::from_secs(1));
        assert_eq!(fast.pace(), 1.0);
        b.record_start(Duration::from_secs(1));
        b.record_start(Duration::from_secs(5));
        assert_eq!(b.start_s(), 3.0);
    }

    #[test]
    fn what_a_minimal_scenario_took_beyond_its_estimate_scales_later_estimates() {
        let mut b = Budget::new(Some(Duration::from_secs(600)));
        assert_eq!(b.overrun(), 1.0);
        // Two scenarios took 50 + 75 s where 40 + 60 were estimated: a quarter longer.
        b.record_scenario(40.0, Duration::from_secs(50));
        b.record_scenario(60.0, Duration::from_secs(75));
        assert!((b.overrun() - 1.25).abs() < 1e-9, "{}", b.overrun());
        // An estimate of nothing (a kind the estimates do not cover) teaches nothing.
        b.record_scenario(0.0, Duration::from_secs(30));
        assert!((b.overrun() - 1.25).abs() < 1e-9, "{}", b.overrun());
        // Quicker than estimated never makes the later ones cheaper than estimated.
        let mut quick = Budget::new(None);
        quick.record_scenario(40.0, Duration::from_secs(20));
        assert_eq!(quick.overrun(), 1.0);
    }

    #[test]
    fn a_scenario_gets_its_minimum_and_its_share_of_the_spare_time() {
        let b = Budget::new(Some(Duration::from_secs(100)));
        let now = b.started;
        let secs = |d: Option<Instant>| d.unwrap().duration_since(now).as_secs_f64();
        // Alone: everything left.
        assert!((secs(b.deadline_from(now, 10.0, 0.0, 0)) - 100.0).abs() < 1e-6);
        // Three later scenarios needing 30 s: 60 s spare, 15 s of it this one's.
        assert!((secs(b.deadline_from(now, 10.0, 30.0, 3)) - 25.0).abs() < 1e-6);
        // A scenario four times the size of the two after it together: 50 s spare, 40 s of
        // it this one's (an even share would give it 25 s).
        assert!((secs(b.deadline_from(now, 40.0, 10.0, 2)) - 80.0).abs() < 1e-6);
        // One twice the size of the later one gets twice its share of the 70 s spare.
        let twice = secs(b.deadline_from(now, 20.0, 10.0, 1)) - 20.0;
        assert!((twice - 70.0 * 2.0 / 3.0).abs() < 1e-6, "{twice}");
        // Minimums of nothing: an even share.
        assert!((secs(b.deadline_from(now, 0.0, 0.0, 1)) - 50.0).abs() < 1e-6);
        // Less left than the minimums: only up to what the later ones need.
        assert!((secs(b.deadline_from(now, 50.0, 80.0, 2)) - 20.0).abs() < 1e-6);
        // Without a budget, no deadline.
        assert!(Budget::new(None).deadline_from(now, 10.0, 0.0, 0).is_none());
        // Past the end: the end less what the later need, never before the start.
        let late = now + Duration::from_secs(150);
        assert_eq!(
            b.deadline_from(late, 10.0, 0.0, 0),
            Some(now + Duration::from_secs(100))
        );
    }

    #[test]
    fn a_trial_gets_its_share_of_what_is_left() {
        assert!(share(None, 3).is_none());
        let d = Instant::now() + Duration::from_secs(30);
        let s = share(Some(d), 3).unwrap();
        let left = s.saturating_duration_since(Instant::now()).as_secs_f64();
        assert!((9.0..=10.0).contains(&left), "{left}");
        assert!(fits(None, 1e9));
        assert!(!fits(Some(Instant::now()), 1.0));
    }
}
