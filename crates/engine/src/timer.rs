//! A precise one-shot timer for open-model send times.
//!
//! tokio's timer wheel has 1 ms granularity and rounds up, so sleeping with it makes
//! every request up to ~1 ms late: send lag would measure the timer, not the generator.
//! Spinning (yield_now until due) is precise but burns a core at any rate, which would
//! spoil the generator's CPU figure. A timerfd (hrtimer) registered in the worker's
//! epoll is precise to a few microseconds and costs one `timerfd_settime` and one `read`
//! per wake-up; the dispatcher sends every request already due at each wake-up, so at
//! high rates there is less than one wake-up per request.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Instant;

use tokio::io::unix::AsyncFd;

/// A timerfd driven by the current tokio runtime.
#[derive(Debug)]
pub struct PreciseTimer {
    fd: AsyncFd<OwnedFd>,
}

impl PreciseTimer {
    /// Must be called inside a runtime with I/O enabled.
    pub fn new() -> io::Result<PreciseTimer> {
        // SAFETY: plain syscall; the fd is owned right after.
        let raw = unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: raw is a fresh fd we own.
        let owned = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: the AsyncFd owns the fd, so it stays open as long as it is registered.
        let fd = unsafe { AsyncFd::register_with_interest(owned, tokio::io::Interest::READABLE) }?;
        Ok(PreciseTimer { fd })
    }

    /// Returns at `t` (or at once if it has passed).
    pub async fn sleep_until(&self, t: Instant) -> io::Result<()> {
        loop {
            let now = Instant::now();
            if t <= now {
                return Ok(());
            }
            let d = t - now;
            let spec = libc::itimerspec {
                it_interval: libc::timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                },
                it_value: libc::timespec {
                    tv_sec: d.as_secs() as libc::time_t,
                    // Never zero: a zero it_value would disarm the timer.
                    tv_nsec: d.subsec_nanos().max(1) as libc::c_long,
                },
            };
            // SAFETY: valid fd and spec.
            let rc = unsafe {
                libc::timerfd_settime(self.fd.as_raw_fd(), 0, &spec, std::ptr::null_mut())
            };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
            let mut guard = self.fd.readable().await?;
            let mut expirations = [0u8; 8];
            // SAFETY: reads 8 bytes into a local buffer.
            let n = unsafe { libc::read(self.fd.as_raw_fd(), expirations.as_mut_ptr().cast(), 8) };
            // Fired and consumed, or not fired (stale readiness): either way the fd is not
            // readable now, so clear the cached readiness without another syscall.
            guard.clear_ready();
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::WouldBlock {
                    return Err(e);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Never early: every sleep returns at or after its deadline, and one already past
    /// returns at once. How late is reported only, not asserted (CI machines vary).
    #[test]
    fn never_wakes_before_the_deadline() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let timer = PreciseTimer::new().unwrap();
            let mut worst = Duration::ZERO;
            for i in 0..50u64 {
                let t = Instant::now() + Duration::from_micros(300 + i * 10);
                timer.sleep_until(t).await.unwrap();
                let woke = Instant::now();
                assert!(
                    woke >= t,
                    "sleep {i} woke {:?} before its deadline",
                    t - woke
                );
                worst = worst.max(woke - t);
            }
            eprintln!("worst timerfd lateness: {worst:?}");
            // A deadline in the past: no wait, and the timer still works after it.
            let past = Instant::now();
            timer.sleep_until(past).await.unwrap();
            let t = Instant::now() + Duration::from_millis(2);
            timer.sleep_until(t).await.unwrap();
            assert!(Instant::now() >= t);
        });
    }
}
