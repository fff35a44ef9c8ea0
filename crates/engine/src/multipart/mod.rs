//! Framing of GraphQL incremental delivery (`@defer` / `@stream`) over HTTP
//! `multipart/mixed` (RFC 2046 and the GraphQL incremental-delivery-over-HTTP draft): the
//! boundary named by the response head, when the first part has arrived (watched on the
//! hot path as bytes come in), and the split of a complete body into its parts' payloads.
//! What the payloads say, and the answer they add up to, is [`assemble`]'s business.

mod assemble;
mod first;

pub use assemble::{assemble, Assembled};
pub use first::FirstPart;

use crate::failure::FailureKind;

/// A complete body read through: [`parts`] then [`assemble`]; a framing fault is a
/// `Protocol` failure.
pub fn read(body: &[u8], boundary: &[u8]) -> Result<Assembled, (FailureKind, String)> {
    let parts = parts(body, boundary).map_err(|e| (FailureKind::Protocol, e))?;
    assemble(&parts)
}

/// The boundary of a `multipart/mixed` response, from its head (status line and headers).
/// None when the Content-Type is another type or names no boundary.
pub fn boundary(head: &[u8]) -> Option<Vec<u8>> {
    let value = content_type(head)?;
    let end = value.iter().position(|&c| c == b';').unwrap_or(value.len());
    if !value[..end]
        .trim_ascii()
        .eq_ignore_ascii_case(b"multipart/mixed")
    {
        return None;
    }
    let mut i = end;
    while i < value.len() {
        // One parameter `name=value` or `name="quoted value"`; quoted values may hold `;`.
        while i < value.len() && matches!(value[i], b';' | b' ' | b'\t') {
            i += 1;
        }
        let start = i;
        while i < value.len() && !matches!(value[i], b'=' | b';') {
            i += 1;
        }
        let name = value[start..i].trim_ascii();
        if i >= value.len() || value[i] != b'=' {
            continue;
        }
        i += 1;
        while i < value.len() && matches!(value[i], b' ' | b'\t') {
            i += 1;
        }
        let mut param = Vec::new();
        if value.get(i) == Some(&b'"') {
            i += 1;
            while i < value.len() && value[i] != b'"' {
                if value[i] == b'\\' && i + 1 < value.len() {
                    i += 1;
                }
                param.push(value[i]);
                i += 1;
            }
            i += 1;
        } else {
            let start = i;
            while i < value.len() && value[i] != b';' {
                i += 1;
            }
            param.extend_from_slice(value[start..i].trim_ascii());
        }
        if name.eq_ignore_ascii_case(b"boundary") {
            return (!param.is_empty()).then_some(param);
        }
    }
    None
}

/// The value of a response head's Content-Type header, trimmed (the first one, when a
/// server sends two). An incremental answer's framing is told by it.
pub(crate) fn content_type(head: &[u8]) -> Option<&[u8]> {
    head.split(|&c| c == b'\n').find_map(|line| {
        let colon = line.iter().position(|&c| c == b':')?;
        let name = line[..colon].trim_ascii();
        name.eq_ignore_ascii_case(b"content-type")
            .then(|| line[colon + 1..].trim_ascii())
    })
}

/// Whether `bytes` is a prefix of `--boundary`.
fn is_dash_boundary_prefix(bytes: &[u8], boundary: &[u8]) -> bool {
    bytes.len() <= 2 + boundary.len()
        && bytes
            .iter()
            .zip(b"--".iter().chain(boundary))
            .all(|(a, b)| a == b)
}

/// Where the next `CRLF--boundary` at or after `from` starts.
fn find_delimiter(hay: &[u8], from: usize, boundary: &[u8]) -> Option<usize> {
    let need = 4 + boundary.len();
    let mut i = from;
    while i + need <= hay.len() {
        let at = i + hay[i..=hay.len() - need].iter().position(|&c| c == b'\r')?;
        if hay[at + 1..at + 4] == *b"\n--" && hay[at + 4..at + need] == *boundary {
            return Some(at);
        }
        i = at + 1;
    }
    None
}

/// Where to resume [`find_delimiter`] after it found nothing in `hay`: a delimiter may
/// only start in the last `need - 1` bytes, its end yet to come.
fn resume_at(hay: &[u8], from: usize, boundary: &[u8]) -> usize {
    hay.len().saturating_sub(3 + boundary.len()).max(from)
}

/// What follows `--boundary` at `i`.
enum Tail {
    /// `--`: the closing delimiter.
    Close,
    /// Optional padding then CRLF: a part starts at this index.
    Open(usize),
    /// The body ends before the delimiter line does.
    Truncated,
    /// Something else: the boundary was only the prefix of a longer word.
    NotDelimiter,
}

fn tail(body: &[u8], i: usize) -> Tail {
    let rest = &body[i..];
    if rest.starts_with(b"--") {
        return Tail::Close;
    }
    let pad = rest
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    match &rest[pad..] {
        [b'\r', b'\n', ..] => Tail::Open(i + pad + 2),
        [] | [b'\r'] => Tail::Truncated,
        [b'-'] if pad == 0 => Tail::Truncated,
        _ => Tail::NotDelimiter,
    }
}

/// The payload of one part's content (headers, blank line, payload).
fn payload(content: &[u8], n: usize) -> Result<&[u8], String> {
    // A part without headers starts with the blank line itself.
    if let Some(rest) = content.strip_prefix(b"\r\n") {
        return Ok(rest);
    }
    match content.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(i) => Ok(&content[i + 4..]),
        None => Err(format!(
            "multipart part {n} has no blank line after its headers"
        )),
    }
}

/// The payloads of a complete `multipart/mixed` body, in order, heartbeats (`{}`)
/// included. The preamble before the first delimiter and the epilogue after the closing
/// one are ignored. `Err` is a short description of the framing fault.
pub fn parts<'a>(body: &'a [u8], boundary: &[u8]) -> Result<Vec<&'a [u8]>, String> {
    if boundary.is_empty() {
        return Err("empty multipart boundary".to_string());
    }
    let dash_len = 2 + boundary.len();
    // Index of the `--` of the candidate delimiter.
    let opens = body
        .get(..dash_len)
        .is_some_and(|head| is_dash_boundary_prefix(head, boundary));
    let mut candidate = if opens {
        Some(0)
    } else {
        find_delimiter(body, 0, boundary).map(|at| at + 2)
    };
    let mut out = Vec::new();
    let mut part_start: Option<usize> = None;
    loop {
        let Some(dash) = candidate else {
            return Err(match part_start {
                None => "no multipart delimiter in the body".to_string(),
                Some(_) => "truncated multipart body: no closing delimiter".to_string(),
            });
        };
        let next = match tail(body, dash + dash_len) {
            Tail::NotDelimiter => {
                candidate = find_delimiter(body, dash, boundary).map(|at| at + 2);
                continue;
            }
            Tail::Truncated => {
                return Err("truncated multipart body: no closing delimiter".to_string())
            }
            Tail::Close => None,
            Tail::Open(next) => Some(next),
        };
        if let Some(start) = part_start {
            // Delimiters after the first are found with their CRLF, so dash >= 2.
            out.push(payload(&body[start..dash - 2], out.len())?);
        }
        let Some(next) = next else {
            if out.is_empty() {
                return Err("multipart body has no part".to_string());
            }
            return Ok(out);
        };
        part_start = Some(next);
        candidate = find_delimiter(body, next, boundary).map(|at| at + 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const YOGA_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nconnection: keep-alive\r\n\
        content-type: multipart/mixed; boundary=\"-\"\r\ntransfer-encoding: chunked\r\n\r\n";
    const ROUTER_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\n\
        content-type: multipart/mixed;boundary=\"graphql\";deferSpec=20220824\r\n\
        x-accel-buffering: no\r\ntransfer-encoding: chunked\r\n\r\n";

    /// The body as Yoga writes it: `CRLF---` first, then per payload the headers, the JSON,
    /// `CRLF---`, and `--CRLF` when done.
    pub(super) fn yoga(payloads: &[&str]) -> Vec<u8> {
        let mut b = b"\r\n---".to_vec();
        for p in payloads {
            let head = format!(
                "\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: {}\r\n\r\n",
                p.len()
            );
            b.extend_from_slice(head.as_bytes());
            b.extend_from_slice(p.as_bytes());
            b.extend_from_slice(b"\r\n---");
        }
        b.extend_from_slice(b"--\r\n");
        b
    }

    /// The body as Apollo Router writes it (boundary `graphql`).
    pub(super) fn router(payloads: &[&str]) -> Vec<u8> {
        let mut b = Vec::new();
        for (i, p) in payloads.iter().enumerate() {
            if i == 0 {
                b.extend_from_slice(b"\r\n--graphql");
            }
            b.extend_from_slice(b"\r\ncontent-type: application/json\r\n\r\n");
            b.extend_from_slice(p.as_bytes());
            b.extend_from_slice(b"\r\n--graphql");
        }
        b.extend_from_slice(b"--\r\n");
        b
    }

    /// The body as Apollo Server 5 writes it: each delimiter line whole, with its CRLF.
    pub(super) fn apollo_server(payloads: &[&str]) -> Vec<u8> {
        let mut b = b"\r\n---\r\n".to_vec();
        for (i, p) in payloads.iter().enumerate() {
            let end = if i + 1 == payloads.len() { "--" } else { "" };
            let part =
                format!("content-type: application/json; charset=utf-8\r\n\r\n{p}\r\n---{end}\r\n");
            b.extend_from_slice(part.as_bytes());
        }
        b
    }

    pub(super) const FIRST: &str = r#"{"data":{"user":{"id":"1"}},"hasNext":true}"#;
    pub(super) const LAST: &str =
        r#"{"incremental":[{"data":{"name":"Ada"},"path":["user"]}],"hasNext":false}"#;

    #[test]
    fn boundary_from_real_and_odd_heads() {
        assert_eq!(boundary(YOGA_HEAD).as_deref(), Some(&b"-"[..]));
        assert_eq!(boundary(ROUTER_HEAD).as_deref(), Some(&b"graphql"[..]));
        let odd = b"HTTP/1.1 200 OK\r\nContent-TYPE:  Multipart/Mixed ; deferSpec=20220824;; \
            BOUNDARY=abc ; charset=utf-8\r\n\r\n";
        assert_eq!(boundary(odd).as_deref(), Some(&b"abc"[..]));
        let quoted = b"content-type: multipart/mixed; x=\"a;boundary=no\"; boundary=\"a b\"\r\n";
        assert_eq!(boundary(quoted).as_deref(), Some(&b"a b"[..]));
        assert_eq!(
            boundary(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n"),
            None
        );
        assert_eq!(
            boundary(b"content-type: multipart/mixed; deferSpec=20220824\r\n"),
            None
        );
        assert_eq!(
            boundary(b"content-type: multipart/mixed; boundary=\"\"\r\n"),
            None
        );
        assert_eq!(boundary(b"HTTP/1.1 200 OK\r\n\r\n"), None);
    }

    #[test]
    fn parts_of_yoga_router_and_apollo_server_bodies() {
        let bodies = [
            (yoga(&[FIRST, LAST]), &b"-"[..]),
            (router(&[FIRST, LAST]), b"graphql"),
            (apollo_server(&[FIRST, LAST]), b"-"),
        ];
        for (body, b) in bodies {
            let got = parts(&body, b).expect("parts");
            assert_eq!(got, vec![FIRST.as_bytes(), LAST.as_bytes()]);
            let a = read(&body, b).expect("assembled");
            assert_eq!(a.data, json!({"user": {"id": "1", "name": "Ada"}}));
            assert_eq!(a.parts, 2);
        }
    }

    #[test]
    fn parts_without_preamble_or_headers_and_with_epilogue_and_heartbeat() {
        let body = b"--b\r\n\r\n{}\r\n--b  \r\nContent-Type: application/json\r\n\r\n{\"a\":1}\r\n\
            --bx is not a delimiter\r\n--b--\r\nepilogue";
        let got = parts(body, b"b").expect("parts");
        assert_eq!(got[0], b"{}");
        assert_eq!(got[1], &b"{\"a\":1}\r\n--bx is not a delimiter"[..]);
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn broken_bodies() {
        let full = router(&[FIRST, LAST]);
        let err = |body: &[u8]| parts(body, b"graphql").expect_err("broken");
        assert!(err(b"{\"data\":{}}").contains("no multipart delimiter"));
        assert!(err(&full[..full.len() - 4]).contains("truncated"));
        assert!(err(&full[..full.len() - 20]).contains("truncated"));
        assert!(
            err(b"\r\n--graphql\r\ncontent-type: application/json\r\n{}\r\n--graphql--")
                .contains("no blank line")
        );
        assert!(err(b"\r\n--graphql--\r\n").contains("no part"));
        assert!(parts(&full, b"").is_err());
    }
}
