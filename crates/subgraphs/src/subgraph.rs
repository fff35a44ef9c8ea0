//! The four subgraphs of the demo graph by name, and the Federation flavour every
//! subgraph speaks.
//!
//! Their names are listed here, not in `graph`: `graph` (which set of subgraphs a process
//! serves) and `sdl` build on these types, so this module uses neither.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Subgraph {
    Accounts,
    Products,
    Reviews,
    Inventory,
}

impl Subgraph {
    /// In the order of the `/counters` output and of error messages.
    pub const ALL: [Subgraph; 4] = [
        Subgraph::Accounts,
        Subgraph::Products,
        Subgraph::Reviews,
        Subgraph::Inventory,
    ];

    /// Their names, in the order of [`Subgraph::ALL`]: the demo graph's names (see
    /// `Graph::names`).
    pub const NAMES: [&'static str; 4] = ["accounts", "products", "reviews", "inventory"];

    /// Its name in the demo graph.
    pub fn name(self) -> &'static str {
        Subgraph::NAMES[self.index()]
    }

    /// Position in [`Subgraph::ALL`], for per-subgraph arrays.
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Subgraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Subgraph {
    type Err = String;

    /// The error lists the valid names (as `Graph::index_of` does for the demo graph).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Subgraph::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown subgraph '{s}' (valid: {})",
                    Subgraph::NAMES.join(", ")
                )
            })
    }
}

/// Which Federation spec the `_service { sdl }` answer follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Federation {
    /// `extend type ... @key`, `@external` on extended keys, no `@link` (Mercurius' gateway).
    V1,
    /// `@link` to the Federation 2 spec, plain `type` for every entity.
    #[default]
    V2,
}

impl Federation {
    pub fn name(self) -> &'static str {
        match self {
            Federation::V1 => "v1",
            Federation::V2 => "v2",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_valid_ones() {
        for g in Subgraph::ALL {
            assert_eq!(g.name().parse::<Subgraph>(), Ok(g));
            assert_eq!(Subgraph::ALL[g.index()], g);
        }
        let err = "users".parse::<Subgraph>().unwrap_err();
        assert!(
            err.contains("accounts, products, reviews, inventory"),
            "{err}"
        );
    }
}
