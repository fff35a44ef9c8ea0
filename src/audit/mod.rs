//! `gqlbench audit`: the correctness half of choosing a gateway. Every suite of The Guild's
//! federation gateway audit (a checkout the user gives; gqlbench carries no third-party
//! schema) is read (`suite`), set up with `init graph` and run briefly through the gateways
//! with `run federation --graph`, each as a child gqlbench so that its exit code and results
//! folder are exactly a user's; the matrix of verdicts (`matrix`) is rendered as report.md
//! and report.html (`render`).
pub mod matrix;
pub mod render;
pub mod suite;
