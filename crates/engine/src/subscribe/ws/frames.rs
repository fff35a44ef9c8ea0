//! The frames of a held WebSocket connection, handled where they lie in its buffer, and the
//! `graphql-transport-ws` messages they carry: `next` is judged and recorded, `ping` is
//! answered, `error`, `complete`, a close or a protocol breach end the connection.

use std::io::{self, Cursor};
use std::time::Instant;

use bytes::Bytes;
use tungstenite::protocol::frame::coding::{Control as OpCtl, Data as OpData, OpCode};
use tungstenite::protocol::frame::{Frame, FrameHeader};

use super::held::{Held, MAX_MESSAGE};
use crate::subscribe::extract::{extract, Val};
use crate::subscribe::prepared::{Prepared, MAX_RESULT_PATHS, SUBSCRIPTION_ID};
use crate::subscribe::record::SubRecorder;
use crate::subscribe::result::ConnectionFailureKind as Kind;
use crate::validate::excerpt;

/// What a frame asks for.
enum After {
    Continue,
    End(Kind, String),
}

/// Handles the events of one connection: flushes pending output when writable, reads and
/// handles every complete frame. Returns why the connection must end, if it must.
pub fn service(
    prep: &Prepared,
    rec: &mut SubRecorder,
    held: &mut Held,
    slot: usize,
    flags: u32,
    now: Instant,
    wall: u64,
) -> Option<(Kind, String)> {
    if flags & libc::EPOLLOUT as u32 != 0 && !held.out.is_empty() {
        if let Err(e) = held.flush() {
            return Some((Kind::Reset, format!("sending: {e}")));
        }
    }
    if flags & !(libc::EPOLLOUT as u32) != 0 {
        held.drained = false;
    }
    loop {
        // Every complete frame in the buffer first.
        loop {
            let avail = &held.buf[held.start..held.end];
            let mut cursor = Cursor::new(avail);
            let (header, len) = match FrameHeader::parse(&mut cursor) {
                Ok(Some(h)) => h,
                Ok(None) => break,
                Err(e) => return Some((Kind::Protocol, format!("bad frame: {e}"))),
            };
            let head_len = cursor.position() as usize;
            let Some(len) = usize::try_from(len).ok().filter(|l| *l <= MAX_MESSAGE) else {
                return Some((Kind::Protocol, format!("frame of {len} bytes is too large")));
            };
            if avail.len() - head_len < len {
                // Make room for the whole frame, then read on.
                let need = head_len + len;
                if held.buf.len() - held.start < need {
                    held.buf.copy_within(held.start..held.end, 0);
                    held.end -= held.start;
                    held.start = 0;
                    if held.buf.len() < need {
                        held.buf.resize(need, 0);
                    }
                }
                break;
            }
            let from = held.start + head_len;
            held.start = from + len;
            // The payload is borrowed from the buffer while the frame is handled; only a
            // pong reply copies it.
            let payload_range = from..from + len;
            let wall = held.rx_wall_us.unwrap_or(wall);
            match frame(prep, rec, held, slot, &header, payload_range, now, wall) {
                After::Continue => {}
                After::End(kind, detail) => return Some((kind, detail)),
            }
        }
        match held.fill() {
            Ok(true) => {}
            Ok(false) => return None,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                let detail = if held.start < held.end {
                    "connection closed in the middle of a frame"
                } else {
                    "connection closed without close frame"
                };
                return Some((Kind::Closed, detail.to_string()));
            }
            Err(e) => return Some((Kind::Reset, e.to_string())),
        }
    }
}

/// Handles one complete frame whose payload is `held.buf[payload]`.
#[allow(clippy::too_many_arguments)]
fn frame(
    prep: &Prepared,
    rec: &mut SubRecorder,
    held: &mut Held,
    slot: usize,
    header: &FrameHeader,
    payload: std::ops::Range<usize>,
    now: Instant,
    wall: u64,
) -> After {
    let protocol = |m: String| After::End(Kind::Protocol, m);
    if header.mask.is_some() {
        return protocol("masked frame from the server".into());
    }
    if header.rsv1 || header.rsv2 || header.rsv3 {
        return protocol("reserved bits set (no extension was negotiated)".into());
    }
    let data = &held.buf[payload.clone()];
    match header.opcode {
        OpCode::Data(OpData::Text) if header.is_final => {
            if held.fragments.is_some() {
                return protocol("new message inside a fragmented one".into());
            }
            text(prep, rec, held, slot, payload, now, wall)
        }
        OpCode::Data(OpData::Text) => {
            if held.fragments.is_some() {
                return protocol("new message inside a fragmented one".into());
            }
            held.fragments = Some(data.to_vec());
            After::Continue
        }
        OpCode::Data(OpData::Continue) => {
            let Some(mut whole) = held.fragments.take() else {
                return protocol("continuation frame without a message".into());
            };
            if whole.len() + data.len() > MAX_MESSAGE {
                return protocol("fragmented message too large".into());
            }
            whole.extend_from_slice(data);
            if !header.is_final {
                held.fragments = Some(whole);
                return After::Continue;
            }
            let step = match std::str::from_utf8(&whole) {
                Ok(_) => on_text(prep, rec, slot, &whole, now, wall),
                Err(_) => return protocol("text message is not UTF-8".into()),
            };
            step_after(held, step)
        }
        OpCode::Data(OpData::Binary) => protocol(format!("binary message: {}", excerpt(data))),
        OpCode::Control(_) if !header.is_final || data.len() > 125 => {
            protocol("fragmented or long control frame".into())
        }
        OpCode::Control(OpCtl::Ping) => {
            let pong = Frame::pong(Bytes::copy_from_slice(data));
            match held.send(pong) {
                Ok(()) => After::Continue,
                Err(e) => After::End(Kind::Reset, format!("sending pong: {e}")),
            }
        }
        OpCode::Control(OpCtl::Pong) => After::Continue,
        OpCode::Control(OpCtl::Close) => {
            let detail = match data {
                [a, b, reason @ ..] => format!(
                    "close frame {} {:?}",
                    u16::from_be_bytes([*a, *b]),
                    String::from_utf8_lossy(reason)
                ),
                _ => "close frame without code".to_string(),
            };
            After::End(Kind::Closed, detail)
        }
        OpCode::Data(OpData::Reserved(c)) | OpCode::Control(OpCtl::Reserved(c)) => {
            protocol(format!("reserved opcode {c}"))
        }
    }
}

/// A complete, unfragmented text frame.
#[allow(clippy::too_many_arguments)]
fn text(
    prep: &Prepared,
    rec: &mut SubRecorder,
    held: &mut Held,
    slot: usize,
    payload: std::ops::Range<usize>,
    now: Instant,
    wall: u64,
) -> After {
    let data = &held.buf[payload];
    if std::str::from_utf8(data).is_err() {
        return After::End(Kind::Protocol, "text message is not UTF-8".into());
    }
    let step = on_text(prep, rec, slot, data, now, wall);
    step_after(held, step)
}

fn step_after(held: &mut Held, step: Step) -> After {
    match step {
        Step::Next => {
            held.first_deadline = None;
            After::Continue
        }
        Step::Ignore => After::Continue,
        Step::Ping => {
            let pong = Frame::message(
                Bytes::from_static(br#"{"type":"pong"}"#),
                OpCode::Data(OpData::Text),
                true,
            );
            match held.send(pong) {
                Ok(()) => After::Continue,
                Err(e) => After::End(Kind::Reset, format!("sending pong: {e}")),
            }
        }
        Step::End(kind, detail) => After::End(kind, detail),
    }
}

/// What to do after a text message.
enum Step {
    Next,
    Ignore,
    Ping,
    End(Kind, String),
}

/// Judges a text message of a subscribed connection (the hot path: one pass, no tree).
fn on_text(
    prep: &Prepared,
    rec: &mut SubRecorder,
    slot: usize,
    raw: &[u8],
    now: Instant,
    wall_us: u64,
) -> Step {
    let rp = &prep.ws_paths;
    let mut vals: [Val; MAX_RESULT_PATHS] = Default::default();
    let vals = &mut vals[..rp.paths.len()];
    if let Err(e) = extract(raw, &rp.paths, vals) {
        return Step::End(
            Kind::Protocol,
            format!("message is not JSON ({e}): {}", excerpt(raw)),
        );
    }
    let ty = rp.kind.and_then(|i| vals[i].as_str());
    match ty {
        Some("next") => {
            if rp.id.and_then(|i| vals[i].as_str()) != Some(SUBSCRIPTION_ID) {
                return Step::End(
                    Kind::Protocol,
                    format!("next for an unknown id: {}", excerpt(raw)),
                );
            }
            let judged = rp.judge(vals);
            rec.message(slot, now, wall_us, judged, raw);
            Step::Next
        }
        Some("ping") => Step::Ping,
        Some("pong") | Some("connection_ack") => Step::Ignore,
        Some("error") => Step::End(Kind::ErrorMessage, excerpt(raw)),
        Some("complete") => Step::End(Kind::Complete, excerpt(raw)),
        _ => Step::End(
            Kind::Protocol,
            format!("unexpected message: {}", excerpt(raw)),
        ),
    }
}
