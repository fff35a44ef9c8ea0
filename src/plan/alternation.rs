//! How the targets of a round share the target CPUs: one after another (each trial alone),
//! or alternating in short time slices (`runner::alternating`), so that every target of
//! the round sees the same machine. The slice bounds are also what `ab` checks its
//! `--slice` against.
use std::time::Duration;

/// The default slice of a suite's alternating rounds: the targets of a round are different
/// servers, and one that has just had its turn leaves the next a slower start (its
/// garbage collection, the next one's heap shrunk while it idled). Measured on the servers
/// suite (docs/runs/alternating-slices-2026-11-26): at 200 ms slices a target's rate
/// still depended on which target preceded it by up to ±10% past the 50 ms guard, at
/// 400 ms by ±4%, and the rounds' ratios between adjacent targets spread less.
pub const DEFAULT_SLICE: Duration = Duration::from_millis(400);
/// Shortest slice: below it the switch's transient is most of the slice.
pub const MIN_SLICE: Duration = Duration::from_millis(50);

/// Alternating rounds: their slice and the start of each slice not counted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Alternation {
    pub slice: Duration,
    /// The start of each slice whose requests are sent and judged but not counted: the
    /// transient after a switch (a quarter slice, as `ab`'s default).
    pub guard: Duration,
}

impl Alternation {
    pub fn with_slice(slice: Duration) -> Alternation {
        Alternation {
            slice,
            guard: slice / 4,
        }
    }

    /// Own time of one arm in one balanced block (two slices: one in the rotation, one in
    /// its mirror).
    pub fn block_own(&self) -> Duration {
        self.slice * 2
    }

    /// Whole blocks that give each arm at least `own` of its own time (at least one).
    pub fn blocks_for(&self, own: Duration) -> u32 {
        let per = self.block_own().as_secs_f64();
        ((own.as_secs_f64() / per).ceil() as u32).max(1)
    }

    /// Each arm's own time in the whole blocks that hold at least `own`: what a window
    /// asked as `own` measures.
    pub fn whole_blocks(&self, own: Duration) -> Duration {
        self.block_own() * self.blocks_for(own)
    }

    /// Wall time of `blocks` blocks of `arms` arms.
    pub fn wall(&self, blocks: u32, arms: usize) -> Duration {
        self.slice * 2 * arms as u32 * blocks
    }
}

/// Why `slice` cannot be a slice, if it cannot.
pub fn slice_problem(slice: Duration) -> Option<String> {
    (slice < MIN_SLICE || slice > gqlbench_engine::MAX_SLICE).then(|| {
        format!(
            "give {} ms to {} s: shorter slices are mostly switching, longer ones no alternation; e.g. 200ms",
            MIN_SLICE.as_millis(),
            gqlbench_engine::MAX_SLICE.as_secs()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_blocks_cover_the_own_time_asked_for() {
        let a = Alternation::with_slice(Duration::from_millis(200));
        assert_eq!(a.guard, Duration::from_millis(50));
        // 1 s of own time at 400 ms a block: 3 blocks (1.2 s).
        assert_eq!(a.blocks_for(Duration::from_secs(1)), 3);
        assert_eq!(a.blocks_for(Duration::from_millis(800)), 2);
        assert_eq!(a.blocks_for(Duration::ZERO), 1);
        // 3 blocks of 5 arms: 30 slices of 200 ms.
        assert_eq!(a.wall(3, 5), Duration::from_secs(6));
    }

    #[test]
    fn slices_outside_the_bounds_are_refused() {
        assert!(slice_problem(Duration::from_millis(49)).is_some());
        assert!(slice_problem(Duration::from_millis(50)).is_none());
        assert!(slice_problem(Duration::from_secs(61)).is_some());
    }
}
