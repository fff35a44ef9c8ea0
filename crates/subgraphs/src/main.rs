//! Standalone entry point; the same CLI is `gqlbench subgraphs ...`.
fn main() -> std::process::ExitCode {
    gqlbench_subgraphs::cli_main(std::env::args().collect())
}
