//! When the first part of an incremental answer has arrived, watched as the body comes
//! in: on the load generator's hot path, so each call scans only the bytes it has not seen
//! and allocates nothing.
//!
//! The first part is in once its JSON payload is complete (its top-level value closed), or
//! else once the delimiter after it has come. Servers differ in when they send that
//! delimiter: Yoga, Apollo Router and Apollo Server flush it right after the payload, but a
//! server may also write each delimiter just before the next part, which would time the
//! second part instead. The payload's own end does not depend on that.

use super::{find_delimiter, is_dash_boundary_prefix, resume_at};

/// Where the watch is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum Stage {
    /// Looking for the delimiter that opens the first part.
    #[default]
    Opening,
    /// Looking for the blank line that ends the part's headers.
    Headers,
    /// In the payload: nesting depth, inside a string, after a backslash in one.
    Json {
        depth: u32,
        string: bool,
        escape: bool,
    },
    Done,
}

/// Watches a body as it arrives for the end of its first part (see the module header).
#[derive(Debug, Default, Clone)]
pub struct FirstPart {
    /// Where the scan of the stage resumes.
    pos: usize,
    /// Where the search for the delimiter after the first part resumes (the fallback).
    delimiter_pos: usize,
    stage: Stage,
}

impl FirstPart {
    pub fn new() -> Self {
        Self::default()
    }

    /// `body_so_far` is the whole body received so far (it only grows between calls).
    /// True once the first part has arrived: its JSON payload closed, or the delimiter
    /// `CRLF--boundary` after it (Yoga and Apollo Router complete that delimiter's line
    /// only with the next part, so its bare prefix counts).
    pub fn feed(&mut self, body_so_far: &[u8], boundary: &[u8]) -> bool {
        let body = body_so_far;
        if self.stage == Stage::Opening && !self.open(body, boundary) {
            return false;
        }
        if self.stage == Stage::Headers {
            // The delimiter line's own CRLF may be the first of the blank line's two.
            match body[self.pos..].windows(4).position(|w| w == b"\r\n\r\n") {
                Some(i) => {
                    self.pos += i + 4;
                    self.stage = Stage::Json {
                        depth: 0,
                        string: false,
                        escape: false,
                    };
                }
                None => {
                    self.pos = body.len().saturating_sub(3).max(self.pos);
                    return self.delimiter_after(body, boundary);
                }
            }
        }
        if let Stage::Json { .. } = self.stage {
            if self.json(body) {
                self.stage = Stage::Done;
            } else {
                return self.delimiter_after(body, boundary);
            }
        }
        self.stage == Stage::Done
    }

    /// Finds the delimiter that opens the first part; false while it has not come.
    fn open(&mut self, body: &[u8], boundary: &[u8]) -> bool {
        if self.pos == 0 {
            // No preamble: the body opens with `--boundary` itself.
            let open = 2 + boundary.len();
            let n = body.len().min(open);
            if is_dash_boundary_prefix(&body[..n], boundary) {
                if n < open {
                    return false;
                }
                self.pos = open;
                self.delimiter_pos = open;
                self.stage = Stage::Headers;
                return true;
            }
        }
        match find_delimiter(body, self.pos, boundary) {
            Some(at) => {
                self.pos = at + 4 + boundary.len();
                self.delimiter_pos = self.pos;
                self.stage = Stage::Headers;
                true
            }
            None => {
                self.pos = resume_at(body, self.pos, boundary);
                false
            }
        }
    }

    /// The payload scanned on from `pos`; true when its top-level value has closed.
    fn json(&mut self, body: &[u8]) -> bool {
        let Stage::Json {
            mut depth,
            mut string,
            mut escape,
        } = self.stage
        else {
            return false;
        };
        let mut closed = false;
        for &c in &body[self.pos..] {
            self.pos += 1;
            if string {
                match (escape, c) {
                    (true, _) => escape = false,
                    (false, b'\\') => escape = true,
                    (false, b'"') => string = false,
                    _ => {}
                }
                continue;
            }
            match c {
                b'"' => string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        closed = true;
                        break;
                    }
                }
                _ => {}
            }
        }
        self.stage = Stage::Json {
            depth,
            string,
            escape,
        };
        closed
    }

    /// The fallback for a payload that is not one JSON value: the delimiter after the
    /// first part.
    fn delimiter_after(&mut self, body: &[u8], boundary: &[u8]) -> bool {
        if find_delimiter(body, self.delimiter_pos, boundary).is_some() {
            self.stage = Stage::Done;
        } else {
            self.delimiter_pos = resume_at(body, self.delimiter_pos, boundary);
        }
        self.stage == Stage::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multipart::tests::{apollo_server, router, yoga, FIRST, LAST};

    /// Feeds `body` cut at `cuts` (increasing lengths) and checks each answer against
    /// whether the first part (which ends at `end`) is in.
    fn check_feeds(body: &[u8], b: &[u8], end: usize, cuts: impl Iterator<Item = usize>) {
        let mut fp = FirstPart::new();
        for len in cuts {
            let len = len.min(body.len());
            assert_eq!(fp.feed(&body[..len], b), len >= end, "after {len} bytes");
        }
    }

    #[test]
    fn first_part_byte_by_byte_and_in_odd_chunks() {
        let cases: [(Vec<u8>, &[u8], &[u8]); 4] = [
            (yoga(&[FIRST, LAST]), b"-", b"\r\n---"),
            (apollo_server(&[FIRST, LAST]), b"-", b"\r\n---"),
            (router(&[FIRST, LAST]), b"graphql", b"\r\n--graphql"),
            (
                b"--xy\r\n\r\n{}\r\n--xy\r\n\r\n{}\r\n--xy--".to_vec(),
                b"xy",
                b"\r\n--xy",
            ),
        ];
        for (body, b, delim) in &cases {
            // The first payload's closing brace ends the first part.
            let first = if body.starts_with(b"--xy") {
                &b"{}"[..]
            } else {
                FIRST.as_bytes()
            };
            let end = first.len()
                + body
                    .windows(first.len())
                    .position(|w| w == first)
                    .expect("the first payload");
            let _ = delim;
            check_feeds(body, b, end, 0..=body.len());
            for step in [2, 3, 5, 7, 11, 13] {
                check_feeds(body, b, end, (0..=body.len() / step + 1).map(|k| k * step));
            }
            // Cut right before and at the closing brace.
            check_feeds(body, b, end, [end - 2, end - 1, end].into_iter());
            check_feeds(body, b, end, [end - 1, body.len()].into_iter());
        }
    }

    #[test]
    fn the_first_part_is_in_when_its_json_closes_even_before_the_next_delimiter() {
        let b = b"graphql";
        let body = b"\r\n--graphql\r\ncontent-type: application/json\r\n\r\n{\"a\":\"}{\\\"\",\"hasNext\":true}";
        let mut fp = FirstPart::new();
        assert!(!fp.feed(&body[..body.len() - 1], b));
        assert!(
            fp.feed(body, b),
            "braces and quotes inside strings do not count"
        );
        let mut fp = FirstPart::new();
        assert!(!fp.feed(b"\r\n--graph", b));
        assert!(!fp.feed(b"\r\n--graphql", b));
        // A payload that is not JSON ends with the delimiter after it.
        let mut fp = FirstPart::new();
        let odd = b"\r\n--graphql\r\n\r\nnot json\r\n--graphql";
        assert!(!fp.feed(&odd[..odd.len() - 3], b));
        assert!(fp.feed(odd, b));
    }
}
