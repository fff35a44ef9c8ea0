//! Process limits a large run needs: thousands of connections exceed the usual soft limit
//! of 1024 open files, so the soft limit is raised to the hard limit before connecting;
//! and each connection to one address takes a local port from a finite range.

/// Raises RLIMIT_NOFILE's soft limit to its hard limit; returns the soft limit now in force.
pub fn raise_open_files_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: valid pointer to an rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return 0;
    }
    if lim.rlim_cur < lim.rlim_max {
        let want = libc::rlimit {
            rlim_cur: lim.rlim_max,
            rlim_max: lim.rlim_max,
        };
        // SAFETY: valid pointer; failure leaves the old limit, which is reported.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &want) } == 0 {
            return want.rlim_cur;
        }
    }
    lim.rlim_cur
}

/// The kernel's range of local ports for outgoing connections (inclusive), if readable.
pub fn local_port_range() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range").ok()?;
    let mut it = text.split_whitespace().map(|v| v.parse::<u64>().ok());
    let (lo, hi) = (it.next()??, it.next()??);
    (lo <= hi).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    #[test]
    fn limit_is_at_least_what_it_was() {
        assert!(super::raise_open_files_limit() >= 256);
    }

    #[test]
    fn port_range_is_a_range() {
        if let Some((lo, hi)) = super::local_port_range() {
            assert!(lo >= 1 && lo <= hi && hi <= 65535, "{lo} {hi}");
        }
    }
}
