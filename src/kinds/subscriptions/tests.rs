use super::memory_per_1000;

#[test]
fn memory_per_subscription_needs_both_readings() {
    let mib = 1u64 << 20;
    // 10 MiB more for 2,000 held subscriptions: 5 MiB per 1,000.
    assert_eq!(
        memory_per_1000(Some(100 * mib), Some(110 * mib), 2000),
        Some(5 * mib)
    );
    // An unread "before" is not 0: the whole server would count as subscriptions.
    assert_eq!(memory_per_1000(None, Some(110 * mib), 2000), None);
    assert_eq!(memory_per_1000(Some(100 * mib), None, 2000), None);
    assert_eq!(memory_per_1000(Some(100 * mib), Some(110 * mib), 0), None);
}
