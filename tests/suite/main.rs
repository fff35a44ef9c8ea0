//! Most of the end-to-end tests, one module per concern (each file's header says which), in
//! one test binary: compiled as 32 binaries, each built the harness and the parts of
//! gqlbench it calls again. Beside it: tests/measured, one binary of the files whose tests
//! must not overlap another file's (they measure, or look for processes by a name any
//! run's could have), which take turns; and the files named by a command in the docs
//! (`cargo test --test db`, `--test docs_figures`) or checking the code (`--test floors`).
#[path = "../common/mod.rs"]
mod common;

mod audit;
mod batching;
mod ci_run;
mod ci_workflow;
mod compare_cmd;
mod cost;
mod count_step;
mod default_scope;
mod distinct;
mod html_report;
mod in_process;
mod incremental;
mod input_errors;
mod install;
mod k6_export;
mod k6_import;
mod latency_at_rate;
mod load_cmd;
mod locks;
mod optional_targets;
mod own_graph;
mod own_graph_interfaces;
mod own_graph_keys;
mod own_graph_limits;
mod own_graph_nulls_pages;
mod persisted;
mod precision;
mod ramp;
mod reload;
mod response_cache;
mod subscriptions;
mod sweep;
