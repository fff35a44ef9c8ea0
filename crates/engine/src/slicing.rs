//! Time slicing of a load run, for comparing builds of a server (arms) run side by side:
//! the runs of all arms share one clock of short slices, and each slice belongs to one
//! arm, whose run alone sends during it. Slices come in balanced blocks (for two arms ABBA
//! or BAAB), so a drift that is linear over a block weighs on every arm alike; which order
//! a block takes is drawn from a seed, the same for every arm, so the runs agree on it
//! without talking to each other.
//!
//! Plain data and arithmetic on instants: the load code (`load`) asks it which slice an
//! instant lies in and when its arm may send next.

use std::time::{Duration, Instant};

use crate::error::EngineError;

/// Shortest slice accepted: below it, a switch of arms (and the timer's resolution) would
/// take a large part of every slice.
pub const MIN_SLICE: Duration = Duration::from_millis(20);
/// Longest slice accepted: slices are meant to be short (so both arms see the same
/// conditions), and the result profiles a slice in bins of 10 ms.
pub const MAX_SLICE: Duration = Duration::from_secs(60);
/// Most arms a slicing takes: a block's order is drawn on the stack, per request, in an
/// array this long.
pub const MAX_ARMS: usize = 64;

/// The time slices a run of one arm sends in (see the module's description).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slicing {
    /// Slice 0 starts here. The runs of all arms get the same epoch so their slices line up.
    pub epoch: Instant,
    /// Length of a slice (at least [`MIN_SLICE`]).
    pub length: Duration,
    /// Requests sent in the first `guard` of an own slice are sent and checked but not
    /// counted (like warm-up requests): the transient after a switch of arms.
    pub guard: Duration,
    /// This run's arm, `< arms`.
    pub arm: usize,
    /// Number of arms (at least 2).
    pub arms: usize,
    /// Chooses each block's order; all arms must use the same seed.
    pub seed: u64,
}

impl Slicing {
    /// The slice `t` lies in; None before the epoch.
    pub fn index_at(&self, t: Instant) -> Option<u64> {
        let since = t.checked_duration_since(self.epoch)?;
        let i = since.as_nanos() / self.length.as_nanos().max(1);
        Some(u64::try_from(i).unwrap_or(u64::MAX))
    }

    /// The arm slice `index` belongs to. Block `b` (of `2 * arms` slices) is an order
    /// `p` of the arms, a permutation drawn from the seed and `b`, followed by `p`
    /// reversed: every arm has two slices per block, placed symmetrically about its middle.
    /// Drawn anew per block, so which arm precedes which varies: what one arm leaves behind
    /// in the next one's slice (its garbage collection, its cold caches) falls on every
    /// arm alike, not always on the same neighbour.
    pub fn arm_of(&self, index: u64) -> usize {
        let arms = self.arms.max(1) as u64;
        let block_len = arms.saturating_mul(2);
        let (block, pos) = (index / block_len, index % block_len);
        let pos = if pos < arms { pos } else { block_len - 1 - pos };
        // Fisher–Yates on the stack (this runs for every request sent), stopped once
        // position `pos` is drawn; `check` keeps `arms` within the array.
        let arms = arms.min(MAX_ARMS as u64);
        let mut order = [0u8; MAX_ARMS];
        for (i, o) in order.iter_mut().enumerate().take(arms as usize) {
            *o = i as u8;
        }
        let mut state = splitmix64(self.seed ^ splitmix64(block));
        for i in 0..=(pos.min(arms - 1)) as usize {
            state = splitmix64(state);
            let j = i + (state % (arms - i as u64)) as usize;
            order.swap(i, j);
        }
        order[pos.min(arms - 1) as usize] as usize
    }

    /// When slice `index` starts.
    pub fn slice_start(&self, index: u64) -> Instant {
        let nanos = self.length.as_nanos().saturating_mul(index as u128);
        let offset = Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX));
        // Far beyond any run; an instant that far out only stands for "never".
        self.epoch
            .checked_add(offset)
            .unwrap_or_else(|| self.epoch + MAX_SLICE * 1_000_000)
    }

    /// Start of the first slice of this arm that starts at or after `t` (so, inside an own
    /// slice, the start of the next one).
    pub fn next_own_start(&self, t: Instant) -> Instant {
        let mut i = match self.index_at(t) {
            None => 0,
            Some(i) if self.slice_start(i) == t => i,
            Some(i) => i.saturating_add(1),
        };
        // Every run of 2 * arms consecutive slices holds a slice of each arm.
        for _ in 0..self.arms.max(1).saturating_mul(4) {
            if self.arm_of(i) == self.arm {
                break;
            }
            i = i.saturating_add(1);
        }
        self.slice_start(i)
    }

    /// The own slice `t` lies in and how far into it: None before the epoch or in another
    /// arm's slice.
    pub fn own_position(&self, t: Instant) -> Option<(u64, Duration)> {
        let i = self.index_at(t)?;
        (self.arm_of(i) == self.arm).then(|| (i, t.saturating_duration_since(self.slice_start(i))))
    }

    /// End of the run of own slices `t` lies in (the next slice may be this arm's too: a
    /// block's middle, or a block ending where the next starts with the same arm); None
    /// outside own slices. A closed-model connection stops sending about one answer's time
    /// before it, so its requests are answered before another arm's slice begins.
    pub fn own_run_end(&self, t: Instant) -> Option<Instant> {
        let (mut i, _) = self.own_position(t)?;
        // Every run of 2 * arms consecutive slices holds a slice of each arm.
        for _ in 0..self.arms.max(1).saturating_mul(2) {
            if self.arm_of(i.saturating_add(1)) != self.arm {
                break;
            }
            i = i.saturating_add(1);
        }
        Some(self.slice_start(i.saturating_add(1)))
    }

    /// Whether a request sent at `t` counts: in an own slice, past its guard.
    pub fn counts_at(&self, t: Instant) -> bool {
        self.own_position(t).is_some_and(|(_, at)| at >= self.guard)
    }

    /// Refuses slicings that cannot work; the message names the problem.
    pub fn check(&self) -> Result<(), EngineError> {
        let bad = |m: String| Err(EngineError::InvalidPlan(m));
        if self.arms < 2 {
            return bad(format!("slicing needs at least 2 arms (got {})", self.arms));
        }
        if self.arms > MAX_ARMS {
            return bad(format!(
                "slicing takes at most {MAX_ARMS} arms (got {})",
                self.arms
            ));
        }
        if self.arm >= self.arms {
            return bad(format!(
                "slicing: arm {} is not one of the {} arms (0 to {})",
                self.arm,
                self.arms,
                self.arms - 1
            ));
        }
        if self.length < MIN_SLICE || self.length > MAX_SLICE {
            return bad(format!(
                "slicing: a slice must last from {MIN_SLICE:?} to {MAX_SLICE:?} (got {:?})",
                self.length
            ));
        }
        if self.guard >= self.length {
            return bad(format!(
                "slicing: the guard ({:?}) must be shorter than the slice ({:?}), or nothing is counted",
                self.guard, self.length
            ));
        }
        Ok(())
    }
}

/// A fixed, well-mixing hash of 64 bits (SplitMix64's finalizer): the same order of blocks
/// on every machine and in every arm's run, without a shared random generator.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slicing(arm: usize, arms: usize) -> Slicing {
        Slicing {
            epoch: Instant::now(),
            length: Duration::from_millis(100),
            guard: Duration::from_millis(10),
            arm,
            arms,
            seed: 7,
        }
    }

    #[test]
    fn an_own_run_ends_where_another_arm_begins() {
        let s = slicing(1, 2);
        let ms = Duration::from_millis;
        let mut runs = 0;
        for i in 0..200u64 {
            let at = s.slice_start(i) + ms(30);
            let Some(end) = s.own_run_end(at) else {
                assert_ne!(s.arm_of(i), 1, "slice {i} is own");
                continue;
            };
            assert_eq!(s.arm_of(i), 1);
            let last = s.index_at(end - ms(1)).expect("after the epoch");
            assert!(last >= i && last <= i + 1, "a run holds at most two slices");
            assert!((i..=last).all(|k| s.arm_of(k) == 1), "the run is own");
            assert_ne!(s.arm_of(last + 1), 1, "the run ends at another arm's slice");
            runs += (last > i) as u32;
        }
        // Blocks ABBA: the middle pair is one run.
        assert!(runs > 0);
    }

    #[test]
    fn every_block_is_a_permutation_then_its_mirror() {
        for arms in 2..6usize {
            let s = slicing(0, arms);
            let mut orders = std::collections::HashSet::new();
            let mut preceded = std::collections::HashSet::new();
            for b in 0..200u64 {
                let n = 2 * arms as u64;
                let block: Vec<usize> = (b * n..(b + 1) * n).map(|i| s.arm_of(i)).collect();
                let (p, q) = block.split_at(arms);
                let back: Vec<usize> = q.iter().rev().copied().collect();
                assert_eq!(p, &back[..], "mirror: {block:?}");
                let mut sorted = p.to_vec();
                sorted.sort();
                assert_eq!(
                    sorted,
                    (0..arms).collect::<Vec<_>>(),
                    "permutation {block:?}"
                );
                preceded.extend(p.windows(2).map(|w| (w[0], w[1])));
                orders.insert(block);
            }
            // Every arm is preceded by every other at some block, and the seed draws more
            // than one order (every one of them for 2 and 3 arms).
            assert_eq!(preceded.len(), arms * (arms - 1), "arms {arms}");
            if arms <= 3 {
                assert_eq!(orders.len(), (1..=arms).product::<usize>(), "{orders:?}");
            }
        }
        // Two arms: ABBA or BAAB, the same for the same seed, another for another seed.
        let a = slicing(0, 2);
        let other = Slicing { seed: 8, ..a };
        let order = |s: &Slicing| (0..400).map(|i| s.arm_of(i)).collect::<Vec<_>>();
        assert_eq!(order(&a), order(&Slicing { arm: 1, ..a }));
        assert_ne!(order(&a), order(&other));
    }

    #[test]
    fn instants_map_to_slices_and_own_starts() {
        let s = slicing(1, 2);
        let ms = Duration::from_millis;
        assert_eq!(s.index_at(s.epoch), Some(0));
        assert_eq!(s.index_at(s.epoch + ms(250)), Some(2));
        assert_eq!(s.index_at(s.epoch - ms(1)), None);
        assert_eq!(s.slice_start(3), s.epoch + ms(300));
        for t in (0..2000).step_by(7).map(|m| s.epoch + ms(m)) {
            let next = s.next_own_start(t);
            assert!(next >= t);
            let i = s.index_at(next).expect("after the epoch");
            assert_eq!(s.arm_of(i), 1);
            assert_eq!(s.slice_start(i), next);
            // No own slice starts in between.
            let from = s.index_at(t).expect("after the epoch");
            for j in from..i {
                assert!(s.slice_start(j) < t || s.arm_of(j) != 1);
            }
            let own = s.own_position(t);
            assert_eq!(own.is_some(), s.arm_of(from) == 1);
            assert_eq!(s.counts_at(t), own.is_some_and(|(_, at)| at >= ms(10)));
        }
        assert!(s.next_own_start(s.epoch - ms(500)) >= s.epoch);
    }

    #[test]
    fn bad_slicings_are_refused() {
        let ok = slicing(1, 2);
        assert!(ok.check().is_ok());
        let ms = Duration::from_millis;
        for (bad, says) in [
            (
                Slicing {
                    arms: 1,
                    arm: 0,
                    ..ok
                },
                "at least 2 arms",
            ),
            (Slicing { arm: 2, ..ok }, "not one of the 2 arms"),
            (
                Slicing {
                    length: ms(19),
                    ..ok
                },
                "a slice must last",
            ),
            (
                Slicing {
                    guard: ms(100),
                    ..ok
                },
                "guard",
            ),
        ] {
            let e = bad.check().expect_err("refused").to_string();
            assert!(e.contains(says), "{e}");
        }
    }
}
