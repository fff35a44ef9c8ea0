//! Imports of other load testers' output into gqlbench's one result model, so `report`
//! and `compare` read them like gqlbench's own runs, labelled with the engine that measured
//! them. Today one: k6 (`gqlbench import k6`).
pub mod k6;
