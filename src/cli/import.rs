//! `import`'s subcommands and their arguments: another load tester's output as a run.
use std::path::PathBuf;

use clap::builder::NonEmptyStringValueParser;
use clap::{Args, Subcommand};

#[derive(Subcommand, Debug)]
pub enum ImportCommand {
    /// k6's JSON summary (--summary-export) and/or JSON lines output (--out json=FILE)
    K6(ImportK6Args),
}

#[derive(Args, Debug)]
pub struct ImportK6Args {
    /// k6 output files: JSON lines (--out json=FILE; several pods' files are merged) and/or a summary (--summary-export)
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output folder (default: results/<timestamp>-k6-import); it must be new or empty
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace an earlier run in the output folder
    #[arg(long)]
    pub force: bool,
    /// The target the load went to (the row's name; default: from gqlbench-export.json's URL, else "k6-target")
    #[arg(long, value_parser = NonEmptyStringValueParser::new())]
    pub target: Option<String>,
    /// Suite of the scenario (default: from gqlbench-export.json beside the files, else "k6")
    #[arg(long, value_parser = NonEmptyStringValueParser::new())]
    pub suite: Option<String>,
    /// Scenario name (default: from gqlbench-export.json beside the files, else "import")
    #[arg(long, value_parser = NonEmptyStringValueParser::new())]
    pub scenario: Option<String>,
    /// The k6 version that produced the files, for the label (k6's output does not record it)
    #[arg(long, value_name = "VERSION", value_parser = NonEmptyStringValueParser::new())]
    pub k6_version: Option<String>,
    /// Print the results as JSON on stdout
    #[arg(long)]
    pub json: bool,
}
