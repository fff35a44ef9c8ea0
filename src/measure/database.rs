//! The run's PostgreSQL: started and seeded before the first database scenario, handed to
//! the targets through the environment, read around each trial (statements executed, the
//! server's CPU and memory), stopped and removed when the run ends (Drop does it on every
//! path: error, Ctrl-C, panic).
use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::Result;

use crate::db::{Database, DbError, DbOptions, PgBinaries, SeedReport};
use crate::plan::{DatabasePlan, RunPlan};
use crate::progress::Progress;
use crate::results::{DatabaseInfo, DatabaseUsage};
use crate::sys::procfs;

/// Connections in each target's pool (the published setup: a pool of 20).
pub const POOL_SIZE: u32 = 20;

pub struct RunDatabase {
    pub db: Database,
    pub seed: SeedReport,
}

/// Why the run's database did not start: this machine lacks the PostgreSQL server (its
/// database scenarios are then skipped, not failed), or it was there and failed.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    Unavailable(DbError),
    #[error("{0:#}")]
    Failed(anyhow::Error),
}

impl RunDatabase {
    /// Start a fresh server pinned to the generator's CPUs (away from the targets) and seed
    /// it at the plan's scale.
    pub fn start<K: ?Sized>(
        dp: &DatabasePlan,
        plan: &RunPlan<K>,
        progress: &Progress,
        cancelled: &(dyn Fn() -> bool + Sync),
    ) -> Result<RunDatabase, StartError> {
        progress.line(&format!(
            "database: starting a throwaway PostgreSQL and seeding {} users ...",
            dp.scale
        ));
        let binaries = PgBinaries::locate().map_err(StartError::Unavailable)?;
        let mut db = Database::start(DbOptions {
            dir: dp.dir.clone(),
            cpus: plan.isolation.generator.clone(),
            scale: Some(dp.scale),
            log: Some(plan.out_dir.join("logs/postgres.log")),
            binaries: Some(binaries),
            ..Default::default()
        })
        .map_err(StartError::Failed)?;
        let seeded = db.seed_cancellable(
            dp.scale,
            &|done, total| {
                progress.message(format!(
                    "database: seeding {:.0}% ({done} of {total} rows)",
                    done as f64 * 100.0 / total.max(1) as f64
                ));
            },
            cancelled,
        );
        let seed = seeded.map_err(StartError::Failed)?;
        progress.line(&format!(
            "database: PostgreSQL {} on port {}, {} rows in {:.1} s ({} on disk)",
            db.server_version(),
            db.port(),
            seed.rows,
            seed.seconds,
            crate::units::fmt_bytes(seed.data_dir_bytes)
        ));
        Ok(RunDatabase { db, seed })
    }

    /// What a target of a database scenario is told.
    pub fn env(&self, resolvers: &str) -> BTreeMap<String, String> {
        BTreeMap::from([
            ("GQLBENCH_DATABASE_URL".to_string(), self.db.url()),
            ("GQLBENCH_RESOLVERS".to_string(), resolvers.to_string()),
            ("GQLBENCH_DB_POOL".to_string(), POOL_SIZE.to_string()),
        ])
    }

    pub fn info(&self, resolvers: &str) -> DatabaseInfo {
        DatabaseInfo {
            resolvers: resolvers.into(),
            scale: self.seed.scale,
            server_version: self.db.server_version().to_string(),
            rows: self
                .seed
                .tables
                .iter()
                .map(|t| (t.name.clone(), t.rows))
                .collect(),
            seed_s: self.seed.seconds,
            data_bytes: self.seed.data_dir_bytes,
            pool_size: POOL_SIZE,
        }
    }

    /// Counters before a trial.
    pub fn probe(&self) -> Probe {
        Probe {
            queries: self.db.queries_executed().ok(),
            ticks: self.db.usage().cpu_ticks,
            at: Instant::now(),
        }
    }

    /// The trial's statements per request, and the server's CPU and memory over it.
    /// `requests` counts warm-up and window together (the counter runs through both).
    pub fn finish(&mut self, before: &Probe, requests: u64) -> DatabaseUsage {
        let after = self.db.queries_executed().ok();
        let usage = self.db.usage();
        let alive = self.db.exited().is_none() && after.is_some();
        let queries = match (before.queries, after) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => 0,
        };
        let secs = before.at.elapsed().as_secs_f64().max(1e-9);
        DatabaseUsage {
            queries,
            queries_per_request: if requests > 0 {
                queries as f64 / requests as f64
            } else {
                0.0
            },
            db_cpu_pct: usage.cpu_ticks.saturating_sub(before.ticks) as f64
                / procfs::clock_ticks()
                / secs
                * 100.0,
            db_rss_peak_bytes: pss_bytes(&self.db.processes())
                .or((usage.processes > 0).then_some(usage.rss_bytes)),
            db_alive: alive,
        }
    }
}

/// Proportional set size summed over processes: shared buffers are split between the
/// backends that map them instead of counted once per process (as RSS would be).
fn pss_bytes(pids: &[i32]) -> Option<u64> {
    let mut total = 0;
    let mut any = false;
    for pid in pids {
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")) else {
            continue;
        };
        if let Some(kib) = text
            .lines()
            .find_map(|l| l.strip_prefix("Pss:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        {
            total += kib * 1024;
            any = true;
        }
    }
    any.then_some(total)
}

pub struct Probe {
    queries: Option<u64>,
    ticks: u64,
    at: Instant,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_server_says_how_to_get_it_and_a_failure_keeps_its_causes() {
        let e = StartError::Unavailable(DbError::BadPgBin {
            dir: "/opt/pg".into(),
            what: "initdb".into(),
        });
        let m = e.to_string();
        assert!(
            m.starts_with("GQLBENCH_PG_BIN=/opt/pg: initdb not there") && m.contains("apt-get"),
            "{m}"
        );
        let e = StartError::Failed(anyhow::anyhow!("port in use").context("starting postgres"));
        assert_eq!(e.to_string(), "starting postgres: port in use");
    }
}
