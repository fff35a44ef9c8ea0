//! Efficiency and cost, derived from a saved run at report time (never stored in
//! results.json, so every run, older ones included, can be priced again with today's
//! table): req/s per CPU core and per GiB of peak memory from each trial's own measured CPU
//! and RSS (`efficiency`), and from those and a price table (`prices`, a user-editable TOML
//! file; one is shipped) the capacity of an instance, the cost of a million requests and
//! the instances a given traffic needs (`sizing`). Seed 001's published cost table, which
//! no measurement stands behind, is kept as data (`seed`) to be shown beside it, labelled.
pub mod efficiency;
pub mod prices;
pub mod seed;
pub mod sizing;

pub use efficiency::{efficiencies, priced_scenario, Efficiency};
pub use prices::{Instance, PriceTable};
pub use sizing::{Sizing, Traffic};

use std::path::Path;

use anyhow::Result;

/// Everything the cost section needs besides the run: the price table and where it came
/// from, the traffic to size for and the utilization an instance is planned at.
#[derive(Debug, Clone)]
pub struct Pricing {
    pub table: PriceTable,
    /// The file given with `--prices`, or None for the shipped table.
    pub file: Option<std::path::PathBuf>,
    /// The traffic to size instances for (`--traffic`); None: no instance count or monthly
    /// cost is shown (see `SEED_TRAFFIC`).
    pub traffic: Option<Traffic>,
    /// Share of an instance's capacity planned for (0.7 = 70%).
    pub utilization: f64,
}

/// Seed 001's traffic ("1M requests/day"), which `--traffic 1M/day` sizes for. Not the
/// default: at 11.6 req/s every target measured here fits on one instance of any table,
/// so a column of instances for it tells the targets apart in nothing (docs/cost.md).
pub const SEED_TRAFFIC: &str = "1M/day";
pub const DEFAULT_UTILIZATION: f64 = 0.7;

impl Pricing {
    /// The shipped table (prices/aws-on-demand.toml, built in), no traffic, the default
    /// utilization.
    pub fn shipped() -> Result<Pricing> {
        Ok(Pricing {
            table: PriceTable::shipped()?,
            file: None,
            traffic: None,
            utilization: DEFAULT_UTILIZATION,
        })
    }

    /// The table of `file` (or the shipped one) with the traffic and utilization given.
    pub fn load(
        file: Option<&Path>,
        traffic: Option<Traffic>,
        utilization: f64,
    ) -> Result<Pricing> {
        let table = match file {
            Some(f) => PriceTable::load(f)?,
            None => PriceTable::shipped()?,
        };
        Ok(Pricing {
            table,
            file: file.map(Path::to_path_buf),
            traffic,
            utilization,
        })
    }

    /// Where the prices come from, in words: the file, or the shipped table.
    pub fn origin(&self) -> String {
        match &self.file {
            Some(f) => format!("{} (--prices)", f.display()),
            None => format!(
                "the shipped table {} (built in; --prices FILE for another)",
                prices::SHIPPED_PATH
            ),
        }
    }
}

/// A utilization target: a percentage in (0, 100].
pub fn parse_utilization(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%').trim();
    t.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0 && *v <= 100.0)
        .map(|v| v / 100.0)
        .ok_or_else(|| {
            format!("'{s}' is not a utilization in (0, 100]%; write e.g. 70% (the share of an instance's capacity to plan for)")
        })
}

/// `--traffic`, for clap.
pub fn parse_traffic(s: &str) -> Result<Traffic, String> {
    Traffic::parse(s)
}
