//! `--ports accounts=4001,products=4002,reviews=4003,inventory=4004`: one port per subgraph.

use crate::subgraph::Subgraph;

const EXAMPLE: &str = "e.g. --ports accounts=4001,products=4002,reviews=4003,inventory=4004";

/// A port for each subgraph, indexed by [`Subgraph::index`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ports(pub [u16; 4]);

impl Ports {
    pub fn parse(list: &str) -> Result<Ports, String> {
        let mut ports: [Option<u16>; 4] = [None; 4];
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, port) = item
                .split_once('=')
                .ok_or_else(|| format!("'{item}' is not NAME=PORT; {EXAMPLE}"))?;
            let subgraph: Subgraph = name.trim().parse().map_err(|e| format!("{e}; {EXAMPLE}"))?;
            let port: u16 = port
                .trim()
                .parse()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| format!("'{item}': '{port}' is not a port (1-65535); {EXAMPLE}"))?;
            if ports[subgraph.index()].replace(port).is_some() {
                return Err(format!("{subgraph} is given twice; {EXAMPLE}"));
            }
        }
        let mut out = [0; 4];
        for g in Subgraph::ALL {
            out[g.index()] = ports[g.index()]
                .ok_or_else(|| format!("no port for {g} (all four are needed); {EXAMPLE}"))?;
        }
        for (i, p) in out.iter().enumerate() {
            if out[..i].contains(p) {
                return Err(format!("port {p} is given to two subgraphs; {EXAMPLE}"));
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
        let p = Ports::parse("reviews=3,accounts=1, products=2,inventory=4").unwrap();
        assert_eq!(p, Ports([1, 2, 3, 4]));
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
            let err = Ports::parse(list).unwrap_err();
            assert!(err.contains(says), "{list}: {err}");
            assert!(err.contains("--ports accounts=4001"), "{err}");
        }
    }
}
