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
    parse_port_range(&text)
}

/// `ip_local_port_range`'s text ("32768\t60999\n"): two ports, the first not above the
/// second; None for anything else.
fn parse_port_range(text: &str) -> Option<(u64, u64)> {
    let mut it = text.split_whitespace().map(|v| v.parse::<u64>().ok());
    let (lo, hi) = (it.next()??, it.next()??);
    (it.next().is_none() && lo <= hi && hi <= 65535).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    fn open_files_limit() -> (u64, u64) {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: valid pointer to an rlimit.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
        (lim.rlim_cur, lim.rlim_max)
    }

    /// The soft limit is raised to the hard one, and what is returned is what is in force.
    #[test]
    fn the_soft_open_files_limit_is_raised_to_the_hard_limit() {
        let (before, _) = open_files_limit();
        let now = super::raise_open_files_limit();
        let (soft, hard) = open_files_limit();
        assert_eq!(now, soft, "the returned limit is the one in force");
        assert_eq!(
            soft, hard,
            "soft limit {soft} not raised to the hard {hard}"
        );
        assert!(soft >= before);
    }

    /// Linux always has the file: a None here is a failure to read it, not a pass.
    #[test]
    fn the_kernel_s_port_range_is_read() {
        let (lo, hi) = super::local_port_range()
            .expect("/proc/sys/net/ipv4/ip_local_port_range unreadable or not two ports");
        assert!(lo >= 1 && lo <= hi && hi <= 65535, "{lo} {hi}");
    }

    #[test]
    fn port_range_text_is_parsed_strictly() {
        use super::parse_port_range as p;
        assert_eq!(p("32768\t60999\n"), Some((32768, 60999)));
        assert_eq!(p("1024 1024"), Some((1024, 1024)));
        for bad in ["", "32768", "60999 32768", "a b", "1 70000", "1 2 3"] {
            assert_eq!(p(bad), None, "{bad:?}");
        }
    }
}
