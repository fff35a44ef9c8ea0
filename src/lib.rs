//! gqlbench: trustworthy, reproducible benchmarks of GraphQL servers and gateways.
//! `run()` is the whole program; `main.rs` only calls it.
pub mod audit;
pub mod catalog;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod cost;
pub mod db;
pub mod error;
pub mod export;
pub mod import;
pub mod kind;
pub mod kinds;
pub mod measure;
pub mod plan;
pub mod planner;
pub mod progress;
pub mod report;
pub mod results;
pub mod runner;
pub mod saturation;
pub mod stats;
pub mod summary;
pub mod sys;
pub mod units;
pub mod urls;
pub mod verdict;
pub mod view;

use std::process::ExitCode;

use clap::Parser;

/// Exit codes: 0 success, 1 a failed check or a regression, 2 bad input or an error (the
/// error's type says which: `error::exit_code`), 130 interrupted.
pub fn run() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(error::exit_code(&e))
        }
    }
}
