//! The pieces of an http(s) URL that the k6 export and import need without connecting:
//! its authority (the default name of an imported target), its host (checked, and tested
//! for loopback). The load engine parses the URLs it connects to itself
//! (`gqlbench_engine::Endpoint::from_url`), resolving the host.

/// What follows `scheme://` up to the path, query or fragment, without user info:
/// `127.0.0.1:4000` in `http://u@127.0.0.1:4000/graphql`; the whole text when it has no
/// scheme.
pub fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit('@').next().unwrap_or(authority)
}

/// The host of the authority: without the port, an IPv6 literal without its brackets.
pub fn host(url: &str) -> &str {
    let authority = authority(url);
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split(']').next().unwrap_or("");
    }
    authority.split(':').next().unwrap_or("")
}

/// The port written after the host, if one is: `4000` in `http://h:4000/x`, `""` in
/// `http://h:/x`, None in `http://h/x`.
pub fn port(url: &str) -> Option<&str> {
    let authority = authority(url);
    let after_host = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']').map_or("", |(_, rest)| rest),
        None => authority.find(':').map_or("", |i| &authority[i..]),
    };
    after_host.strip_prefix(':')
}

/// Whether the URL's host is on loopback (127.0.0.0/8, ::1, localhost).
pub fn is_loopback(url: &str) -> bool {
    let h = host(url);
    h.eq_ignore_ascii_case("localhost")
        || h.parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_as_written() {
        assert_eq!(port("http://127.0.0.1:4000/graphql"), Some("4000"));
        assert_eq!(port("http://[::1]:99999/graphql"), Some("99999"));
        assert_eq!(port("http://h:/x"), Some(""));
        assert_eq!(port("http://h/x"), None);
        assert_eq!(port("http://[::1]/x"), None);
    }

    #[test]
    fn pieces_of_urls() {
        assert_eq!(
            authority("http://u:p@127.0.0.1:4000/graphql?x#y"),
            "127.0.0.1:4000"
        );
        assert_eq!(authority("https://api.example.com"), "api.example.com");
        assert_eq!(authority("http:///graphql"), "");
        assert_eq!(host("http://[::1]:4000/graphql"), "::1");
        assert_eq!(
            host("http://gateway.default.svc:4000/"),
            "gateway.default.svc"
        );
        assert!(is_loopback("http://127.0.0.2:1/graphql"));
        assert!(is_loopback("http://[::1]:4000/graphql"));
        assert!(is_loopback("http://LOCALHOST/graphql"));
        assert!(!is_loopback("http://gateway.default.svc:4000/graphql"));
        assert!(!is_loopback("http://10.0.0.1:4000/"));
        assert!(!is_loopback("http://127.0.0.1.example.com/"));
    }
}
