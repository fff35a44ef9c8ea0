//! Serving a folder's mock subgraphs: through the crate's `server` (one listener per
//! subgraph on 127.0.0.1; `POST /graphql`, `GET /health`, `GET /counters`, `GET /headers`;
//! per-subgraph delays), as `serve` does for the built-in graphs; and the `mock` command's
//! arguments that name subgraphs or fields of the folder (`--ports`, `--delay`, `--list`).

use super::MockSubgraph;
use crate::delay::DelaySpec;
use crate::server::{self, Running, Serving};

/// Binds a port per subgraph (`ports[i]` for `subgraphs[i]`; 0 picks a free one), then
/// serves them in the background on the current runtime. With `response_cache`, a body
/// answered before gets the same bytes from memory (`response_cache`): a mock's answer is
/// a function of the body alone (seeded values, no state), so a hit is exact, and a gateway
/// sends the same few fetches over and over; the mocks then stay far cheaper than the
/// gateway they serve (issue 39). Off, every request is executed (a field's `--cost` is
/// paid each time).
pub async fn start(
    subgraphs: Vec<MockSubgraph>,
    ports: &[u16],
    delays: Vec<DelaySpec>,
    delay_seed: u64,
    response_cache: bool,
) -> anyhow::Result<Running> {
    let serving = Serving {
        delays,
        seed: delay_seed,
        response_cache,
    };
    let served = subgraphs
        .into_iter()
        .map(MockSubgraph::into_served)
        .collect();
    server::start_served(served, ports, &serving).await
}

/// `--delay NAME=SPEC`, repeatable, for the subgraphs `names` (SPEC as `serve --delay`).
/// `*=SPEC` delays every subgraph; a subgraph named explicitly keeps its own, whatever
/// the order. Each name (and `*`) at most once.
pub fn parse_delays(items: &[String], names: &[&str]) -> anyhow::Result<Vec<DelaySpec>> {
    let mut every: Option<DelaySpec> = None;
    let mut named: Vec<DelaySpec> = Vec::new();
    for item in items {
        let d = DelaySpec::parse_with(item, |name| {
            if name == "*" {
                return Ok(usize::MAX);
            }
            names.iter().position(|n| *n == name).ok_or_else(|| {
                format!(
                    "unknown subgraph '{name}' (valid: {}, or * for all)",
                    names.join(", ")
                )
            })
        })
        .map_err(|e| anyhow::anyhow!("{e}"))?;
        let twice = if d.index == usize::MAX {
            every.replace(d).is_some()
        } else if named.iter().any(|e| e.index == d.index) {
            true
        } else {
            named.push(d.clone());
            false
        };
        anyhow::ensure!(
            !twice,
            "--delay is given twice for {}; give each subgraph one range, e.g. --delay reviews=20..150ms",
            item.split_once('=').map_or(item.as_str(), |(n, _)| n.trim())
        );
    }
    if let Some(every) = every {
        for (index, name) in names.iter().enumerate() {
            if !named.iter().any(|d| d.index == index) {
                named.push(DelaySpec {
                    subgraph: name.to_string(),
                    index,
                    ..every.clone()
                });
            }
        }
    }
    named.sort_by_key(|d| d.index);
    Ok(named)
}

/// `--ports products=4001,reviews=4002`: a port for each of `names`, in their order.
pub fn parse_ports(list: &str, names: &[&str]) -> anyhow::Result<Vec<u16>> {
    let mut ports: Vec<Option<u16>> = vec![None; names.len()];
    for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, port) = item
            .split_once('=')
            .ok_or_else(|| anyhow::anyhow!("'{item}' is not NAME=PORT"))?;
        let i = names
            .iter()
            .position(|n| *n == name.trim())
            .ok_or_else(|| anyhow::anyhow!("no subgraph {name}; the SDL files give {names:?}"))?;
        let port: u16 = port
            .trim()
            .parse()
            .map_err(|_| anyhow::anyhow!("'{item}': '{port}' is not a port"))?;
        anyhow::ensure!(ports[i].replace(port).is_none(), "{name} is given twice");
    }
    names
        .iter()
        .zip(ports)
        .map(|(n, p)| p.ok_or_else(|| anyhow::anyhow!("no port for {n}")))
        .collect()
}

/// `--list Type.field=n`, repeatable: list lengths by field.
pub fn parse_lists(items: &[String]) -> anyhow::Result<super::MockConfig> {
    let mut config = super::MockConfig::default();
    for item in items {
        let (path, n) = item
            .split_once('=')
            .filter(|(p, _)| p.contains('.'))
            .ok_or_else(|| anyhow::anyhow!("'{item}' is not Type.field=LENGTH"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| anyhow::anyhow!("'{item}': '{n}' is not a length"))?;
        config.lists.insert(path.trim().to_string(), n);
    }
    Ok(config)
}
