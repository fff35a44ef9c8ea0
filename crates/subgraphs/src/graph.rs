//! Which set of subgraphs a `serve` process runs: the four of the classic demo (`demo`,
//! hand-written schemas) or the twelve generated ones (`wide`, see `wide`). Everything that
//! is per subgraph (ports, delays, counters, SDL) goes by a graph's names and their index.

use std::fmt;
use std::str::FromStr;

use async_graphql::SDLExportOptions;

use crate::subgraph::{Federation, Subgraph};
use crate::wide;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, clap::ValueEnum)]
pub enum Graph {
    /// accounts, products, reviews, inventory
    #[default]
    Demo,
    /// twelve generated subgraphs
    Wide,
}

impl Graph {
    pub const ALL: [Graph; 2] = [Graph::Demo, Graph::Wide];

    pub fn name(self) -> &'static str {
        match self {
            Graph::Demo => "demo",
            Graph::Wide => "wide",
        }
    }

    /// The subgraph names, in the order of their index (and placeholder ports).
    pub fn names(self) -> &'static [&'static str] {
        match self {
            Graph::Demo => &Subgraph::NAMES,
            Graph::Wide => &wide::spec::NAMES,
        }
    }

    /// A subgraph's index, or an error listing the valid names.
    pub fn index_of(self, name: &str) -> Result<usize, String> {
        match self {
            // The demo subgraphs parse themselves, with the same message.
            Graph::Demo => name.parse::<Subgraph>().map(Subgraph::index),
            g => g.names().iter().position(|n| *n == name).ok_or_else(|| {
                format!(
                    "unknown subgraph '{name}' (valid in the {} graph: {})",
                    g.name(),
                    g.names().join(", ")
                )
            }),
        }
    }

    /// The SDL `_service { sdl }` returns for subgraph `index` in this flavour.
    pub fn sdl(self, index: usize, federation: Federation) -> anyhow::Result<String> {
        match self {
            Graph::Demo => crate::sdl::sdl(Subgraph::ALL[index], federation),
            Graph::Wide => {
                let schema = wide::schema::subgraph(index)
                    .map_err(|e| anyhow::anyhow!("wide subgraph {index}: {}", e.0))?;
                let options = SDLExportOptions::new().federation().compose_directive();
                let v2 = crate::sdl::without_builtin_directives(&schema.sdl_with_options(options));
                match federation {
                    Federation::V2 => Ok(v2),
                    Federation::V1 => {
                        let s = wide::spec::spec();
                        let own = s.by_subgraph(self.names()[index]);
                        let extended: Vec<&str> = own
                            .and_then(|e| s.entities[e].parent)
                            .map(|p| s.entities[p].type_name)
                            .into_iter()
                            .collect();
                        crate::sdl::to_v1(&v2, &extended).map_err(|e| {
                            anyhow::anyhow!(
                                "cannot derive the v1 SDL of {}: {e}",
                                self.names()[index]
                            )
                        })
                    }
                }
            }
        }
    }

    /// `data` of `query` run against a plain schema of the whole graph: the answer every
    /// gateway must give.
    pub async fn expected(
        self,
        query: &str,
        variables: serde_json::Value,
    ) -> anyhow::Result<async_graphql::Value> {
        match self {
            Graph::Demo => crate::monolith::expected(query, variables).await,
            Graph::Wide => {
                let schema = wide::schema::monolith()
                    .map_err(|e| anyhow::anyhow!("the wide monolith: {}", e.0))?;
                let request = crate::monolith::request(query, variables)?;
                crate::monolith::data_of(schema.execute(request).await)
            }
        }
    }
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Graph {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Graph::ALL
            .into_iter()
            .find(|g| g.name() == s)
            .ok_or_else(|| format!("unknown graph '{s}' (valid: demo, wide)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_their_index_and_unknown_ones_list_the_graph() {
        for g in Graph::ALL {
            for (i, n) in g.names().iter().enumerate() {
                assert_eq!(g.index_of(n), Ok(i));
            }
            assert_eq!(g.name().parse::<Graph>(), Ok(g));
        }
        assert_eq!(Graph::Wide.names().len(), 12);
        let err = Graph::Wide.index_of("accounts").unwrap_err();
        assert!(
            err.contains("in the wide graph: analytics, billing"),
            "{err}"
        );
        let err = Graph::Demo.index_of("users").unwrap_err();
        assert!(err.contains("valid: accounts, products"), "{err}");
    }

    #[test]
    fn wide_sdl_in_both_flavours_names_only_its_own_and_its_parents_types() {
        let s = wide::spec::spec();
        for (i, name) in Graph::Wide.names().iter().enumerate() {
            let e = s.by_subgraph(name).unwrap();
            let v2 = Graph::Wide.sdl(i, Federation::V2).unwrap();
            assert!(v2.contains("@link("), "{name}: {v2}");
            let own = format!(
                "type {} @key(fields: \"{}\")",
                s.entities[e].type_name, s.entities[e].key
            );
            assert!(v2.contains(&own), "{name}: {v2}");
            let v1 = Graph::Wide.sdl(i, Federation::V1).unwrap();
            assert!(!v1.contains("@link"), "{name}: {v1}");
            if let Some(p) = s.entities[e].parent {
                let parent = &s.entities[p];
                let extended = format!(
                    "extend type {} @key(fields: \"{}\") {{\n\t{}: ID! @external\n",
                    parent.type_name, parent.key, parent.key
                );
                assert!(v1.contains(&extended), "{name}: {v1}");
            } else {
                assert!(
                    v1.contains("extend type Query {\n\titems(first: Int = 5)"),
                    "{v1}"
                );
            }
        }
    }
}
