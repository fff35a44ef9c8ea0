//! Process limits a large run needs: thousands of connections exceed the usual soft limit
//! of 1024 open files, so the soft limit is raised to the hard limit before connecting.

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

#[cfg(test)]
mod tests {
    #[test]
    fn limit_is_at_least_what_it_was() {
        assert!(super::raise_open_files_limit() >= 256);
    }
}
