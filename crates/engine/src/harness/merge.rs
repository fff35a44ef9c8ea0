//! Merging what the workers recorded: each worker keeps plain counters and histograms of
//! its own (no sharing on the hot path), and the harness folds them into one record once
//! the workers are joined. Histograms are merged, never percentiles averaged; per-second
//! series add up second by second; failure examples are trimmed to the first few of each
//! kind over all workers, in worker order.

use std::collections::BTreeMap;

use hdrhistogram::{Counter, Histogram};

/// A record that absorbs another worker's record of the same run.
pub(crate) trait Merge {
    fn merge(&mut self, other: Self);
}

impl Merge for u64 {
    fn merge(&mut self, other: u64) {
        *self += other;
    }
}

impl<T: Counter> Merge for Histogram<T> {
    fn merge(&mut self, other: Histogram<T>) {
        // The engine's histograms auto-resize, so they accept any other histogram.
        let _ = self.add(&other);
    }
}

/// A histogram created on first use (a second or connection that saw nothing has none).
impl<T: Counter> Merge for Option<Histogram<T>> {
    fn merge(&mut self, other: Option<Histogram<T>>) {
        match (self.as_mut(), other) {
            (Some(a), Some(b)) => a.merge(b),
            (None, b) => *self = b,
            (Some(_), None) => {}
        }
    }
}

impl<const K: usize> Merge for [u64; K] {
    fn merge(&mut self, other: [u64; K]) {
        for (a, b) in self.iter_mut().zip(other) {
            *a += b;
        }
    }
}

/// Element by element; the longer series sets the length (a worker that saw nothing in
/// the last seconds has a shorter one).
impl<T: Merge + Default> Merge for Vec<T> {
    fn merge(&mut self, other: Vec<T>) {
        if other.len() > self.len() {
            self.resize_with(other.len(), T::default);
        }
        for (a, b) in self.iter_mut().zip(other) {
            a.merge(b);
        }
    }
}

/// Folds the workers' records into the first one.
pub(crate) fn merge_all<R: Merge>(recs: impl IntoIterator<Item = R>) -> Option<R> {
    let mut recs = recs.into_iter();
    let mut first = recs.next()?;
    for r in recs {
        first.merge(r);
    }
    Some(first)
}

/// The first `per_key` items of each key, in their order.
pub(crate) fn keep_first<T, K: Ord>(
    items: Vec<T>,
    per_key: usize,
    key: impl Fn(&T) -> K,
) -> Vec<T> {
    let mut kept: BTreeMap<K, usize> = BTreeMap::new();
    items
        .into_iter()
        .filter(|item| {
            let n = kept.entry(key(item)).or_insert(0);
            *n += 1;
            *n <= per_key
        })
        .collect()
}

/// The non-zero counts of `counts` (indexed by `index`), keyed by kind.
pub(crate) fn by_kind<K: Copy + Ord>(
    all: &[K],
    counts: &[u64],
    index: impl Fn(K) -> usize,
) -> BTreeMap<K, u64> {
    all.iter()
        .filter(|k| counts[index(**k)] > 0)
        .map(|k| (*k, counts[index(*k)]))
        .collect()
}

/// Share `i` of `total` split over `n` workers (the first `total % n` get one more).
pub(crate) fn share(total: u64, n: usize, i: usize) -> u64 {
    total / n as u64 + u64::from((i as u64) < total % n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hist;

    #[test]
    fn series_grow_to_the_longest_and_add_up() {
        let mut a: Vec<u64> = vec![1, 2];
        a.merge(vec![10, 20, 30]);
        assert_eq!(a, vec![11, 22, 30]);
        let mut counts = [1u64, 0, 2];
        counts.merge([0, 5, 1]);
        assert_eq!(counts, [1, 5, 3]);
    }

    #[test]
    fn histograms_created_on_first_use_merge_whichever_side_has_one() {
        let h = |v: u64| {
            let mut h = hist::new_small(2);
            hist::record(&mut h, v);
            Some(h)
        };
        let mut none: Option<Histogram<u32>> = None;
        none.merge(h(7));
        assert_eq!(none.as_ref().map(|h| h.len()), Some(1));
        let mut some = h(5);
        some.merge(None);
        some.merge(h(9_000));
        let merged = some.expect("kept");
        assert_eq!(merged.len(), 2);
        assert!(merged.max() >= 8_990);
    }

    #[test]
    fn merging_is_the_same_in_any_grouping() {
        let parts = || vec![vec![1u64, 2], vec![3], vec![4, 5, 6]];
        let left = merge_all(parts());
        let mut right = parts();
        let last = right.pop().expect("three parts");
        let mut tail = right.pop().expect("two parts");
        tail.merge(last);
        right.push(tail);
        assert_eq!(left, merge_all(right));
        assert_eq!(left, Some(vec![8, 7, 6]));
        assert_eq!(merge_all(Vec::<u64>::new()), None);
    }

    #[test]
    fn examples_are_the_first_few_of_each_kind() {
        let items = vec![("a", 1), ("b", 2), ("a", 3), ("a", 4), ("b", 5)];
        let kept = keep_first(items, 2, |(k, _)| *k);
        assert_eq!(kept, vec![("a", 1), ("b", 2), ("a", 3), ("b", 5)]);
    }

    #[test]
    fn shares_differ_by_at_most_one_and_sum_to_the_total() {
        let shares: Vec<u64> = (0..3).map(|i| share(10, 3, i)).collect();
        assert_eq!(shares, vec![4, 3, 3]);
        assert_eq!((0..4).map(|i| share(2, 4, i)).sum::<u64>(), 2);
    }
}
