//! What every connection of a subscription run shares, read-only: the messages and the
//! request to send, already encoded, and where the values to judge sit in a message (as
//! JSON pointers, extracted in one pass per message by `extract`).

use std::net::SocketAddr;
use std::time::Duration;

use tungstenite::http::{HeaderMap, HeaderName, HeaderValue, Uri};

use super::extract::{parse_pointer, Paths, Val};
use super::plan::{SubscribePlan, SubscribeTransport, GRAPHQL_TRANSPORT_WS};
use super::record::Judged;
use super::result::MessageFailureKind;
use crate::error::EngineError;

/// The id of the one subscription of each WebSocket connection.
pub const SUBSCRIPTION_ID: &str = "1";
/// Most pointers extracted from one message (type, id, errors, data, publish time, seq).
pub const MAX_RESULT_PATHS: usize = 6;

/// Where to find the parts of an execution result in a message.
#[derive(Debug, Clone)]
pub struct ResultPaths {
    pub paths: Paths,
    /// `type` of a WebSocket message.
    pub kind: Option<usize>,
    /// `id` of a WebSocket message.
    pub id: Option<usize>,
    pub errors: usize,
    pub data: usize,
    pub published: Option<usize>,
    pub seq: Option<usize>,
}

impl ResultPaths {
    /// Paths of an execution result under `prefix`; with `envelope`, also `/type` and `/id`.
    fn new(
        prefix: &[&str],
        envelope: bool,
        published: Option<&str>,
        seq: Option<&str>,
    ) -> Result<ResultPaths, String> {
        let mut list: Vec<Vec<String>> = Vec::new();
        let mut push = |p: Vec<String>| {
            list.push(p);
            list.len() - 1
        };
        let under = |rest: Vec<String>| -> Vec<String> {
            prefix.iter().map(|s| s.to_string()).chain(rest).collect()
        };
        let (kind, id) = if envelope {
            (
                Some(push(vec!["type".to_string()])),
                Some(push(vec!["id".to_string()])),
            )
        } else {
            (None, None)
        };
        let errors = push(under(vec!["errors".to_string()]));
        let data = push(under(vec!["data".to_string()]));
        let published = match published {
            Some(p) => Some(push(under(parse_pointer(p)?))),
            None => None,
        };
        let seq = match seq {
            Some(p) => Some(push(under(parse_pointer(p)?))),
            None => None,
        };
        Ok(ResultPaths {
            paths: Paths::new(list)?,
            kind,
            id,
            errors,
            data,
            published,
            seq,
        })
    }

    /// The verdict on an execution result whose values were extracted into `vals`.
    pub fn judge(&self, vals: &[Val]) -> Judged {
        match &vals[self.errors] {
            Val::Missing | Val::Null | Val::Array { empty: true } => {}
            _ => return Judged::Invalid(MessageFailureKind::GraphqlError),
        }
        if vals[self.data].is_absent() {
            return Judged::Invalid(MessageFailureKind::MissingData);
        }
        let published_ms = match self.published {
            Some(i) => match vals[i].as_f64() {
                Some(v) => Some(v),
                None => return Judged::Invalid(MessageFailureKind::MissingField),
            },
            None => None,
        };
        let seq = match self.seq {
            Some(i) => match vals[i].as_u64() {
                Some(v) => Some(v),
                None => return Judged::Invalid(MessageFailureKind::MissingField),
            },
            None => None,
        };
        Judged::Valid { published_ms, seq }
    }
}

/// What every connection of a run shares (read-only).
#[derive(Debug)]
pub struct Prepared {
    pub transport: SubscribeTransport,
    pub addr: SocketAddr,
    pub ws_uri: Uri,
    pub ws_headers: HeaderMap,
    pub init_msg: String,
    pub subscribe_msg: String,
    pub sse_request: Vec<u8>,
    pub ws_paths: ResultPaths,
    pub sse_paths: ResultPaths,
    /// Just `/type`, for the messages before the subscription.
    pub type_only: Paths,
    pub ack_timeout: Duration,
    pub first_message_timeout: Option<Duration>,
}

impl Prepared {
    pub fn new(plan: &SubscribePlan) -> Result<Prepared, EngineError> {
        let bad = |m: String| EngineError::InvalidPlan(m);
        let mut payload = serde_json::Map::new();
        payload.insert("query".into(), plan.query.clone().into());
        if let Some(v) = &plan.variables {
            payload.insert("variables".into(), v.clone());
        }
        if let Some(n) = &plan.operation_name {
            payload.insert("operationName".into(), n.clone().into());
        }
        let payload = serde_json::Value::Object(payload);
        let subscribe_msg = serde_json::json!({
            "id": SUBSCRIPTION_ID,
            "type": "subscribe",
            "payload": payload,
        })
        .to_string();
        let init_msg = match &plan.connection_init_payload {
            Some(p) => serde_json::json!({"type": "connection_init", "payload": p}).to_string(),
            None => r#"{"type":"connection_init"}"#.to_string(),
        };
        let ep = &plan.endpoint;
        let body = payload.to_string();
        let mut req = format!(
            "POST {} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            ep.path,
            ep.host,
            body.len()
        );
        for (k, v) in &plan.headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(&body);
        let ws_uri: Uri = format!("ws://{}{}", ep.host, ep.path)
            .parse()
            .map_err(|e| bad(format!("endpoint is not a valid WebSocket URI: {e}")))?;
        let mut ws_headers = HeaderMap::new();
        ws_headers.insert(
            "sec-websocket-protocol",
            HeaderValue::from_static(GRAPHQL_TRANSPORT_WS),
        );
        for (k, v) in &plan.headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|e| bad(format!("invalid header name {k:?}: {e}")))?;
            let value = HeaderValue::from_str(v)
                .map_err(|e| bad(format!("invalid value of header {k:?}: {e}")))?;
            ws_headers.append(name, value);
        }
        let pointers = (
            plan.published_at_pointer.as_deref(),
            plan.seq_pointer.as_deref(),
        );
        let ws_paths = ResultPaths::new(&["payload"], true, pointers.0, pointers.1).map_err(bad)?;
        let sse_paths = ResultPaths::new(&[], false, pointers.0, pointers.1).map_err(bad)?;
        Ok(Prepared {
            transport: plan.transport,
            addr: ep.addr,
            ws_uri,
            ws_headers,
            init_msg,
            subscribe_msg,
            sse_request: req.into_bytes(),
            ws_paths,
            sse_paths,
            type_only: Paths::new(vec![vec!["type".to_string()]]).map_err(bad)?,
            ack_timeout: plan.ack_timeout,
            first_message_timeout: plan.first_message_timeout,
        })
    }
}
