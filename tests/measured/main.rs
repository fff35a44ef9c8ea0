//! The end-to-end tests whose files must not overlap one another, in one test binary: their
//! tests measure (a test's load would land in another's slices) or look for processes by a
//! name any run's could have. Each test first takes its file's turn (`file_turn`), so the
//! files run one after the other, as they did when each was a binary of its own, and are
//! compiled once instead of thirteen times. Within a file, tests overlap as the file allows
//! (its `SERIAL` lock, where it has one). The native gateways' test is here too:
//! `cargo test --release --test measured -- --ignored native_gateways`.
#[path = "../common/mod.rs"]
mod common;

mod ab;
mod alternating;
mod db_scenarios;
mod efficiency;
mod extensibility;
mod faults;
mod federation;
mod own_graph_run;
mod polyglot;
mod race;
mod realism;
mod servers;
mod verdicts;
