//! Helpers for the end-to-end tests: run the real binary (`cmd`), read what it wrote through
//! the typed result model (`results`), find the processes it left (`procs`), the fixture
//! catalogue (`fixtures`), skip (or, in CI, fail) for a missing prerequisite (`prereq`),
//! evaluate the CI workflow's expressions (`gha_expr`), and give the files of tests/measured
//! their turns (`turn`).
#![allow(dead_code, unused_imports)]
mod cmd;
mod fixtures;
pub mod gha_expr;
mod k6;
mod prereq;
mod procs;
mod results;
mod server;
mod turn;

pub use cmd::{Gqlbench, Outcome};
pub use fixtures::{
    abs_fixture_target, federation_tools, fixture_copy, fixtures, one_short_trial,
    one_short_trial_of, repo, workload_target,
};
pub use gqlbench::summary::counted_trials;
pub use k6::{k6_binary, run_testrun};
pub use prereq::{in_ci, require, require_in};
pub use procs::{assert_no_process, cgroups_of, parent_pid, pids_with, processes_with, wait_for};
pub use results::{
    assert_two_gateways_checked, fixture_run, init_own_graph, pair_states, read_results,
    run_graph_on_two_gateways, save_run, target, target_mut, with_samples, TWO_GATEWAYS,
};
pub use server::{free_port, start as start_fixture_server, start_with_env, Server};
pub use turn::file_turn;
