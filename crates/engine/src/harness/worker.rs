//! The life of one worker thread: pinned (verified by reading the mask back), one
//! single-threaded tokio runtime, a setup step before the start line, then the load's tasks
//! and the ticker on a `LocalSet` (tasks share `Rc` state: no locks on the hot path). When
//! the ticker returns, the runtime is dropped with every task still running and every
//! socket still open; the records are taken out and handed back.

use std::rc::Rc;
use std::time::Instant;

use tokio::runtime::Runtime;

use super::ticker::{ticker, Driver};
use super::{Flags, Outcome, Seat};
use crate::affinity;
use crate::error::EngineError;

impl<const N: usize> Seat<'_, N> {
    /// Runs this worker to its end. `prepare` runs on the worker's runtime before the start
    /// line (what it opens is kept out of the warm-up and the window); `start` runs at the
    /// start, inside the `LocalSet`, builds the worker's state and spawns its tasks.
    pub fn run<D, P>(
        self,
        prepare: impl FnOnce(&Runtime, &Flags<'_>) -> Result<P, EngineError>,
        start: impl FnOnce(P, Instant) -> Rc<D>,
    ) -> Result<Outcome<D::Rec>, EngineError>
    where
        D: Driver<N>,
    {
        let pinned = match &self.cpus {
            Some(cpus) => {
                Some(
                    affinity::pin_current_thread(cpus).map_err(|reason| EngineError::Pin {
                        cpus: cpus.clone(),
                        reason,
                    })?,
                )
            }
            None => None,
        };
        if self.precise_timers {
            affinity::tighten_timer_slack();
        }
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let ready = prepare(&rt, &self.flags)?;
        let run_start = self.arrival.wait_start();
        let local = tokio::task::LocalSet::new();
        let (driver, interrupted_at) = local.block_on(&rt, async {
            let driver = start(ready, run_start);
            let interrupted_at = ticker(&*driver, self.board, &self.flags).await;
            (driver, interrupted_at)
        });
        // Tasks still running (cancel, hard end) are dropped with the runtime.
        drop(local);
        drop(rt);
        Ok(Outcome {
            rec: driver.take_rec(),
            pinned,
            interrupted_at,
        })
    }
}
