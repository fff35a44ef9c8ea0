//! GC pauses of Node targets, as written by `targets/_node/gc-probe.mjs` (preloaded with
//! NODE_OPTIONS=--import) into a small JSON file. The runner reads it before and after the
//! measured window and reports the difference.
use std::path::Path;

use serde::Deserialize;

use crate::results::GcStats;

#[derive(Deserialize, Debug, Clone, Default)]
struct ProbeFile {
    count: u64,
    total_ms: f64,
    #[serde(default)]
    max_ms: f64,
}

pub fn read(path: &Path) -> Option<GcStats> {
    let text = std::fs::read_to_string(path).ok()?;
    let p: ProbeFile = serde_json::from_str(&text).ok()?;
    Some(GcStats {
        count: p.count,
        total_ms: p.total_ms,
        max_ms: p.max_ms,
    })
}

/// GC during a window: counters after minus before. The max pause is the probe's lifetime
/// max, so it is kept only if it changed within the window.
pub fn delta(before: &GcStats, after: &GcStats) -> GcStats {
    GcStats {
        count: after.count.saturating_sub(before.count),
        total_ms: (after.total_ms - before.total_ms).max(0.0),
        max_ms: if after.max_ms > before.max_ms {
            after.max_ms
        } else {
            0.0
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_subtracts() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("gc.json");
        std::fs::write(&p, r#"{"count":12,"total_ms":30.5,"max_ms":4.0,"pid":1}"#).unwrap();
        let a = read(&p).unwrap();
        std::fs::write(&p, r#"{"count":20,"total_ms":40.0,"max_ms":6.5,"pid":1}"#).unwrap();
        let b = read(&p).unwrap();
        let d = delta(&a, &b);
        assert_eq!(d.count, 8);
        assert!((d.total_ms - 9.5).abs() < 1e-9);
        assert_eq!(d.max_ms, 6.5);
        std::fs::write(&p, "not json").unwrap();
        assert!(read(&p).is_none());
    }
}
