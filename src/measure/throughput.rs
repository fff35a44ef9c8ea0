//! A closed-model trial's req/s: the count of answered requests over the counted time, as
//! the engine gives it, or the rate from the requests' own timing (`LoadResult::timed_rps`)
//! when the count is coarse; and the step that figure is known to (`rps_resolution`), which
//! a row's interval is never narrower than (`summary::resolution`).
//!
//! Why: a count moves in steps of one request per connection at each edge of the counted
//! time. 20 connections whose answers take 0.6 s count 40 requests in every 1-s window
//! (each sends at 0 and 0.6 s), so three trials agree exactly, "40.0 [40.0 – 40.0]", while
//! the connections got through 33.7 a second (docs/runs/federation-quick-2026-11-26,
//! hive-gateway). The timing counts the request cut by the window's end in part.
use gqlbench_engine::LoadResult;

/// The count's step above which a trial's req/s is taken from the requests' timing: 1%, so
/// fewer than 100 requests per connection slot in the window. A trial whose connections all
/// start at the window's start (after a separate warm-up, as `run` measures) counts each
/// slot's last request whole, half a request more than its share on average: at a step of
/// 1% that is +0.5%, a quarter of the tightest precision a profile asks for (full: ±2%).
/// Above it the timing is taken; below, the count stays, so fast rows are counted as every
/// load tool counts them (the two agree within the step there: docs/method.md, "The load").
pub const COARSE: f64 = 0.01;

/// Where `throughput_rps` comes from when it is the timing's, in `rps_source`.
pub const TIMING: &str = "timing";

/// Chooses a measured run's req/s and records its step. A closed-model run measured alone
/// takes the timing's rate when the count is coarse. A sliced run (a round's targets
/// alternating) keeps its count, `sliced`: its per-slice counts are what the slices' own
/// figures (`load.slices`) and their readers use, and a trial's figure over the same
/// slices must agree with them; its step is then what the count's edges were measured to
/// do against the timing (at most the count's step), since each slice's edges would
/// otherwise make the bound many times the edges' real effect on a server that answers
/// its connections one after another.
pub fn choose(load: &mut LoadResult, sliced: bool) {
    let Some(step) = load.count_resolution.filter(|_| load.model == "closed") else {
        return;
    };
    let count = load.throughput_rps;
    let timed = load.timed_rps.filter(|t| *t > 0.0 && t.is_finite());
    match timed {
        Some(t) if !sliced && step > COARSE => {
            load.throughput_rps = t;
            load.rps_source = Some(TIMING.into());
            load.rps_resolution = Some(0.0);
        }
        // What the count's edges did in this trial: its distance from the timing's rate,
        // which has no step (within the count's bound, whatever noise the two add).
        Some(t) => load.rps_resolution = Some(step.min((count / t - 1.0).abs())),
        None => load.rps_resolution = Some(step),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(requests: u64, count_rps: f64, step: f64, timed: Option<f64>) -> LoadResult {
        LoadResult {
            model: "closed".into(),
            requests,
            throughput_rps: count_rps,
            count_resolution: Some(step),
            timed_rps: timed,
            ..Default::default()
        }
    }

    #[test]
    fn a_coarse_count_gives_way_to_the_timing_and_a_fine_one_stays() {
        // 20 connections, 40 requests in 1 s: a step of 50%.
        let mut slow = load(40, 40.0, 0.5, Some(33.7));
        choose(&mut slow, false);
        assert_eq!(slow.throughput_rps, 33.7);
        assert_eq!(slow.rps_source.as_deref(), Some(TIMING));
        assert_eq!(slow.rps_resolution, Some(0.0));
        // 20 connections, 4,000 requests: a step of 0.5%, the count stays; its step is what
        // the edges did, at most the bound.
        let mut fast = load(4_000, 4_000.0, 0.005, Some(3_990.0));
        choose(&mut fast, false);
        assert_eq!(fast.throughput_rps, 4_000.0);
        assert_eq!(fast.rps_source, None);
        let r = fast.rps_resolution.expect("judged");
        assert!((r - (4_000.0 / 3_990.0 - 1.0)).abs() < 1e-12, "{r}");
        let mut wild = load(4_000, 4_000.0, 0.005, Some(3_000.0));
        choose(&mut wild, false);
        assert_eq!(wild.rps_resolution, Some(0.005));
    }

    #[test]
    fn sliced_trials_and_runs_without_a_timing_keep_the_count() {
        let mut sliced = load(400, 1_333.0, 0.2, Some(1_200.0));
        choose(&mut sliced, true);
        assert_eq!(sliced.throughput_rps, 1_333.0);
        assert_eq!(sliced.rps_source, None);
        let r = sliced.rps_resolution.expect("judged");
        assert!((r - (1_333.0 / 1_200.0 - 1.0)).abs() < 1e-12, "{r}");
        let mut untimed = load(40, 40.0, 0.5, None);
        choose(&mut untimed, false);
        assert_eq!(
            (untimed.throughput_rps, untimed.rps_resolution),
            (40.0, Some(0.5))
        );
        // The open model's count is its arrival rate's: nothing to judge.
        let mut open = LoadResult {
            model: "open".into(),
            ..load(40, 40.0, 0.5, Some(33.0))
        };
        open.count_resolution = None;
        choose(&mut open, false);
        assert_eq!((open.throughput_rps, open.rps_resolution), (40.0, None));
    }
}
