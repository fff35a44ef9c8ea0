//! The crate's integration tests, one module per concern (each file's header says which),
//! in one test binary: as twelve binaries each linked this crate's mocks and executors
//! again, about 35 s of compiling apiece on a 2-core machine, for tests that run in under
//! a second.
mod common;

mod answer;
mod answer_limits;
mod cli;
mod committed_files;
mod delays_and_counters;
mod entities;
mod identity;
mod list_keys;
mod mock;
mod mock_serving;
mod nulls_and_pages;
mod override_fields;
