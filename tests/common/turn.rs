//! Turns between the files of one test binary: tests/measured holds the files whose tests
//! measure or look for processes by name, so a test of one file must not run beside a test
//! of another (as when each file was a binary of its own and cargo ran them one after the
//! other), while the tests of one file keep overlapping as their file allows (its own
//! `SERIAL` lock, when it has one, is taken after the turn).
use std::sync::{Condvar, Mutex, MutexGuard};

/// The file whose tests run now and how many of them do.
static NOW: Mutex<(Option<&'static str>, usize)> = Mutex::new((None, 0));
static ENDED: Condvar = Condvar::new();

/// Held for a test's whole body: its file's turn.
pub struct Turn;

fn now() -> MutexGuard<'static, (Option<&'static str>, usize)> {
    // A test that panicked while holding the lock changed nothing half-way: go on.
    NOW.lock().unwrap_or_else(|e| e.into_inner())
}

/// Waits until no test of another file runs, then runs as one of `file`'s
/// (`module_path!()` of the test).
pub fn file_turn(file: &'static str) -> Turn {
    let mut now = now();
    while now.0.is_some_and(|f| f != file) {
        now = ENDED.wait(now).unwrap_or_else(|e| e.into_inner());
    }
    now.0 = Some(file);
    now.1 += 1;
    Turn
}

impl Drop for Turn {
    // Also when the test panics (unwinding drops it), so a failed test ends its file's turn.
    fn drop(&mut self) {
        let mut now = now();
        now.1 -= 1;
        if now.1 == 0 {
            now.0 = None;
            ENDED.notify_all();
        }
    }
}
