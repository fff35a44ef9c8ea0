//! Pulls a few values out of a JSON message in one pass, without building a
//! `serde_json::Value`: at 100,000 messages per second a tree per message (a map and a
//! string per key) would cost more than everything else the generator does.
//!
//! The wanted values are given as JSON pointers. A serde visitor walks the document; at
//! each object it compares keys with the pointers still alive at that depth (no key is
//! copied) and skips every other value with `IgnoredAny`. Strings are borrowed from the
//! input unless they contain escapes. The document must still be valid JSON as a whole:
//! serde_json checks the skipped parts too, so a truncated message is an error.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// At most this many pointers per extraction (they are tracked as bits of a `u32`).
pub const MAX_PATHS: usize = 32;

/// What was found at a pointer.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Val<'de> {
    #[default]
    Missing,
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(Cow<'de, str>),
    Array {
        empty: bool,
    },
    Object,
}

impl Val<'_> {
    /// A number, or a string holding one (some schemas carry timestamps as strings).
    pub fn as_f64(&self) -> Option<f64> {
        let v = match self {
            Val::U64(n) => *n as f64,
            Val::I64(n) => *n as f64,
            Val::F64(f) => *f,
            Val::Str(s) => s.trim().parse::<f64>().ok()?,
            _ => return None,
        };
        v.is_finite().then_some(v)
    }

    /// A non-negative integer (an integral float or a numeric string are accepted).
    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Val::U64(n) => Some(*n),
            Val::I64(n) => u64::try_from(*n).ok(),
            Val::F64(f) if f.fract() == 0.0 && *f >= 0.0 && *f < u64::MAX as f64 => Some(*f as u64),
            Val::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// The value is absent or null.
    pub fn is_absent(&self) -> bool {
        matches!(self, Val::Missing | Val::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
struct Seg {
    key: String,
    /// The key as an array index, when it is one.
    index: Option<usize>,
}

/// A set of parsed JSON pointers.
#[derive(Debug, Clone, Default)]
pub struct Paths {
    paths: Vec<Vec<Seg>>,
}

/// Parses an RFC 6901 pointer (`""` is the whole document) into its reference tokens.
pub fn parse_pointer(p: &str) -> Result<Vec<String>, String> {
    if p.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = p.strip_prefix('/') else {
        return Err(format!("JSON pointer {p:?} must start with '/'"));
    };
    rest.split('/')
        .map(|tok| {
            if tok.replace("~0", "").replace("~1", "").contains('~') {
                return Err(format!("JSON pointer {p:?} has a bad '~' escape"));
            }
            Ok(tok.replace("~1", "/").replace("~0", "~"))
        })
        .collect()
}

impl Paths {
    /// Paths from reference-token lists (at most [`MAX_PATHS`]).
    pub fn new(paths: Vec<Vec<String>>) -> Result<Paths, String> {
        if paths.len() > MAX_PATHS {
            return Err(format!("at most {MAX_PATHS} JSON pointers"));
        }
        Ok(Paths {
            paths: paths
                .into_iter()
                .map(|p| {
                    p.into_iter()
                        .map(|key| Seg {
                            // RFC 6901 indices: digits without a leading zero.
                            index: if key.bytes().all(|b| b.is_ascii_digit())
                                && (key == "0" || !key.starts_with('0'))
                            {
                                key.parse().ok()
                            } else {
                                None
                            },
                            key,
                        })
                        .collect()
                })
                .collect(),
        })
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    fn all(&self) -> u32 {
        if self.paths.len() == MAX_PATHS {
            u32::MAX
        } else {
            (1u32 << self.paths.len()) - 1
        }
    }

    /// Paths of `mask` that end at `depth`.
    fn ending(&self, mask: u32, depth: usize) -> u32 {
        self.select(mask, |p| p.len() == depth)
    }

    /// Paths of `mask` that go deeper than `depth`.
    fn deeper(&self, mask: u32, depth: usize) -> u32 {
        self.select(mask, |p| p.len() > depth)
    }

    fn select(&self, mask: u32, f: impl Fn(&[Seg]) -> bool) -> u32 {
        let mut out = 0;
        let mut m = mask;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            if f(&self.paths[i]) {
                out |= 1 << i;
            }
        }
        out
    }
}

/// Fills `out[i]` with the value at pointer `i` of `paths` (`Val::Missing` when absent).
/// `out` must have `paths.len()` entries. Errors when `json` is not one valid JSON value.
pub fn extract<'de>(
    json: &'de [u8],
    paths: &Paths,
    out: &mut [Val<'de>],
) -> Result<(), serde_json::Error> {
    for v in out.iter_mut() {
        *v = Val::Missing;
    }
    let mut de = serde_json::Deserializer::from_slice(json);
    Node {
        paths,
        mask: paths.all(),
        depth: 0,
        out,
    }
    .deserialize(&mut de)?;
    de.end()
}

/// The value at `depth` reached by the paths of `mask`.
struct Node<'p, 'o, 'de> {
    paths: &'p Paths,
    mask: u32,
    depth: usize,
    out: &'o mut [Val<'de>],
}

impl<'de> Node<'_, '_, 'de> {
    fn set(&mut self, v: Val<'de>) {
        let mut m = self.paths.ending(self.mask, self.depth);
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            if let Some(slot) = self.out.get_mut(i) {
                *slot = v.clone();
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(mut self, v: bool) -> Result<(), E> {
        self.set(Val::Bool(v));
        Ok(())
    }
    fn visit_i64<E: de::Error>(mut self, v: i64) -> Result<(), E> {
        self.set(Val::I64(v));
        Ok(())
    }
    fn visit_u64<E: de::Error>(mut self, v: u64) -> Result<(), E> {
        self.set(Val::U64(v));
        Ok(())
    }
    fn visit_f64<E: de::Error>(mut self, v: f64) -> Result<(), E> {
        self.set(Val::F64(v));
        Ok(())
    }
    fn visit_borrowed_str<E: de::Error>(mut self, v: &'de str) -> Result<(), E> {
        self.set(Val::Str(Cow::Borrowed(v)));
        Ok(())
    }
    fn visit_str<E: de::Error>(mut self, v: &str) -> Result<(), E> {
        // Only strings with escapes get here; copy one only when a pointer ends on it.
        if self.paths.ending(self.mask, self.depth) != 0 {
            self.set(Val::Str(Cow::Owned(v.to_string())));
        }
        Ok(())
    }
    fn visit_unit<E: de::Error>(mut self) -> Result<(), E> {
        self.set(Val::Null);
        Ok(())
    }
    fn visit_none<E: de::Error>(mut self) -> Result<(), E> {
        self.set(Val::Null);
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        self.set(Val::Object);
        let deeper = self.paths.deeper(self.mask, self.depth);
        loop {
            let key = KeyMatch {
                paths: self.paths,
                mask: deeper,
                depth: self.depth,
            };
            let Some(sub) = map.next_key_seed(key)? else {
                return Ok(());
            };
            if sub == 0 {
                map.next_value::<IgnoredAny>()?;
            } else {
                map.next_value_seed(Node {
                    paths: self.paths,
                    mask: sub,
                    depth: self.depth + 1,
                    out: &mut *self.out,
                })?;
            }
        }
    }
    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let deeper = self.paths.deeper(self.mask, self.depth);
        let mut i = 0usize;
        loop {
            let sub = if deeper == 0 {
                0
            } else {
                self.paths
                    .select(deeper, |p| p[self.depth].index == Some(i))
            };
            let more = if sub == 0 {
                seq.next_element::<IgnoredAny>()?.is_some()
            } else {
                seq.next_element_seed(Node {
                    paths: self.paths,
                    mask: sub,
                    depth: self.depth + 1,
                    out: &mut *self.out,
                })?
                .is_some()
            };
            if !more {
                break;
            }
            i += 1;
        }
        self.set(Val::Array { empty: i == 0 });
        Ok(())
    }
}

/// An object key, compared with the paths of `mask` at `depth`; yields the paths it matches.
struct KeyMatch<'p> {
    paths: &'p Paths,
    mask: u32,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for KeyMatch<'_> {
    type Value = u32;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyMatch<'_> {
    type Value = u32;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<u32, E> {
        if self.mask == 0 {
            return Ok(0);
        }
        Ok(self.paths.select(self.mask, |p| p[self.depth].key == v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(ps: &[&str]) -> Paths {
        Paths::new(ps.iter().map(|p| parse_pointer(p).unwrap()).collect()).unwrap()
    }

    #[test]
    fn finds_values_and_skips_the_rest() {
        let p = paths(&[
            "/type",
            "/id",
            "/payload/errors",
            "/payload/data",
            "/payload/data/ticks/publishedAt",
            "/payload/data/ticks/seq",
            "/payload/list/1",
            "/a~1b",
        ]);
        let msg = br#"{"id":"1","type":"next","other":{"x":[1,2,{"y":null}]},
            "payload":{"data":{"ticks":{"seq":42,"publishedAt":1712345678901.125}},
            "list":["a","b\"c"]},"a/b":true}"#;
        let mut out = vec![Val::Missing; p.len()];
        extract(msg, &p, &mut out).unwrap();
        assert_eq!(out[0].as_str(), Some("next"));
        assert_eq!(out[1].as_str(), Some("1"));
        assert_eq!(out[2], Val::Missing);
        assert_eq!(out[3], Val::Object);
        assert_eq!(out[4].as_f64(), Some(1712345678901.125));
        assert_eq!(out[5].as_u64(), Some(42));
        assert_eq!(out[6].as_str(), Some("b\"c"));
        assert_eq!(out[7], Val::Bool(true));
    }

    #[test]
    fn errors_and_nulls_and_bad_json() {
        let p = paths(&["/errors", "/data", "/data/x"]);
        let mut out = vec![Val::Missing; 3];
        extract(
            br#"{"errors":[{"message":"boom"}],"data":null}"#,
            &p,
            &mut out,
        )
        .unwrap();
        assert_eq!(out[0], Val::Array { empty: false });
        assert_eq!(out[1], Val::Null);
        assert_eq!(out[2], Val::Missing);
        extract(br#"{"errors":[],"data":{"x":"17"}}"#, &p, &mut out).unwrap();
        assert_eq!(out[0], Val::Array { empty: true });
        assert_eq!(out[2].as_u64(), Some(17));
        assert!(extract(br#"{"data":{"x":1}"#, &p, &mut out).is_err());
        assert!(extract(br#"{"data":{"x":1}} trailing"#, &p, &mut out).is_err());
        assert!(extract(b"", &p, &mut out).is_err());
        // A deeply nested document fails cleanly (recursion limit), never overflows.
        let deep = "[".repeat(100_000);
        assert!(extract(deep.as_bytes(), &p, &mut out).is_err());
    }

    #[test]
    fn pointer_syntax() {
        assert_eq!(parse_pointer("").unwrap(), Vec::<String>::new());
        assert_eq!(parse_pointer("/a~1b/~0c").unwrap(), vec!["a/b", "~c"]);
        assert!(parse_pointer("a/b").is_err());
        assert!(parse_pointer("/a~2").is_err());
    }

    #[test]
    fn number_conversions() {
        assert_eq!(Val::F64(3.0).as_u64(), Some(3));
        assert_eq!(Val::F64(3.5).as_u64(), None);
        assert_eq!(Val::I64(-1).as_u64(), None);
        assert_eq!(Val::Str("12.5".into()).as_f64(), Some(12.5));
        assert_eq!(Val::Bool(true).as_f64(), None);
        assert_eq!(Val::Str("NaN".into()).as_f64(), None);
    }
}
