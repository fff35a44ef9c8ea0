//! Proof that a gateway variant did its work (the extensibility suite): a customization
//! that did not run must make its variant invalid, never be measured as a bare round trip
//! (the original study's Java and C# coprocessors were, for a whole test). Three proofs:
//! - response headers: the engine checks every measured response ([`response_rule`]);
//! - subgraph headers: the subgraphs count the watched headers of every request they
//!   serve, and every request of the trial must carry the right value ([`subgraph_problem`]);
//! - a bad token: before any load, a request with a token whose signature is broken must
//!   be refused with 401, and one with the scenario's token must carry the GUIDs when those
//!   are asked ([`precheck`]).
use std::time::Duration;

use base64::Engine as _;
use gqlbench_engine::{check_with_headers, Endpoint, HeaderRule, Variant};

use super::collector::SpanCounts;
use super::subgraphs::SeenHeaders;
use crate::catalog::target_def::{Customization, Customizes};

/// The header every `subgraph-header` variant adds to subgraph requests.
pub const SOURCE_HEADER: &str = "source";
/// The request header that carries the client's token (as in the original study).
pub const TOKEN_HEADER: &str = "authentication";
/// The client-awareness headers a gateway sets from the token's claims.
pub const CLIENT_NAME: &str = "apollographql-client-name";
pub const CLIENT_VERSION: &str = "apollographql-client-version";

/// Response headers every answer of this variant must carry.
pub fn response_rule(c: Option<&Customization>) -> Option<HeaderRule> {
    (c?.does == Customizes::GuidHeaders).then(|| HeaderRule {
        prefix: "guid-".into(),
        count: 10,
        distinct: true,
    })
}

/// The claims `client_name` and `client_version` of the bearer token among `headers`
/// (the payload is read, not verified: verifying is the gateway's work under test).
pub fn token_claims(headers: &[(String, String)]) -> Option<(String, String)> {
    let (_, v) = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(TOKEN_HEADER))?;
    let token = v.trim().strip_prefix("Bearer ")?;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    Some((
        claims.get("client_name")?.as_str()?.to_string(),
        claims.get("client_version")?.as_str()?.to_string(),
    ))
}

/// The scenario's headers with the token's signature broken: its first character changed
/// (the last one carries bits that lenient base64 decoders ignore, so changing it may not
/// change the signature at all).
pub fn with_bad_token(headers: &[(String, String)]) -> Option<Vec<(String, String)>> {
    let mut out = headers.to_vec();
    let (_, v) = out
        .iter_mut()
        .find(|(k, _)| k.eq_ignore_ascii_case(TOKEN_HEADER))?;
    let at = v.rfind('.')? + 1;
    let first = v[at..].chars().next()?;
    let swap = if first == 'A' { "B" } else { "A" };
    v.replace_range(at..at + first.len_utf8(), swap);
    Some(out)
}

/// Why the subgraph requests of a trial do not prove the customization ran, if they do not.
/// `seen` is what the subgraphs counted during the trial (warm-up and window).
pub fn subgraph_problem(
    c: Option<&Customization>,
    seen: &SeenHeaders,
    headers: &[(String, String)],
) -> Option<String> {
    let c = c?;
    let expect: Vec<(&str, String)> = match c.does {
        Customizes::SubgraphHeader => vec![(SOURCE_HEADER, String::new())],
        Customizes::ClientAwareness => match token_claims(headers) {
            Some((name, version)) => vec![(CLIENT_NAME, name), (CLIENT_VERSION, version)],
            None => {
                return Some(format!(
                    "customization {}: the scenario sends no bearer token with claims client_name and client_version in `{TOKEN_HEADER}` ([load] headers)",
                    c.does.label()
                ))
            }
        },
        Customizes::GuidHeaders | Customizes::Tracing => return None,
    };
    if seen.requests == 0 {
        return Some(format!(
            "customization {}: the subgraphs served no request, so nothing proves it ran",
            c.does.label()
        ));
    }
    let mut problems = Vec::new();
    for (name, want) in expect {
        // An empty `want`: any one value (the variant names its mechanism in it).
        let carried = match seen.headers.get(name) {
            Some(values) if want.is_empty() => values.values().sum::<u64>(),
            Some(values) => values.get(&want).copied().unwrap_or(0),
            None => 0,
        };
        if carried < seen.requests {
            let what = if want.is_empty() {
                format!("`{name}`")
            } else {
                format!("`{name}: {want}`")
            };
            problems.push(format!(
                "{} of {} subgraph requests carried {what}",
                carried, seen.requests
            ));
        }
    }
    (!problems.is_empty()).then(|| {
        format!(
            "customization {} by {} did not always happen: {}",
            c.does.label(),
            c.by,
            problems.join("; ")
        )
    })
}

/// Before any load: the variant refuses a bad token (client awareness) and answers with
/// the required headers (GUIDs). Err: why the customization is not there.
pub fn precheck(
    c: Option<&Customization>,
    endpoint: &Endpoint,
    probe: &Variant,
    headers: &[(String, String)],
) -> Result<(), String> {
    let Some(c) = c else { return Ok(()) };
    let timeout = Duration::from_secs(10);
    match c.does {
        Customizes::ClientAwareness => {
            let bad = with_bad_token(headers).ok_or_else(|| {
                format!("the scenario sends no `{TOKEN_HEADER}` header to break ([load] headers)")
            })?;
            let v = check_with_headers(endpoint, probe, &bad, timeout);
            if v.status != Some(c.rejects_with) {
                return Err(format!(
                    "customization client-awareness by {}: a request with a bad token was answered {} instead of {}",
                    c.by,
                    v.status
                        .map(|s| format!("HTTP {s}"))
                        .unwrap_or_else(|| format!("nothing ({})", v.detail)),
                    c.rejects_with
                ));
            }
        }
        Customizes::GuidHeaders => {
            let v = check_with_headers(endpoint, probe, headers, timeout);
            if let Some(rule) = response_rule(Some(c)) {
                rule.check(&v.head)
                    .map_err(|e| format!("customization guid-headers by {}: {e}", c.by))?;
            }
        }
        Customizes::SubgraphHeader | Customizes::Tracing => {}
    }
    Ok(())
}

/// Why a tracing variant's trial does not prove it exported, if it does not: no span
/// reached the collector, or some exports could not be decoded.
pub fn tracing_problem(
    c: Option<&Customization>,
    before: Option<SpanCounts>,
    after: Option<SpanCounts>,
) -> Option<String> {
    let c = c.filter(|c| c.does == Customizes::Tracing)?;
    let (Some(a), Some(b)) = (before, after) else {
        return Some(format!(
            "customization tracing by {}: the collector's counts are unreadable, so nothing proves it exported",
            c.by
        ));
    };
    let spans = b.spans.saturating_sub(a.spans);
    let bad = b.undecodable.saturating_sub(a.undecodable);
    if bad > 0 {
        return Some(format!(
            "customization tracing by {}: {bad} exports the collector could not decode (see its log)",
            c.by
        ));
    }
    (spans == 0).then(|| {
        format!(
            "customization tracing by {}: no span reached the collector during the trial ({} exports)",
            c.by,
            b.requests.saturating_sub(a.requests)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    // HS256, secret "apollo", claims client_name "gqlbench-web", client_version "1.4.2".
    const TOKEN: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJncWxiZW5jaCIsImNsaWVudF9uYW1lIjoiZ3FsYmVuY2gtd2ViIiwiY2xpZW50X3ZlcnNpb24iOiIxLjQuMiIsImlhdCI6MTcwMDAwMDAwMH0.1d-8wcK2eb1acXgzkcFocsXdkE8nntzHmKvFg81VbO8";

    fn auth() -> Vec<(String, String)> {
        vec![(TOKEN_HEADER.into(), format!("Bearer {TOKEN}"))]
    }

    fn custom(does: Customizes) -> Customization {
        Customization {
            does,
            by: "coprocessor".into(),
            rejects_with: 401,
        }
    }

    fn seen(requests: u64, pairs: &[(&str, &str, u64)]) -> SeenHeaders {
        let mut headers: BTreeMap<String, BTreeMap<String, u64>> = BTreeMap::new();
        for (k, v, n) in pairs {
            headers
                .entry(k.to_string())
                .or_default()
                .insert(v.to_string(), *n);
        }
        SeenHeaders { requests, headers }
    }

    #[test]
    fn the_claims_are_read_from_the_bearer_token() {
        assert_eq!(
            token_claims(&auth()),
            Some(("gqlbench-web".into(), "1.4.2".into()))
        );
        assert_eq!(token_claims(&[]), None);
        let bad = with_bad_token(&auth()).unwrap();
        assert_ne!(bad, auth());
        // Only the signature changed: the claims still read the same.
        assert_eq!(token_claims(&bad), token_claims(&auth()));
    }

    #[test]
    fn a_header_on_every_subgraph_request_proves_it_one_missing_does_not() {
        let c = custom(Customizes::SubgraphHeader);
        assert_eq!(
            subgraph_problem(Some(&c), &seen(150, &[("source", "coprocessor", 150)]), &[]),
            None
        );
        let p =
            subgraph_problem(Some(&c), &seen(150, &[("source", "coprocessor", 149)]), &[]).unwrap();
        assert!(p.contains("149 of 150") && p.contains("`source`"), "{p}");
        // A coprocessor that skips its work: the subgraphs saw no header at all.
        let p = subgraph_problem(Some(&c), &seen(150, &[]), &[]).unwrap();
        assert!(p.contains("0 of 150"), "{p}");
        let p = subgraph_problem(Some(&c), &seen(0, &[]), &[]).unwrap();
        assert!(p.contains("no request"), "{p}");
        // The baseline has no customization: nothing to prove.
        assert_eq!(subgraph_problem(None, &seen(150, &[]), &[]), None);
    }

    #[test]
    fn a_tracing_variant_must_deliver_spans_that_decode() {
        let c = Customization {
            does: Customizes::Tracing,
            by: "config".into(),
            rejects_with: 401,
        };
        let at = |requests, spans, undecodable| {
            Some(SpanCounts {
                requests,
                spans,
                undecodable,
            })
        };
        assert_eq!(tracing_problem(Some(&c), at(1, 10, 0), at(3, 250, 0)), None);
        let p = tracing_problem(Some(&c), at(1, 10, 0), at(1, 10, 0)).unwrap();
        assert!(p.contains("no span") && p.contains("0 exports"), "{p}");
        let p = tracing_problem(Some(&c), at(1, 10, 0), at(3, 250, 1)).unwrap();
        assert!(
            p.contains("1 exports the collector could not decode"),
            "{p}"
        );
        let p = tracing_problem(Some(&c), None, at(3, 250, 0)).unwrap();
        assert!(p.contains("unreadable"), "{p}");
        // Not a tracing variant: nothing to prove.
        let other = custom(Customizes::SubgraphHeader);
        assert_eq!(tracing_problem(Some(&other), None, None), None);
        assert_eq!(tracing_problem(None, None, None), None);
    }

    #[test]
    fn client_headers_must_carry_the_tokens_claims() {
        let c = custom(Customizes::ClientAwareness);
        let ok = seen(
            90,
            &[
                (CLIENT_NAME, "gqlbench-web", 90),
                (CLIENT_VERSION, "1.4.2", 90),
            ],
        );
        assert_eq!(subgraph_problem(Some(&c), &ok, &auth()), None);
        let wrong = seen(
            90,
            &[(CLIENT_NAME, "other", 90), (CLIENT_VERSION, "1.4.2", 90)],
        );
        let p = subgraph_problem(Some(&c), &wrong, &auth()).unwrap();
        assert!(p.contains("0 of 90") && p.contains("gqlbench-web"), "{p}");
        let p = subgraph_problem(Some(&c), &ok, &[]).unwrap();
        assert!(p.contains("no bearer token"), "{p}");
    }
}
