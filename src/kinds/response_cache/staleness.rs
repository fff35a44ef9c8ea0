//! The staleness check: a write through the cached target, then reads until the cache
//! answers with the new data (or its time to live runs out), timed.
use super::*;

/// What one read of the staleness check answered.
pub(super) enum Read {
    Before,
    After,
    Other(String),
}

pub(super) fn read(endpoint: &Endpoint, headers: &[(String, String)], st: &Staleness) -> Read {
    let v = check_with_headers(endpoint, &st.read[0], headers, TIMEOUT);
    if v.is_ok() {
        return Read::Before;
    }
    let data = serde_json::from_slice::<Value>(&v.body)
        .ok()
        .and_then(|b| b.get("data").cloned());
    match (data, &st.read[1].expected_data) {
        (Some(d), Some(after)) if canonical_eq(&d, after) => Read::After,
        _ => Read::Other(crate::measure::ready::problem(&v).unwrap_or_default()),
    }
}

/// Reads, writes and reads again until each write shows (see the module header).
pub(super) fn staleness_check(
    endpoint: &Endpoint,
    headers: &[(String, String)],
    st: &Staleness,
    ttl: Duration,
) -> StalenessCheck {
    let mut c = StalenessCheck {
        stale_s: 0.0,
        stale_reads: 0,
        ttl_s: ttl.as_secs_f64(),
        verdict: StalenessVerdict::Fresh,
        detail: None,
    };
    let wrong = |mut c: StalenessCheck, detail: String| {
        c.verdict = StalenessVerdict::Wrong;
        c.detail = Some(detail);
        c
    };
    // Twice: the first answer is cached, the second may come from the cache.
    for _ in 0..2 {
        if let Read::After | Read::Other(_) = read(endpoint, headers, st) {
            return wrong(
                c,
                format!(
                    "{} did not give its first expected answer before any write",
                    st.ops.read
                ),
            );
        }
    }
    for (i, write) in st.write.iter().enumerate() {
        let v = check_with_headers(endpoint, write, headers, TIMEOUT);
        if let Some(p) = crate::measure::ready::problem(&v) {
            return wrong(
                c,
                format!("the write {} (case {i}) failed: {p}", st.ops.write),
            );
        }
        let written = Instant::now();
        loop {
            // The first write moves the read from its first answer to its second; the
            // second write moves it back.
            match (read(endpoint, headers, st), i) {
                (Read::After, 0) | (Read::Before, 1) => break,
                (Read::Other(p), _) => {
                    return wrong(
                        c,
                        format!(
                            "after the write {} (case {i}), {} answered neither the old nor the new answer: {p}",
                            st.ops.write, st.ops.read
                        ),
                    )
                }
                _ => {}
            }
            let age = written.elapsed();
            c.stale_reads += 1;
            c.stale_s = c.stale_s.max(age.as_secs_f64());
            if age > ttl + TTL_SLACK {
                c.verdict = StalenessVerdict::Stale;
                c.detail = Some(format!(
                    "still served the answer from before the write {} (case {i}) {:.1} s after it, past its time to live of {:.0} s",
                    st.ops.write,
                    age.as_secs_f64(),
                    ttl.as_secs_f64()
                ));
                return c;
            }
            std::thread::sleep(POLL);
        }
    }
    if c.stale_reads > 0 {
        c.verdict = StalenessVerdict::WithinTtl;
    }
    c
}

/// "fresh at once", "old answer for 1.9 s (TTL 2 s)", "STALE: ..." or "-".
pub(super) fn fmt_staleness(c: Option<&StalenessCheck>) -> String {
    let Some(c) = c else { return dash() };
    match c.verdict {
        StalenessVerdict::Fresh => "fresh at once (invalidated by the write)".into(),
        StalenessVerdict::WithinTtl => format!(
            "old answer for up to {:.1} s after a write (within its {:.0} s TTL: invalidates by TTL only)",
            c.stale_s, c.ttl_s
        ),
        v => format!(
            "{}: {}",
            if v == StalenessVerdict::Stale { "STALE" } else { "WRONG" },
            c.detail.as_deref().unwrap_or_default()
        ),
    }
}
