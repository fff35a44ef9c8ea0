//! A database behind the target, a decorating kind: the scenario's targets serve the
//! workload from the run's throwaway PostgreSQL (naive resolvers, one query per field, or
//! DataLoader batching), and every trial records what the database did, counted by
//! PostgreSQL itself: statements per request, its CPU and memory. The database's own life
//! (start, seed, stop) is the runner's (`measure::database`), shared by every database
//! scenario of a run.
use std::sync::Arc;

use anyhow::Result;
use serde::Deserialize;

use crate::kind::{Kind, KindDef, ResolveCx, TrialCx};
use crate::results::{ScenarioResult, TrialResult};
use crate::view::Table;

pub const DEF: KindDef = KindDef {
    tables: |s| table(s).into_iter().collect(),
    list: |v, _, line| {
        format!(
            "{line}, PostgreSQL {}",
            v.get("resolvers").and_then(|r| r.as_str()).unwrap_or("-")
        )
    },
    skip_in_check: crate::kind::always,
    not_in_k6: None,
    ..KindDef::decorator("database", resolve)
};

pub use crate::db::Resolvers;

#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct DatabaseSpec {
    pub resolvers: Resolvers,
}

/// Database resolvers around the kind this decorates.
#[derive(Debug)]
pub struct Database {
    pub resolvers: Resolvers,
    inner: Arc<dyn Kind>,
}

fn resolve(cx: &ResolveCx<'_>, inner: Option<Arc<dyn Kind>>) -> Result<Option<Arc<dyn Kind>>> {
    let (Some(spec), Some(inner)) = (cx.spec::<DatabaseSpec>("database")?, inner) else {
        return Ok(None);
    };
    Ok(Some(Arc::new(Database {
        resolvers: spec.resolvers,
        inner,
    })))
}

impl Kind for Database {
    fn inner(&self) -> Option<&dyn Kind> {
        Some(self.inner.as_ref())
    }

    fn database(&self) -> Option<Resolvers> {
        Some(self.resolvers)
    }

    fn trial(&self, cx: &mut TrialCx<'_>) -> TrialResult {
        let before = cx.db.as_ref().map(|d| d.probe());
        let mut t = self.inner.trial(cx);
        if let (Some(d), Some(before)) = (cx.db.as_mut(), before) {
            // The database counts every request the trial sent, warm-up and priming too.
            let usage = d.finish(&before, t.requests_sent());
            if !usage.db_alive {
                t.valid = false;
                t.problems.push(format!(
                    "the database stopped answering during this trial (its log: {})",
                    d.db.log().display()
                ));
            }
            t.database = Some(usage);
        }
        t
    }
}

/// Database scenarios: queries per request as PostgreSQL counted them.
fn table(s: &ScenarioResult) -> Option<Table> {
    let db = s.database.as_ref()?;
    let rows = s
        .targets
        .iter()
        .filter(|t| !t.trials.is_empty())
        .map(|t| {
            let last = t.trials.iter().rev().find_map(|x| x.database.as_ref());
            vec![
                t.name.clone(),
                db.resolvers.clone(),
                t.summary
                    .as_ref()
                    .and_then(|x| x.db_queries_per_request)
                    .map(|q| format!("{q:.2}"))
                    .unwrap_or_else(crate::view::cells::dash),
                last.map(|d| format!("{:.0}", d.db_cpu_pct))
                    .unwrap_or_else(crate::view::cells::dash),
                last.map(|d| crate::units::fmt_bytes_or_unmeasured(d.db_rss_peak_bytes))
                    .unwrap_or_else(crate::view::cells::dash),
                last.map(|d| if d.db_alive { "yes" } else { "NO" }.to_string())
                    .unwrap_or_else(crate::view::cells::dash),
            ]
        })
        .collect();
    Some(Table {
        title: format!(
            "database: PostgreSQL {}, {} users ({} rows in all), pool {} per target, seeded in {:.1} s; queries counted by pg_stat_statements",
            db.server_version,
            db.scale,
            db.rows.values().sum::<u64>(),
            db.pool_size,
            db.seed_s
        ),
        headers: [
            "target",
            "resolvers",
            "DB queries / request",
            "DB CPU % (last trial)",
            "DB memory (PSS)",
            "DB up at end",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    })
}
