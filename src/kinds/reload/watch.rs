//! One reload against a started gateway: the supergraph file replaced by an equivalent one
//! whose Query type carries a new description, introspection polled on loopback until the
//! gateway serves it (bounded in time), then the scenario's operation twice, answers
//! checked. Also the supergraph edit itself, a pure function.
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use gqlbench_engine::{check_with_headers, Endpoint, FailureKind, Variant, Verdict};
use serde_json::{json, Value};

use super::record::ReloadSample;
use crate::measure::ready;
use crate::sys::process::TargetProcess;

/// The introspection query whose answer shows which supergraph the gateway serves.
pub const PROBE: &str = "{ __type(name: \"Query\") { description } }";
/// What every description this kind writes starts with (and what it removes again).
const MARK: &str = "gqlbench reload ";
/// Rewrites so far in this process: each rewrite's description is `gqlbench reload <count>`,
/// never one the file already holds (a trial measured again rewrites a file that still has
/// its first attempt's last description, which a per-trial count would write again and see
/// at once).
static REWRITES: AtomicU64 = AtomicU64::new(0);
/// A single poll never waits longer than this for its answer (nor past the reload's bound).
const POLL_TIMEOUT: Duration = Duration::from_secs(2);
/// The operation after the reload may take as long as a cold-start's first request.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// The supergraph `text` with `description` as its Query type's description: a block
/// string on the line before `type Query`, replacing one this kind put there before. An
/// error when the text has no `type Query` line or already describes Query otherwise.
pub fn describe_query(text: &str, description: &str) -> Result<String, String> {
    let at = query_line(text).ok_or("the supergraph has no line starting with `type Query`")?;
    let head = &text[..at];
    let head = match head.trim_end_matches('\n').rfind('\n') {
        Some(nl) if head[nl + 1..].starts_with(&format!("\"\"\"{MARK}")) => &head[..nl + 1],
        None if head.starts_with(&format!("\"\"\"{MARK}")) => "",
        _ => head,
    };
    if head.trim_end().ends_with("\"\"\"") || head.trim_end().ends_with('"') {
        return Err("the supergraph's Query type already has a description".into());
    }
    Ok(format!("{head}\"\"\"{description}\"\"\"\n{}", &text[at..]))
}

/// Byte offset of the line that declares the Query type.
fn query_line(text: &str) -> Option<usize> {
    text.match_indices("type Query").map(|(i, _)| i).find(|&i| {
        let line_start = i == 0 || text.as_bytes()[i - 1] == b'\n';
        let after = text.as_bytes().get(i + "type Query".len()).copied();
        line_start && matches!(after, Some(b' ' | b'{' | b'\n' | b'\r'))
    })
}

/// The probe that is right only when the gateway serves `description`.
pub fn probe(description: &str) -> Variant {
    Variant {
        body: Bytes::from(json!({ "query": PROBE }).to_string()),
        expected_data: Some(json!({ "__type": { "description": description } })),
        unique: None,
        batch: None,
        incremental: None,
        persisted: None,
    }
}

/// The description a probe's answer carried, for messages ("null" when none).
fn seen_description(v: &Verdict) -> String {
    serde_json::from_slice::<Value>(&v.body)
        .ok()
        .and_then(|b| b.pointer("/data/__type/description").cloned())
        .map_or_else(|| "no description".into(), |d| d.to_string())
}

/// What one reload is given.
pub struct Reload<'a> {
    pub endpoint: &'a Endpoint,
    pub headers: &'a [(String, String)],
    pub supergraph: &'a Path,
    /// The scenario's operation (its first case), with its expected answer.
    pub operation: &'a Variant,
    pub timeout: Duration,
    pub poll: Duration,
    pub cancelled: &'a dyn Fn() -> bool,
}

impl Reload<'_> {
    /// Before the first reload: the gateway answers the probe at all (introspection
    /// allowed). Err says what it answered instead.
    pub fn introspection_allowed(&self) -> Result<(), String> {
        let mut any = probe("");
        any.expected_data = None;
        let v = check_with_headers(self.endpoint, &any, self.headers, POLL_TIMEOUT);
        match ready::problem(&v) {
            None => Ok(()),
            Some(p) => Err(format!(
                "it does not answer introspection ({PROBE}), through which a reload is seen: {p}"
            )),
        }
    }

    /// Reload `n` (1-based), writing the next description of this process.
    pub fn run(&self, process: &mut TargetProcess, n: u32) -> ReloadSample {
        let description = format!("{MARK}{}", REWRITES.fetch_add(1, Ordering::Relaxed) + 1);
        let mut s = ReloadSample {
            reload: n,
            description: description.clone(),
            reload_s: None,
            first_request_s: None,
            second_request_s: None,
            polls: 0,
            failed_requests: 0,
            problem: None,
        };
        let written = match self.replace_file(&description) {
            Ok(at) => at,
            Err(e) => {
                s.problem = Some(format!("rewriting {}: {e}", self.supergraph.display()));
                return s;
            }
        };
        match self.wait_visible(process, &description, written, &mut s) {
            Ok(after) => s.reload_s = Some(after.as_secs_f64()),
            Err(why) => {
                s.problem = Some(why);
                return s;
            }
        }
        for second in [false, true] {
            let v =
                check_with_headers(self.endpoint, self.operation, self.headers, REQUEST_TIMEOUT);
            match ready::problem(&v) {
                None if second => s.second_request_s = Some(v.latency.as_secs_f64()),
                None => s.first_request_s = Some(v.latency.as_secs_f64()),
                Some(p) => {
                    s.failed_requests += 1;
                    let which = if second { "second" } else { "first" };
                    s.problem = Some(format!("the {which} request after the reload: {p}"));
                    return s;
                }
            }
        }
        s
    }

    /// Writes the new supergraph beside the old and renames it over it, so that a gateway
    /// polling the file never reads it half written: the moment of the rename.
    fn replace_file(&self, description: &str) -> Result<Instant, String> {
        let text = std::fs::read_to_string(self.supergraph).map_err(|e| e.to_string())?;
        let new = describe_query(&text, description)?;
        let tmp = self.supergraph.with_extension("graphql.reload-tmp");
        std::fs::write(&tmp, new).map_err(|e| format!("{}: {e}", tmp.display()))?;
        let at = Instant::now();
        std::fs::rename(&tmp, self.supergraph).map_err(|e| e.to_string())?;
        Ok(at)
    }

    /// Polls until the probe for `description` is answered right: the time since `written`.
    /// Err when the timeout passes first, the gateway exits or the run is interrupted.
    fn wait_visible(
        &self,
        process: &mut TargetProcess,
        description: &str,
        written: Instant,
        s: &mut ReloadSample,
    ) -> Result<Duration, String> {
        let want = probe(description);
        let deadline = written + self.timeout;
        let mut last = String::from("no poll was answered");
        loop {
            if let Some(st) = process.exited() {
                return Err(format!("the gateway exited during the reload ({st})"));
            }
            if (self.cancelled)() {
                return Err("interrupted".into());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(format!(
                    "the new supergraph was not served within {} of the rewrite ({} polls; last: {last})",
                    humantime::format_duration(self.timeout),
                    s.polls
                ));
            }
            let v = check_with_headers(self.endpoint, &want, self.headers, left.min(POLL_TIMEOUT));
            s.polls += 1;
            // A poll cut short by the bound and unanswered in what was left of it is the
            // bound running out, not the gateway failing a request.
            let cut_short = left < POLL_TIMEOUT;
            match v.failure {
                None => return Ok(written.elapsed()),
                // The old schema still served: what waiting is for, not a failure.
                Some(FailureKind::WrongData) => {
                    last = format!("still {}", seen_description(&v));
                }
                Some(FailureKind::Timeout) if cut_short => {}
                Some(_) => {
                    s.failed_requests += 1;
                    last = ready::problem(&v).unwrap_or_default();
                }
            }
            std::thread::sleep(
                self.poll
                    .min(deadline.saturating_duration_since(Instant::now())),
            );
        }
    }
}
