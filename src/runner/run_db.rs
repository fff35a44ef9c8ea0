//! The run's database across its scenarios: started by the first database scenario,
//! shared by the next ones, stopped after the last (so later scenarios do not share the
//! machine with it). Why it could not start is kept, and whether that is only this
//! machine lacking the PostgreSQL server (its scenarios are then skipped, not failed).
use std::collections::BTreeMap;

use anyhow::Result;

use crate::kind::{RunPlan, ScenarioPlan};
use crate::measure::{database, RunContext};
use crate::progress::Progress;
use crate::results::{RunResults, TargetStatus};

/// What a scenario does after asking for the database.
pub enum Ready {
    /// Measure it (the database's variables are in its environment, if it needs one).
    Go,
    /// Its rows say why it did not run; go on with the next scenario.
    Skip,
    /// Ctrl-C while the database started: the run ends.
    Interrupted,
}

#[derive(Default)]
pub struct RunDb {
    pub db: Option<database::RunDatabase>,
    error: Option<(String, bool)>,
}

impl RunDb {
    /// Starts the database for scenario `si` when it needs one and none runs yet, and puts
    /// its variables in `env`; a scenario it could not serve has its rows say why.
    pub fn for_scenario(
        &mut self,
        (plan, ctx, sp, si): (&RunPlan, &RunContext, &ScenarioPlan, usize),
        results: &mut RunResults,
        progress: &mut Progress,
        env: &mut BTreeMap<String, String>,
    ) -> Result<Ready> {
        let (Some(resolvers), Some(dp)) = (sp.kind.database(), &plan.database) else {
            return Ok(Ready::Go);
        };
        let out = &plan.out_dir;
        if self.db.is_none() && self.error.is_none() {
            match database::RunDatabase::start(dp, plan, progress, &|| ctx.cancelled()) {
                Ok(d) => self.db = Some(d),
                // Ctrl-C while PostgreSQL started or was seeded: the run was interrupted,
                // nothing failed to start.
                Err(_) if ctx.cancelled() => {
                    for t in &mut results.scenarios[si].targets {
                        t.status = TargetStatus::Interrupted;
                        t.problem =
                            Some("interrupted while its database was being prepared".into());
                    }
                    results.save(out)?;
                    return Ok(Ready::Interrupted);
                }
                Err(e) => {
                    let missing = matches!(e, database::StartError::Unavailable(_));
                    progress.line(&format!(
                        "database: {} — {e:#}",
                        if missing { "SKIPPED" } else { "FAILED" }
                    ));
                    self.error = Some((format!("{e:#}"), missing));
                }
            }
            results.save(out)?;
        }
        if let Some(d) = &self.db {
            env.extend(d.env(resolvers.as_str()));
            results.scenarios[si].database = Some(d.info(resolvers.as_str()));
            return Ok(Ready::Go);
        }
        let (why, missing) = self
            .error
            .clone()
            .unwrap_or_else(|| ("unknown error".into(), false));
        let msg = format!(
            "PostgreSQL could not be started, so this database scenario did not run: {why}"
        );
        for t in &mut results.scenarios[si].targets {
            t.status = if missing {
                TargetStatus::Skipped
            } else {
                TargetStatus::StartFailed
            };
            t.problem = Some(msg.clone());
        }
        progress.skip(sp.planned_load_secs());
        results.save(out)?;
        Ok(Ready::Skip)
    }

    /// Stops the database (after the last scenario that needs it).
    pub fn stop(&mut self, progress: &mut Progress) {
        if let Some(mut d) = self.db.take() {
            if let Err(e) = d.db.stop() {
                progress.line(&format!("database: stopping it: {e:#}"));
            }
        }
    }
}
