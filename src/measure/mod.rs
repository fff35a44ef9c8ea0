//! Engine use: what starts targets and measures them, below the kinds that use it. A
//! session starts a target (with its subgraphs, coprocessor, collector, customization and
//! cgroup; its steps in `session_helpers`, `session_launch` and `session_ready`) and stops
//! it; `ready` waits for it and checks its answers; `trial` runs one engine load against it
//! with its vitals, noise and saturation watched (`trial_figures` judges what it saw,
//! `throughput` chooses its req/s: the count, or the requests' timing when it is coarse);
//! `install` builds targets; `budget` keeps the run's time; `database` is the run's
//! PostgreSQL. Nothing here knows which kind of scenario it serves: the runner and the
//! kinds above decide that.
pub mod alternate;
pub mod answers;
pub mod budget;
pub mod collector;
pub mod config_render;
pub mod coprocessor;
pub mod customization;
pub mod database;
pub mod gc;
pub mod helper_start;
pub mod install;
pub mod install_record;
pub mod install_required;
pub mod install_tree;
pub mod leftovers;
pub mod loopback;
pub mod machine_probe;
pub mod noise;
pub mod out_dir;
pub mod ready;
pub mod requirements;
pub mod session;
mod session_helpers;
mod session_launch;
mod session_ready;
pub mod subgraphs;
pub mod throughput;
pub mod trial;
mod trial_figures;
pub mod variant_watch;
pub mod vitals;
pub mod warmup;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub struct RunContext {
    pub root: std::path::PathBuf,
    pub cancel: Arc<AtomicBool>,
    pub command: Vec<String>,
    /// The run's noise so far: a reading is judged against it (`noise::Judge`).
    pub noise: std::sync::Mutex<noise::Judge>,
}

impl RunContext {
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}
