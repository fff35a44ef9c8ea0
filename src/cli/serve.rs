//! The hidden `serve-*` commands' arguments: servers built into gqlbench (calibrate's
//! static answer, the subscription reference target, the OTLP span counter).
use clap::Args;

use super::parsers::parse_duration;

#[derive(Args, Debug)]
pub struct ServeSubscriptionsArgs {
    /// Port on 127.0.0.1
    #[arg(long)]
    pub port: u16,
    /// Ticks published per second to every subscriber
    #[arg(long, default_value_t = 10.0)]
    pub rate: f64,
    /// Misbehave: drop every connection this long after it was accepted
    #[arg(long, value_parser = parse_duration)]
    pub drop_after: Option<std::time::Duration>,
}

#[derive(Args, Debug)]
pub struct ServeStaticArgs {
    /// Port on 127.0.0.1
    #[arg(long)]
    pub port: u16,
}
