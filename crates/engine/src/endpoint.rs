//! The one HTTP endpoint a run talks to: a URL parsed and its host resolved to a socket
//! address. HTTP load (`plan`), subscriptions (`subscribe`) and one-off checks (`check`)
//! all send to one, so it stands on its own below them.

use std::net::{SocketAddr, ToSocketAddrs};

use crate::error::EngineError;

/// The one HTTP endpoint a run talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// Resolved socket address (connections go here).
    pub addr: SocketAddr,
    /// Value of the `Host` header (`host` or `host:port`, as written in the URL).
    pub host: String,
    /// Request target, e.g. `/graphql`.
    pub path: String,
}

impl Endpoint {
    /// Parses `http://host[:port][/path]` and resolves the host. `ws://` is taken as
    /// `http://` (a WebSocket endpoint is an HTTP one that upgrades). `https` and `wss` are
    /// refused because the engine speaks plain HTTP/1.1 only.
    pub fn from_url(url: &str) -> Result<Endpoint, EngineError> {
        let bad = |reason: &str| EngineError::InvalidUrl {
            url: url.to_string(),
            reason: reason.to_string(),
        };
        let rest = if let Some(rest) = url
            .strip_prefix("http://")
            .or_else(|| url.strip_prefix("ws://"))
        {
            rest
        } else if url.starts_with("https://") || url.starts_with("wss://") {
            return Err(bad("https is not supported (plain HTTP/1.1 only)"));
        } else {
            return Err(bad("must start with http:// (or ws://)"));
        };
        let (authority, path) = match rest.find(['/', '?']) {
            Some(i) if rest.as_bytes()[i] == b'/' => (&rest[..i], &rest[i..]),
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let path = if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        if authority.is_empty() {
            return Err(bad("missing host"));
        }
        if authority.contains('@') {
            return Err(bad("user info in URLs is not supported"));
        }
        // Split host and port; IPv6 literals are bracketed.
        let (host, port) = if let Some(stripped) = authority.strip_prefix('[') {
            let end = stripped
                .find(']')
                .ok_or_else(|| bad("unclosed '[' in host"))?;
            let host = &stripped[..end];
            let after = &stripped[end + 1..];
            let port = match after.strip_prefix(':') {
                Some(p) => Some(p),
                None if after.is_empty() => None,
                None => return Err(bad("garbage after IPv6 address")),
            };
            (host, port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        let port: u16 = match port {
            Some(p) => p
                .parse()
                .map_err(|_| bad("port is not a number in 0..65535"))?,
            None => 80,
        };
        if host.is_empty() {
            return Err(bad("missing host"));
        }
        let addr = (host, port)
            .to_socket_addrs()
            .map_err(|e| EngineError::Resolve {
                host: host.to_string(),
                reason: e.to_string(),
            })?
            // Prefer IPv4: local servers often listen on 0.0.0.0 only.
            .min_by_key(|a| a.is_ipv6())
            .ok_or_else(|| EngineError::Resolve {
                host: host.to_string(),
                reason: "no address".to_string(),
            })?;
        Ok(Endpoint {
            addr,
            host: authority.to_string(),
            path,
        })
    }
}
