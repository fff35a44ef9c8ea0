//! The k6 binary the k6 export and import tests run: `GQLBENCH_K6` when set, else the one
//! pinned by tools/k6 (go.mod, go.sum), built there with Go on first use. A missing Go is a
//! failure that says how to get k6, never a skipped test.
use std::path::PathBuf;
use std::process::Command;

use super::repo;

pub fn k6_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("GQLBENCH_K6") {
        let p = PathBuf::from(p);
        assert!(p.is_file(), "GQLBENCH_K6={} is not a file", p.display());
        return p;
    }
    let dir = repo().join("tools/k6");
    let bin = dir.join("bin/k6");
    // Several test binaries may want it at once: build under a lock, once.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(std::env::temp_dir().join("gqlbench-k6-build.lock"))
        .expect("k6 build lock file");
    // SAFETY: flock on a file descriptor this function owns for its whole use.
    unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) };
    let stale = |b: &PathBuf| {
        let built = std::fs::metadata(b).and_then(|m| m.modified());
        let pinned = std::fs::metadata(dir.join("go.sum")).and_then(|m| m.modified());
        match (built, pinned) {
            (Ok(b), Ok(p)) => b < p,
            _ => true,
        }
    };
    if stale(&bin) {
        let status = Command::new("go")
            .args(["build", "-mod=readonly", "-trimpath", "-o", "bin/k6", "go.k6.io/k6"])
            .current_dir(&dir)
            .status()
            .unwrap_or_else(|e| {
                panic!(
                    "building k6 needs Go 1.26+ on PATH ({e}); or set GQLBENCH_K6 to a k6 v1.8.1 binary (tools/k6/README.md)"
                )
            });
        assert!(
            status.success(),
            "go build of k6 in tools/k6 failed: {status}"
        );
    }
    bin
}
