//! Requests built once before the run: each variant's full HTTP/1.1 request bytes, and the
//! weighted choice of operations. Nothing here allocates per request.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde_json::Value;

use crate::headers::HeaderRule;
use crate::plan::LoadPlan;
use crate::validate::Shape;

/// The Accept line of every request but incremental ones.
const JSON_ACCEPT: &str = "Accept: application/json\r\n";

/// One variant ready to send.
#[derive(Debug)]
pub struct ReadyVariant {
    /// Dense id over all variants of all operations (validator memo index).
    pub id: usize,
    /// Request bytes up to the point where the unique header goes (the whole request when
    /// nothing in it changes per request).
    pub head: Vec<u8>,
    /// The rest: end of headers and the body (empty when `head` is the whole request, or
    /// when the body has a unique number: then `number` holds it).
    pub tail: Vec<u8>,
    /// The body around its unique number, when it has one.
    pub number: Option<NumberedBody>,
    pub expected: Option<Value>,
    /// How its answer is read and judged (one response, a batch, incremental parts).
    pub shape: Shape,
    /// A persisted query's short form, sent first (the full request is `head`/`tail`).
    pub short: Option<ShortForm>,
}

/// The short form of a persisted query ready to send: the bytes before and after the
/// place of the unique header (all in `head` when there is none).
#[derive(Debug)]
pub struct ShortForm {
    pub head: Vec<u8>,
    pub tail: Vec<u8>,
}

/// A body whose number changes per request: the bytes before and after it, and the
/// smallest number it takes. Its Content-Length is written per request.
#[derive(Debug)]
pub struct NumberedBody {
    pub before: Vec<u8>,
    pub after: Vec<u8>,
    pub from: u64,
}

/// The next unique numbers of the process, handed to workers in blocks so that they do
/// not contend on every request: no two requests of any run in this process get the same,
/// and none gets 0, so no request repeats the body as written (which checks and priming
/// send).
static NEXT_NUMBERS: AtomicU64 = AtomicU64::new(1);
const NUMBER_BLOCK: u64 = 1024;

/// A block of numbers no one else in this process gets: `start..start + NUMBER_BLOCK`.
pub fn take_number_block() -> std::ops::Range<u64> {
    let start = NEXT_NUMBERS.fetch_add(NUMBER_BLOCK, Ordering::Relaxed);
    start..start + NUMBER_BLOCK
}

/// One operation ready to send.
#[derive(Debug)]
pub struct ReadyOp {
    pub name: String,
    pub variants: Vec<ReadyVariant>,
}

/// Everything the workers share, read-only.
#[derive(Debug)]
pub struct Prepared {
    pub ops: Vec<ReadyOp>,
    /// Cumulative weights, for picking an operation with one random number.
    cumulative: Vec<u64>,
    total_weight: u64,
    pub variant_count: usize,
    /// `name: ` of the unique header, if any.
    pub unique_header: Option<Vec<u8>>,
    /// Headers every response must carry.
    pub response_headers: Option<HeaderRule>,
}

impl Prepared {
    pub fn new(plan: &LoadPlan) -> Arc<Prepared> {
        let mut fixed = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n{JSON_ACCEPT}",
            plan.endpoint.path, plan.endpoint.host
        );
        for (k, v) in &plan.headers {
            fixed.push_str(k);
            fixed.push_str(": ");
            fixed.push_str(v);
            fixed.push_str("\r\n");
        }
        let unique_header = plan
            .unique_request_header
            .as_ref()
            .map(|h| format!("{h}: ").into_bytes());
        let mut id = 0;
        let mut ops = Vec::new();
        let mut cumulative = Vec::new();
        let mut total = 0u64;
        for op in &plan.operations {
            let mut variants = Vec::new();
            for v in &op.variants {
                let mut head = match &v.incremental {
                    // Every other header as for the rest; the Accept line names the parts.
                    Some(accept) => fixed
                        .replacen(JSON_ACCEPT, &format!("Accept: {accept}\r\n"), 1)
                        .into_bytes(),
                    None => fixed.clone().into_bytes(),
                };
                let number = v.unique.map(|u| NumberedBody {
                    before: v.body[..u.at].to_vec(),
                    after: v.body[u.at + u.len..].to_vec(),
                    from: u.from,
                });
                let mut tail = Vec::new();
                if number.is_none() {
                    tail = format!("Content-Length: {}\r\n\r\n", v.body.len()).into_bytes();
                    tail.extend_from_slice(&v.body);
                    if unique_header.is_none() {
                        head.extend_from_slice(&tail);
                        tail.clear();
                    }
                }
                let short = v.persisted.as_ref().map(|p| {
                    let (mut head, mut tail) = if p.get {
                        let query = String::from_utf8_lossy(&p.short);
                        let line = format!("GET {}?{query} HTTP/1.1\r\n", plan.endpoint.path);
                        let rest = fixed.split_once("\r\n").map_or("", |(_, r)| r);
                        (format!("{line}{rest}").into_bytes(), b"\r\n".to_vec())
                    } else {
                        let mut tail =
                            format!("Content-Length: {}\r\n\r\n", p.short.len()).into_bytes();
                        tail.extend_from_slice(&p.short);
                        (fixed.clone().into_bytes(), tail)
                    };
                    if unique_header.is_none() {
                        head.append(&mut tail);
                    }
                    ShortForm { head, tail }
                });
                variants.push(ReadyVariant {
                    id,
                    head,
                    tail,
                    number,
                    expected: v.expected_data.clone(),
                    shape: v.shape(),
                    short,
                });
                id += 1;
            }
            total += op.weight as u64;
            cumulative.push(total);
            ops.push(ReadyOp {
                name: op.name.clone(),
                variants,
            });
        }
        Arc::new(Prepared {
            ops,
            cumulative,
            total_weight: total,
            variant_count: id,
            unique_header,
            response_headers: plan.response_headers.clone(),
        })
    }

    /// Operation for a uniform random number (weights respected; weight 0 never chosen).
    pub fn pick_op(&self, random: u64) -> usize {
        if self.ops.len() == 1 {
            return 0;
        }
        let x = random % self.total_weight.max(1);
        self.cumulative.partition_point(|&c| c <= x)
    }

    pub fn op_names(&self) -> Vec<String> {
        self.ops.iter().map(|o| o.name.clone()).collect()
    }

    /// Whether (op, variant)'s body takes a unique number per request.
    pub fn numbered(&self, op: usize, variant: usize) -> bool {
        self.ops[op].variants[variant].number.is_some()
    }

    /// Appends the request for (op, variant) to `out`: a persisted query's short form,
    /// else the full request ([`Prepared::write_full`]).
    pub fn write_request(
        &self,
        op: usize,
        variant: usize,
        unique: &[u8],
        number: u64,
        out: &mut Vec<u8>,
    ) {
        let Some(short) = &self.ops[op].variants[variant].short else {
            return self.write_full(op, variant, unique, number, out);
        };
        out.extend_from_slice(&short.head);
        if let Some(h) = &self.unique_header {
            out.extend_from_slice(h);
            out.extend_from_slice(unique);
            out.extend_from_slice(b"\r\n");
            out.extend_from_slice(&short.tail);
        }
    }

    /// Appends the full request for (op, variant) to `out`; with a unique header,
    /// `unique` is written as its value; a numbered body gets `from + number`.
    pub fn write_full(
        &self,
        op: usize,
        variant: usize,
        unique: &[u8],
        number: u64,
        out: &mut Vec<u8>,
    ) {
        let v = &self.ops[op].variants[variant];
        out.extend_from_slice(&v.head);
        if let Some(h) = &self.unique_header {
            out.extend_from_slice(h);
            out.extend_from_slice(unique);
            out.extend_from_slice(b"\r\n");
        }
        match &v.number {
            None => out.extend_from_slice(&v.tail),
            Some(n) => {
                let mut d = [0u8; 20];
                let mut l = [0u8; 20];
                let digits = fmt_u64(n.from.saturating_add(number), &mut d);
                let len = n.before.len() + digits.len() + n.after.len();
                out.extend_from_slice(b"Content-Length: ");
                out.extend_from_slice(fmt_u64(len as u64, &mut l));
                out.extend_from_slice(b"\r\n\r\n");
                out.extend_from_slice(&n.before);
                out.extend_from_slice(digits);
                out.extend_from_slice(&n.after);
            }
        }
    }
}

/// xorshift64*: a tiny deterministic PRNG per connection (no shared state, no syscalls).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Spread small seeds (connection numbers) over the state space; never zero.
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// Writes `n` in decimal into `buf` and returns the digits (no allocation).
pub fn fmt_u64(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::endpoint::Endpoint;
    use crate::plan::*;
    use crate::schedule::Stages;
    use bytes::Bytes;

    fn plan(unique: Option<&str>) -> LoadPlan {
        let endpoint = Endpoint {
            addr: "127.0.0.1:1".parse().unwrap(),
            host: "h:1".into(),
            path: "/graphql".into(),
        };
        let op = |name: &str, weight| Operation {
            name: name.into(),
            weight,
            variants: vec![Variant {
                body: Bytes::from_static(br#"{"query":"{a}"}"#),
                expected_data: None,
                unique: None,
                batch: None,
                incremental: None,
                persisted: None,
            }],
        };
        let mut p = LoadPlan::new(
            endpoint,
            vec![op("a", 6), op("b", 0), op("c", 4)],
            Schedule::Closed {
                connections: Stages::constant(1.0),
                pipelining: 1,
                think_time: Default::default(),
            },
            Stop {
                duration: None,
                max_requests: Some(1),
                extend: None,
            },
        );
        p.headers.push(("authorization".into(), "Bearer x".into()));
        p.unique_request_header = unique.map(str::to_string);
        p
    }

    #[test]
    fn request_bytes() {
        let p = Prepared::new(&plan(None));
        let mut out = Vec::new();
        p.write_request(0, 0, b"", 0, &mut out);
        let s = String::from_utf8(out).unwrap();
        assert!(s.starts_with("POST /graphql HTTP/1.1\r\nHost: h:1\r\n"));
        assert!(s.contains("authorization: Bearer x\r\n"));
        assert!(s.ends_with("Content-Length: 15\r\n\r\n{\"query\":\"{a}\"}"));
        let p = Prepared::new(&plan(Some("x-request-id")));
        let mut out = Vec::new();
        p.write_request(2, 0, b"42", 0, &mut out);
        let s = String::from_utf8(out).unwrap();
        assert!(
            s.contains("\r\nx-request-id: 42\r\nContent-Length: 15\r\n\r\n{"),
            "{s}"
        );
    }

    #[test]
    fn a_numbered_body_gets_its_number_and_length_per_request() {
        let mut p = plan(Some("x-request-id"));
        let body = br#"{"query":"q","variables":{"limit":10}}"#;
        let at = body.windows(2).position(|w| w == b"10").unwrap();
        p.operations[0].variants[0] = Variant {
            body: Bytes::from_static(body),
            expected_data: None,
            unique: Some(crate::plan::UniqueNumber {
                at,
                len: 2,
                from: 10,
            }),
            batch: None,
            incremental: None,
            persisted: None,
        };
        let prep = Prepared::new(&p);
        assert!(prep.numbered(0, 0) && !prep.numbered(2, 0));
        let mut out = Vec::new();
        prep.write_request(0, 0, b"7", 12345, &mut out);
        let s = String::from_utf8(out).unwrap();
        let want = r#"{"query":"q","variables":{"limit":12355}}"#;
        assert!(
            s.ends_with(&format!(
                "x-request-id: 7\r\nContent-Length: {}\r\n\r\n{want}",
                want.len()
            )),
            "{s}"
        );
        // Blocks never overlap, whoever takes them.
        let a = take_number_block();
        let b = take_number_block();
        assert!(a.end <= b.start || b.end <= a.start);
    }

    #[test]
    fn weights_are_respected() {
        let p = Prepared::new(&plan(None));
        let mut rng = Rng::new(7);
        let mut counts = [0u32; 3];
        for _ in 0..10_000 {
            counts[p.pick_op(rng.next_u64())] += 1;
        }
        assert_eq!(counts[1], 0);
        assert!((5700..6300).contains(&counts[0]), "{counts:?}");
        assert_eq!(counts[0] + counts[2], 10_000);
    }

    #[test]
    fn decimal() {
        let mut b = [0u8; 20];
        assert_eq!(fmt_u64(0, &mut b), b"0");
        assert_eq!(fmt_u64(u64::MAX, &mut b), b"18446744073709551615");
    }
}
