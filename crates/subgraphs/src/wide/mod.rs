//! The wide graph: twelve generated subgraphs (see `spec`) for measuring how a gateway's
//! planning and fan-out scale with the number of subgraphs.

pub mod schema;
pub mod spec;
