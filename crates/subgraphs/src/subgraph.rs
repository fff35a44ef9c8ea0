//! The four subgraphs by name, and the Federation flavour they speak.

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

    pub fn name(self) -> &'static str {
        match self {
            Subgraph::Accounts => "accounts",
            Subgraph::Products => "products",
            Subgraph::Reviews => "reviews",
            Subgraph::Inventory => "inventory",
        }
    }

    /// Position in [`Subgraph::ALL`], for per-subgraph arrays.
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn valid_names() -> String {
        Subgraph::ALL.map(Subgraph::name).join(", ")
    }
}

impl fmt::Display for Subgraph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Subgraph {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Subgraph::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown subgraph '{s}' (valid: {})",
                    Subgraph::valid_names()
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
