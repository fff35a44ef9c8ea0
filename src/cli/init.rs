//! `init`'s subcommands and their arguments: a folder for a graph of your own.
use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Subcommand, Debug)]
pub enum InitCommand {
    /// A folder for benchmarking the gateways on your own graph: its subgraphs' SDL (from a
    /// supergraph or a folder of subgraph SDL), the supergraph composed from them, your
    /// operations and graph.toml; then `gqlbench run federation --graph DIR`
    Graph(InitGraphArgs),
}

#[derive(Args, Debug)]
pub struct InitGraphArgs {
    /// The graph's folder: made if missing; an existing one must be empty or a graph
    /// folder (subgraphs/ or graph.toml). Given alone, an existing folder's subgraphs are
    /// composed again (after you edit them)
    pub dir: PathBuf,
    /// A supergraph SDL file (its subgraphs are extracted), or a folder of Federation v2
    /// subgraph SDL files (one per subgraph, named by its file stem)
    #[arg(long, value_name = "SUPERGRAPH|DIR")]
    pub from: Option<PathBuf>,
    /// Your operations: a folder of .graphql files (one operation each), or a persisted
    /// operations manifest (Apollo's JSON manifest, or Hive's JSON object of id -> document)
    #[arg(long, value_name = "DIR|MANIFEST")]
    pub operations: Option<PathBuf>,
    /// Replace the folder's subgraphs and operations of the same names
    #[arg(long)]
    pub force: bool,
}
