//! Framing of GraphQL incremental delivery (`@defer` / `@stream`) over Server-Sent Events,
//! as GraphQL Yoga and Hive Gateway answer `Accept: text/event-stream` (GraphQL over SSE,
//! distinct connections mode): a `text/event-stream` body whose `next` events each carry
//! one execution result as their data, ended by a `complete` event. Yoga writes `:` (a
//! comment) first and every 12 s as a keep-alive, `event: next` + `data: <json>` + a blank
//! line per result, and `event: complete` + `data:` + a blank line at the end, all with LF.
//!
//! Lines are read as the WHATWG event-stream format has them (LF, CRLF or CR endings;
//! comments skipped; one space after the colon dropped; `data` lines of one event joined
//! with LF). When the first `next` event has arrived is watched on the hot path as bytes
//! come in ([`FirstEvent`], no allocation); the split of a complete body into its events'
//! payloads ([`payloads`]) feeds the same assembler as multipart parts, so an answer is
//! judged the same whichever framing carried it.
//!
//! Leniency, as the subscription reader (`subscribe::sse`) has it: an event without a name
//! (or named `message`) with data counts as `next`, since some servers leave the name out,
//! and `complete` ends the stream even without a data line. Events of other names are
//! skipped. Strictness: a body that ends without `complete`, or mid-event, is a
//! `Protocol` failure; a `next` after `complete` too.

use std::borrow::Cow;

use crate::failure::FailureKind;
use crate::multipart::{assemble, Assembled};

/// Whether a response head's Content-Type is `text/event-stream` (parameters allowed).
pub fn is_event_stream(head: &[u8]) -> bool {
    crate::multipart::content_type(head).is_some_and(|value| {
        let end = value.iter().position(|&c| c == b';').unwrap_or(value.len());
        value[..end]
            .trim_ascii()
            .eq_ignore_ascii_case(b"text/event-stream")
    })
}

/// A complete body read through: [`payloads`] then [`assemble`]; a framing fault is a
/// `Protocol` failure, as is a payload that is not JSON (the assembler's verdict).
pub fn read(body: &[u8]) -> Result<Assembled, (FailureKind, String)> {
    let payloads = payloads(body).map_err(|e| (FailureKind::Protocol, e))?;
    let parts: Vec<&[u8]> = payloads.iter().map(|p| p.as_ref()).collect();
    assemble(&parts)
}

/// Lines of a body, read on from where the last call stopped. A CR ends a line at once
/// (it may be the whole ending); an LF right after it is then skipped, even when it comes
/// in a later read, so a split CRLF is never taken for two line ends. The one line reader
/// of the event-stream format: the subscription reader (`subscribe::sse::stream`) reads
/// its events with it too, as it does fields ([`field`]) and names ([`Name`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct Lines {
    /// Where the next line starts.
    pos: usize,
    /// The last line ended with a CR: an LF at `pos` belongs to it.
    after_cr: bool,
    /// Where the search for the next line end resumes: a long line arriving over many
    /// reads is scanned once, not from its start at each read.
    seen: usize,
}

impl Lines {
    pub(crate) fn at(pos: usize) -> Lines {
        Lines {
            pos,
            after_cr: false,
            seen: pos,
        }
    }

    /// The next complete line of `body` (the whole body so far), without its ending; None
    /// while no line end has come.
    pub(crate) fn next<'a>(&mut self, body: &'a [u8]) -> Option<&'a [u8]> {
        if self.after_cr && self.pos < body.len() {
            self.after_cr = false;
            if body[self.pos] == b'\n' {
                self.pos += 1;
            }
        }
        let from = self.seen.max(self.pos);
        let Some(i) = body[from..].iter().position(|&c| c == b'\n' || c == b'\r') else {
            self.seen = body.len();
            return None;
        };
        let (start, end) = (self.pos, from + i);
        self.after_cr = body[end] == b'\r';
        self.pos = end + 1;
        self.seen = self.pos;
        Some(&body[start..end])
    }

    /// Where the next line starts.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The body lost its first `n` bytes (all of them read): positions move with it.
    pub(crate) fn shift(&mut self, n: usize) {
        self.pos -= n;
        self.seen = self.seen.saturating_sub(n);
    }

    /// Bytes after the last line end: a line still incomplete (an LF that ends a CRLF
    /// already read does not count).
    fn unfinished(&self, body: &[u8]) -> bool {
        let rest = &body[self.pos.min(body.len())..];
        match rest {
            [] => false,
            [b'\n'] => !self.after_cr,
            _ => true,
        }
    }
}

/// What a field line says; comments and other fields (`id`, `retry`) say nothing here.
pub(crate) enum Field<'a> {
    Event(&'a [u8]),
    Data(&'a [u8]),
    Other,
}

/// A non-empty line as a field: name up to the first colon, value after it without one
/// leading space; a line without a colon is a name with an empty value.
pub(crate) fn field(line: &[u8]) -> Field<'_> {
    if line.first() == Some(&b':') {
        return Field::Other;
    }
    let (name, value) = match line.iter().position(|&c| c == b':') {
        Some(i) => {
            let v = &line[i + 1..];
            (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
        }
        None => (line, &b""[..]),
    };
    match name {
        b"event" => Field::Event(value),
        b"data" => Field::Data(value),
        _ => Field::Other,
    }
}

/// What an event's name makes of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Name {
    /// No `event` field (or an empty one, or `message`): a payload when it has data.
    #[default]
    Unnamed,
    Next,
    Complete,
    Other,
}

impl Name {
    pub(crate) fn of(value: &[u8]) -> Name {
        match value {
            b"" | b"message" => Name::Unnamed,
            b"next" => Name::Next,
            b"complete" => Name::Complete,
            _ => Name::Other,
        }
    }

    /// Whether an event of this name carries an execution result (given it has data).
    pub(crate) fn is_payload(self) -> bool {
        matches!(self, Name::Unnamed | Name::Next)
    }
}

/// The UTF-8 byte order mark, which the format allows before the first line.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Watches a body as it arrives for the first `next` event (see the module header): in
/// once the blank line that dispatches it has come. Each call scans only the bytes it has
/// not seen.
#[derive(Debug, Default, Clone)]
pub struct FirstEvent {
    lines: Lines,
    name: Name,
    has_data: bool,
    done: bool,
}

impl FirstEvent {
    pub fn new() -> Self {
        Self::default()
    }

    /// `body_so_far` is the whole body received so far (it only grows between calls).
    /// True once its first `next` event has arrived.
    pub fn feed(&mut self, body_so_far: &[u8]) -> bool {
        if self.done {
            return true;
        }
        if self.lines.pos == 0 {
            if BOM.starts_with(body_so_far) {
                // Too short to tell a BOM from the first line yet.
                return false;
            }
            if body_so_far.starts_with(BOM) {
                self.lines = Lines::at(BOM.len());
            }
        }
        while let Some(line) = self.lines.next(body_so_far) {
            if line.is_empty() {
                let name = std::mem::take(&mut self.name);
                if std::mem::take(&mut self.has_data) && name.is_payload() {
                    self.done = true;
                    return true;
                }
                continue;
            }
            match field(line) {
                Field::Event(v) => self.name = Name::of(v),
                Field::Data(_) => self.has_data = true,
                Field::Other => {}
            }
        }
        false
    }
}

/// The event being read: its name and its data so far (borrowed while it is one line).
#[derive(Default)]
struct Event<'a> {
    name: Name,
    data: Option<Cow<'a, [u8]>>,
    /// A field line came since the last dispatch.
    started: bool,
}

/// The payloads of a complete `text/event-stream` body: the data of its `next` events, in
/// order, up to its `complete` event. `Err` is a short description of the framing fault.
pub fn payloads(body: &[u8]) -> Result<Vec<Cow<'_, [u8]>>, String> {
    let mut lines = Lines::at(if body.starts_with(BOM) { BOM.len() } else { 0 });
    let mut out = Vec::new();
    let mut event = Event::default();
    let mut complete = false;
    while let Some(line) = lines.next(body) {
        if !line.is_empty() {
            match field(line) {
                Field::Event(v) => event.name = Name::of(v),
                Field::Data(v) => match &mut event.data {
                    None => event.data = Some(Cow::Borrowed(v)),
                    Some(d) => {
                        let d = d.to_mut();
                        d.push(b'\n');
                        d.extend_from_slice(v);
                    }
                },
                Field::Other => {}
            }
            event.started |= line[0] != b':';
            continue;
        }
        let Event { name, data, .. } = std::mem::take(&mut event);
        match (name, data) {
            (Name::Complete, _) => {
                if complete {
                    return Err("event stream has two complete events".to_string());
                }
                complete = true;
            }
            (name, Some(data)) if name.is_payload() => {
                if complete {
                    return Err(format!(
                        "event stream has a next event after complete (event {})",
                        out.len()
                    ));
                }
                out.push(data);
            }
            _ => {}
        }
    }
    if event.started || lines.unfinished(body) {
        return Err(format!(
            "truncated event stream: it ends mid-event after {} next events{}",
            out.len(),
            if complete { "" } else { ", without complete" }
        ));
    }
    if !complete {
        return Err(format!(
            "truncated event stream: no complete event after {} next events",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FIRST: &str = r#"{"data":{"user":{"id":"1"}},"hasNext":true}"#;
    const LAST: &str =
        r#"{"incremental":[{"data":{"name":"Ada"},"path":["user"]}],"hasNext":false}"#;

    /// The body as Yoga writes it (see the module header).
    fn yoga(payloads: &[&str]) -> Vec<u8> {
        let mut b = b":\n\n".to_vec();
        for p in payloads {
            b.extend_from_slice(format!("event: next\ndata: {p}\n\n").as_bytes());
        }
        b.extend_from_slice(b"event: complete\ndata:\n\n");
        b
    }

    fn got(body: &[u8]) -> Vec<Vec<u8>> {
        payloads(body)
            .expect("payloads")
            .into_iter()
            .map(Cow::into_owned)
            .collect()
    }

    #[test]
    fn event_stream_heads() {
        let yoga =
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: keep-alive\r\n\r\n";
        assert!(is_event_stream(yoga));
        assert!(is_event_stream(
            b"content-type:  Text/Event-Stream ; charset=utf-8\r\n"
        ));
        assert!(!is_event_stream(
            b"content-type: multipart/mixed; boundary=\"-\"\r\n"
        ));
        assert!(!is_event_stream(b"content-type: text/event-streams\r\n"));
        assert!(!is_event_stream(b"HTTP/1.1 200 OK\r\n\r\n"));
    }

    #[test]
    fn yoga_bodies_assemble_like_multipart_parts() {
        let body = yoga(&[FIRST, LAST]);
        assert_eq!(got(&body), vec![FIRST.as_bytes(), LAST.as_bytes()]);
        let a = read(&body).expect("assembled");
        assert_eq!(a.data, json!({"user": {"id": "1", "name": "Ada"}}));
        assert_eq!(a.parts, 2);
    }

    #[test]
    fn crlf_cr_comments_unnamed_events_and_data_over_lines() {
        // CRLF and lone CR endings, a BOM, comments and keep-alives between events, `id`
        // and `retry` fields, an unnamed event, no space after the colon, other events.
        let body =
            "\u{feff}: hello\r\nretry: 100\r\n\r\nevent:next\rid: 1\rdata:{\"data\":{\"a\":1},\r\
            data: \"hasNext\":true}\r\r:\r\n\r\nevent: ping\ndata: x\n\n\
            data: {\"incremental\":[],\"hasNext\":false}\n\nevent: complete\n\n: bye\n";
        let want: Vec<&[u8]> = vec![
            b"{\"data\":{\"a\":1},\n\"hasNext\":true}",
            b"{\"incremental\":[],\"hasNext\":false}",
        ];
        assert_eq!(got(body.as_bytes()), want);
        let a = read(body.as_bytes()).expect("assembled");
        assert_eq!((a.data, a.parts), (json!({"a": 1}), 2));
    }

    #[test]
    fn broken_streams() {
        let full = yoga(&[FIRST, LAST]);
        let err = |body: &[u8]| payloads(body).expect_err("broken");
        // Cut anywhere before the end of the complete event's blank line.
        for cut in [full.len() - 1, full.len() - 8, full.len() - 30, 40, 3, 1] {
            assert!(err(&full[..cut]).contains("truncated"), "cut at {cut}");
        }
        assert!(err(&full[..full.len() - 1]).contains("ends mid-event"));
        let no_complete = &full[..full.len() - b"event: complete\ndata:\n\n".len()];
        assert!(err(no_complete).contains("no complete event after 2 next events"));
        let mut after = full.clone();
        after.extend_from_slice(b"event: next\ndata: {}\n\n");
        assert!(err(&after).contains("after complete"));
        assert!(err(b"").contains("no complete"));
        // Framing right, payloads wrong: the assembler's protocol failures.
        for body in [
            yoga(&["{\"data\":{},\"hasN"]),
            yoga(&["not json"]),
            yoga(&[]),
        ] {
            let (kind, detail) = read(&body).expect_err("bad payload");
            assert_eq!(kind, FailureKind::Protocol, "{detail}");
        }
        let (_, detail) = read(&yoga(&["{\"data\":"])).expect_err("bad payload");
        assert!(detail.starts_with("part 0 is not JSON"), "{detail}");
        let (kind, _) = read(&yoga(&[FIRST])).expect_err("hasNext true at the end");
        assert_eq!(kind, FailureKind::Protocol);
    }

    /// Feeds `body` cut at `cuts` (increasing lengths) and checks each answer against
    /// whether the first `next` event (dispatched at `end`) is in.
    fn check_feeds(body: &[u8], end: usize, cuts: impl Iterator<Item = usize>) {
        let mut fe = FirstEvent::new();
        for len in cuts {
            let len = len.min(body.len());
            assert_eq!(fe.feed(&body[..len]), len >= end, "after {len} bytes");
        }
    }

    #[test]
    fn first_event_byte_by_byte_and_in_odd_chunks() {
        let lf = yoga(&[FIRST, LAST]);
        let crlf = String::from_utf8(lf.clone())
            .expect("utf-8")
            .replace('\n', "\r\n")
            .into_bytes();
        let cr = String::from_utf8(lf.clone())
            .expect("utf-8")
            .replace('\n', "\r")
            .into_bytes();
        let bom = [BOM, &lf[..]].concat();
        for (body, ending) in [(lf, "\n\n"), (crlf, "\r\n\r"), (cr, "\r\r"), (bom, "\n\n")] {
            // The blank line after the first payload dispatches it (the keep-alive before
            // it, a comment, dispatches nothing).
            let at = body
                .windows(FIRST.len())
                .position(|w| w == FIRST.as_bytes())
                .expect("the first payload");
            let end = at + FIRST.len() + ending.len();
            check_feeds(&body, end, 0..=body.len());
            for step in [2, 3, 5, 7, 11, 13] {
                check_feeds(&body, end, (0..=body.len() / step + 1).map(|k| k * step));
            }
            check_feeds(&body, end, [end - 1, end, body.len()].into_iter());
        }
    }

    #[test]
    fn events_other_than_next_are_not_the_first() {
        let mut fe = FirstEvent::new();
        assert!(!fe.feed(b":\n\nevent: ping\ndata: {}\n\nevent: complete\ndata:\n\n"));
        let mut fe = FirstEvent::new();
        assert!(!fe.feed(b"event: next\n\n"), "a next without data");
        assert!(fe.feed(b"event: next\n\ndata: {}\n\n"), "an unnamed event");
    }
}
