//! The switch transient of an alternating run: how long after a switch a side's throughput
//! measurably differs from its steady rate, read from the engine's slice profile (answers
//! by their offset within the side's slices, by arrival as the closed model counts them,
//! in fixed bins, summed over slices). An A/B run leaves that part of every slice
//! uncounted (its guard).

/// The transient in ms: where the run of bins that start the slice differing from the
/// steady level (the mean of the bins of the slice's second half) ends: the first bin from
/// which three bins in a row are within three standard deviations (of the steady bins, at
/// least Poisson's) or `rel` of that level (a lone bin off later in the slice is noise, a GC pause, not the switch). Zero
/// when the slice starts steady; None when the profile is too short or empty to say.
pub fn transient_ms(profile: &[u64], bin_ms: f64, slice_ms: f64, rel: f64) -> Option<f64> {
    // Only whole bins of a slice: a last bin cut by the slice's end holds fewer requests.
    let whole = ((slice_ms / bin_ms).floor() as usize).min(profile.len());
    if whole < 4 {
        return None;
    }
    let half = whole / 2;
    let steady: Vec<f64> = profile[half..whole].iter().map(|&c| c as f64).collect();
    let level = steady.iter().sum::<f64>() / steady.len() as f64;
    if level <= 0.0 {
        return None;
    }
    // The bins' own scatter in the steady half, or Poisson's if larger: answers come in
    // bursts (a GC pause, a timer), so real bins vary more than counts of a steady stream.
    let sd = (steady.iter().map(|c| (c - level).powi(2)).sum::<f64>() / (steady.len() - 1) as f64)
        .sqrt();
    let limit = (3.0 * sd.max(level.sqrt())).max(rel * level);
    let steady = |c: &u64| (*c as f64 - level).abs() <= limit;
    let settled = (0..half)
        .find(|&i| profile[i..(i + 3).min(whole)].iter().all(steady))
        .unwrap_or(half);
    Some(settled as f64 * bin_ms)
}

/// The guard an A/B run keeps after its first pair: the larger side's transient rounded up
/// to whole bins, at most half the slice (more would leave too little of it counted).
pub fn guard_ms(transients: &[Option<f64>], bin_ms: f64, slice_ms: f64) -> Option<f64> {
    let worst = transients
        .iter()
        .flatten()
        .copied()
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))))?;
    let rounded = (worst / bin_ms).ceil() * bin_ms;
    Some(rounded.min(slice_ms / 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_start_after_the_switch_is_found_and_a_flat_profile_has_none() {
        // 20 bins of 10 ms; the first three at half rate, then steady at 1,000.
        let mut p = vec![1000u64; 20];
        p[0] = 500;
        p[1] = 700;
        p[2] = 900;
        assert_eq!(transient_ms(&p, 10.0, 200.0, 0.03), Some(30.0));
        let flat = vec![1000u64; 20];
        assert_eq!(transient_ms(&flat, 10.0, 200.0, 0.03), Some(0.0));
        // Poisson-sized wiggles are not a transient, nor is one bin off later on.
        let wiggle: Vec<u64> = (0..20)
            .map(|i| if i % 2 == 0 { 1010 } else { 990 })
            .collect();
        assert_eq!(transient_ms(&wiggle, 10.0, 200.0, 0.03), Some(0.0));
        let mut pause = vec![1000u64; 20];
        pause[7] = 600;
        assert_eq!(transient_ms(&pause, 10.0, 200.0, 0.03), Some(0.0));
        // A transient that never settles in the first half is the whole half.
        let mut slow = vec![1000u64; 20];
        slow[..10].fill(500);
        assert_eq!(transient_ms(&slow, 10.0, 200.0, 0.03), Some(100.0));
    }

    #[test]
    fn too_short_or_empty_profiles_say_nothing_and_a_cut_last_bin_is_ignored() {
        assert_eq!(transient_ms(&[], 10.0, 200.0, 0.03), None);
        assert_eq!(transient_ms(&[5, 5, 5], 10.0, 200.0, 0.03), None);
        assert_eq!(transient_ms(&[0; 20], 10.0, 200.0, 0.03), None);
        // A 205 ms slice: bin 20 holds half a bin; it is not part of the steady level.
        let mut p = vec![1000u64; 21];
        p[20] = 500;
        assert_eq!(transient_ms(&p, 10.0, 205.0, 0.03), Some(0.0));
    }

    #[test]
    fn the_guard_is_the_worse_side_rounded_up_and_capped_at_half_a_slice() {
        assert_eq!(guard_ms(&[Some(12.0), Some(30.0)], 10.0, 200.0), Some(30.0));
        assert_eq!(guard_ms(&[Some(12.0), None], 10.0, 200.0), Some(20.0));
        assert_eq!(
            guard_ms(&[Some(180.0), Some(0.0)], 10.0, 200.0),
            Some(100.0)
        );
        assert_eq!(guard_ms(&[None, None], 10.0, 200.0), None);
    }
}
