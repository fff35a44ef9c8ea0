//! GC pauses of Node targets, as written by `targets/_node/gc-probe.mjs` (preloaded with
//! NODE_OPTIONS=--import) into a small JSON file: running totals since the process began,
//! plus its most recent pauses numbered by their order. A [`GcWatch`] reads the file during
//! the measured window and keeps the window's own figures: counts and times as differences,
//! the longest pause from the recent pauses numbered after the window began (a lifetime
//! maximum says nothing about the window).
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::results::GcStats;

#[derive(Deserialize, Debug, Clone, Default)]
struct ProbeFile {
    count: u64,
    total_ms: f64,
    /// The most recent pauses: (number since start, 1-based; duration in ms).
    #[serde(default)]
    recent: Vec<(u64, f64)>,
}

fn read(path: &Path) -> Option<ProbeFile> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// The window's GC figures, read as the window goes.
#[derive(Debug)]
pub struct GcWatch {
    file: PathBuf,
    start: ProbeFile,
    max_ms: f64,
    /// Number of the last pause whose duration was looked at.
    seen: u64,
    /// Pauses that fell out of the probe's list before a read saw them (the max is then a
    /// lower bound).
    pub missed: u64,
}

impl GcWatch {
    /// Starts watching now (the window's beginning); None when the file is not readable.
    pub fn start(file: &Path) -> Option<GcWatch> {
        let start = read(file)?;
        Some(GcWatch {
            file: file.to_path_buf(),
            seen: start.count,
            start,
            max_ms: 0.0,
            missed: 0,
        })
    }

    /// Reads the file again; returns the window's figures so far (None if unreadable now).
    pub fn poll(&mut self) -> Option<GcStats> {
        let now = read(&self.file)?;
        let oldest = now
            .recent
            .iter()
            .map(|(n, _)| *n)
            .min()
            .unwrap_or(now.count + 1);
        if now.count > self.seen && oldest > self.seen + 1 {
            self.missed += oldest - self.seen - 1;
        }
        for (n, ms) in &now.recent {
            if *n > self.seen {
                self.max_ms = self.max_ms.max(*ms);
            }
        }
        self.seen = self.seen.max(now.count);
        Some(GcStats {
            count: now.count.saturating_sub(self.start.count),
            total_ms: (now.total_ms - self.start.total_ms).max(0.0),
            max_ms: self.max_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_max_is_the_windows_own() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("gc.json");
        // Before the window: a 40 ms pause (number 2) set the lifetime maximum.
        std::fs::write(
            &p,
            r#"{"count":3,"total_ms":50.0,"max_ms":40.0,"recent":[[1,5.0],[2,40.0],[3,5.0]],"pid":1}"#,
        )
        .unwrap();
        let mut w = GcWatch::start(&p).unwrap();
        std::fs::write(
            &p,
            r#"{"count":5,"total_ms":58.5,"max_ms":40.0,"recent":[[2,40.0],[3,5.0],[4,6.5],[5,2.0]],"pid":1}"#,
        )
        .unwrap();
        let g = w.poll().unwrap();
        assert_eq!(g.count, 2);
        assert!((g.total_ms - 8.5).abs() < 1e-9);
        assert_eq!(g.max_ms, 6.5, "not the lifetime 40 ms");
        // Pauses 6..9 fell out of the list before this read: counted as missed.
        std::fs::write(
            &p,
            r#"{"count":12,"total_ms":70.0,"max_ms":40.0,"recent":[[10,1.0],[11,9.0],[12,1.0]],"pid":1}"#,
        )
        .unwrap();
        let g = w.poll().unwrap();
        assert_eq!((g.count, g.max_ms, w.missed), (9, 9.0, 4));
        std::fs::write(&p, "not json").unwrap();
        assert!(w.poll().is_none());
        assert!(GcWatch::start(&dir.path().join("none.json")).is_none());
    }
}
