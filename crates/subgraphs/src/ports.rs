//! `--ports accounts=4001,products=4002,reviews=4003,inventory=4004`: one port per subgraph
//! of the graph served.

use crate::graph::Graph;

/// e.g. `--ports accounts=4001,products=4002,...` for `graph`.
fn example(graph: Graph) -> String {
    let list: Vec<String> = graph
        .names()
        .iter()
        .enumerate()
        .map(|(i, n)| format!("{n}={}", 4001 + i))
        .collect();
    format!("e.g. --ports {}", list.join(","))
}

/// A port for each subgraph of a graph, by index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ports(pub Vec<u16>);

impl Ports {
    pub fn parse(list: &str, graph: Graph) -> Result<Ports, String> {
        let names = graph.names();
        let mut ports: Vec<Option<u16>> = vec![None; names.len()];
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, port) = item
                .split_once('=')
                .ok_or_else(|| format!("'{item}' is not NAME=PORT; {}", example(graph)))?;
            let name = name.trim();
            let index = graph
                .index_of(name)
                .map_err(|e| format!("{e}; {}", example(graph)))?;
            let port: u16 = port
                .trim()
                .parse()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| {
                    format!(
                        "'{item}': '{port}' is not a port (1-65535); {}",
                        example(graph)
                    )
                })?;
            if ports[index].replace(port).is_some() {
                return Err(format!("{name} is given twice; {}", example(graph)));
            }
        }
        let mut out = Vec::with_capacity(names.len());
        for (name, port) in names.iter().zip(&ports) {
            out.push(port.ok_or_else(|| {
                format!(
                    "no port for {name} (all {} are needed); {}",
                    names.len(),
                    example(graph)
                )
            })?);
        }
        for (i, p) in out.iter().enumerate() {
            if out[..i].contains(p) {
                return Err(format!(
                    "port {p} is given to two subgraphs; {}",
                    example(graph)
                ));
            }
        }
        Ok(Ports(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_four_in_any_order() {
        let p = Ports::parse("reviews=3,accounts=1, products=2,inventory=4", Graph::Demo).unwrap();
        assert_eq!(p, Ports(vec![1, 2, 3, 4]));
    }

    #[test]
    fn the_wide_graph_needs_all_twelve() {
        let all: Vec<String> = Graph::Wide
            .names()
            .iter()
            .enumerate()
            .map(|(i, n)| format!("{n}={}", 5000 + i))
            .collect();
        let p = Ports::parse(&all.join(","), Graph::Wide).unwrap();
        assert_eq!(p.0.len(), 12);
        assert_eq!(p.0[11], 5011);
        let err = Ports::parse(&all[..11].join(","), Graph::Wide).unwrap_err();
        assert!(
            err.contains("no port for users (all 12 are needed)"),
            "{err}"
        );
        assert!(err.contains("--ports analytics=4001"), "{err}");
    }

    #[test]
    fn refuses_bad_lists_saying_why() {
        for (list, says) in [
            ("accounts=1,products=2,reviews=3", "no port for inventory"),
            ("accounts=1,products=2,reviews=3,inventory=x", "not a port"),
            (
                "accounts=1,products=2,reviews=3,inventory=70000",
                "not a port",
            ),
            ("accounts=1,products=2,reviews=3,users=4", "valid: accounts"),
            ("accounts=1,accounts=2", "given twice"),
            (
                "accounts=1,products=1,reviews=3,inventory=4",
                "two subgraphs",
            ),
            ("accounts:1", "not NAME=PORT"),
        ] {
            let err = Ports::parse(list, Graph::Demo).unwrap_err();
            assert!(err.contains(says), "{list}: {err}");
            assert!(err.contains("--ports accounts=4001"), "{err}");
        }
    }
}
