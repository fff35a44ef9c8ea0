//! Thread placement and thread CPU time: pinning a worker to CPUs (verified by reading the
//! mask back, since the kernel silently drops CPUs outside the cgroup's set), and the
//! calling thread's CPU clock, used to report what the load generator itself consumed.

use std::time::Duration;

/// Pins the calling thread to `cpus` and returns the CPUs the kernel actually allows now.
pub fn pin_current_thread(cpus: &[usize]) -> Result<Vec<usize>, String> {
    // SAFETY: cpu_set_t is plain data; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let max = libc::CPU_SETSIZE as usize;
    for &c in cpus {
        if c >= max {
            return Err(format!("CPU {c} is beyond the supported {max}"));
        }
        // SAFETY: c < CPU_SETSIZE, checked above.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: pid 0 is the calling thread; the set lives for the call.
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    let got = current_affinity()?;
    if got.iter().any(|c| !cpus.contains(c)) || got.is_empty() {
        return Err(format!("kernel reports affinity {got:?}"));
    }
    Ok(got)
}

/// CPUs the calling thread may run on.
pub fn current_affinity() -> Result<Vec<usize>, String> {
    // SAFETY: as above; the kernel fills the set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    // SAFETY: index below CPU_SETSIZE.
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// CPU time consumed so far by the calling thread.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Lets the kernel fire this thread's timers within 1 us instead of the default 50 us
/// slack, which matters for sending open-model requests on time.
pub fn tighten_timer_slack() {
    // SAFETY: PR_SET_TIMERSLACK takes a plain integer.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1000 as libc::c_ulong, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_and_read_back() {
        let before = current_affinity().unwrap();
        assert!(!before.is_empty());
        std::thread::spawn(move || {
            let got = pin_current_thread(&before[..1]).unwrap();
            assert_eq!(got, vec![before[0]]);
            assert!(pin_current_thread(&[1 << 20]).is_err());
        })
        .join()
        .unwrap();
    }

    #[test]
    fn cpu_time_advances_with_work() {
        let t0 = thread_cpu_time();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_add(i * i);
        }
        std::hint::black_box(x);
        assert!(thread_cpu_time() > t0);
    }
}
