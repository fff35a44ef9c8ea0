//! Apollo Router external coprocessor (protocol version 1) for gqlbench's extensibility
//! suite: the contract is targets/_coprocessors/CONTRACT.md, and targets/coprocessor-go is the
//! same thing in Go. axum 0.8 on tokio's multi-thread runtime (worker threads at tokio's
//! default: one per CPU the process may use), jsonwebtoken 10 for HS256, uuid for the UUID v4s
//! (OS randomness). Logs nothing per request.

use std::collections::HashMap;
use std::env;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{StatusCode, header::CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The answer's body when a token is refused: a JSON string holding a GraphQL response.
const REJECT_BODY: &str = r#"{"errors":[{"message":"invalid token"}]}"#;

const GUID_NAMES: [&str; 10] = [
    "guid-1", "guid-2", "guid-3", "guid-4", "guid-5", "guid-6", "guid-7", "guid-8", "guid-9",
    "guid-10",
];

/// The router's JSON object. Fields other than the ones changed are passed back as the raw
/// JSON they came as, so no time goes into decoding what is never read.
type Payload = HashMap<String, Box<RawValue>>;

/// `headers`: lower-case name -> values.
type Headers = HashMap<String, Vec<String>>;

/// The claims the client-awareness endpoint needs; a token lacking either (or holding a
/// non-string) fails to decode and is refused.
#[derive(Deserialize)]
struct Claims {
    client_name: String,
    client_version: String,
}

#[derive(Default)]
struct Served {
    static_subgraph: AtomicU64,
    guid_response: AtomicU64,
    client_awareness: AtomicU64,
    rejected: AtomicU64,
}

struct App {
    key: DecodingKey,
    validation: Validation,
    served: Served,
    break_control: Box<RawValue>,
    break_body: Box<RawValue>,
}

type Shared = State<Arc<App>>;

fn env_or(name: &str, default: &str) -> String {
    // An empty variable counts as unset, as in the Go coprocessor.
    env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.to_owned())
}

impl App {
    fn new() -> App {
        let secret = env_or("GQLBENCH_JWT_SECRET", "apollo");
        let mut validation = Validation::new(Algorithm::HS256);
        // jsonwebtoken's defaults are stricter than golang-jwt's (the reference): they require
        // `exp`, allow 60 s of leeway and refuse any `aud` unless one is configured. Align them
        // so both accept the same tokens: `exp` and `nbf` are checked when present, with no
        // leeway, and `aud` is not checked.
        validation.required_spec_claims.clear();
        validation.leeway = 0;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = false;
        App {
            key: DecodingKey::from_secret(secret.as_bytes()),
            validation,
            served: Served::default(),
            break_control: RawValue::from_string(r#"{"break":401}"#.to_owned())
                .expect("valid JSON"),
            break_body: serde_json::value::to_raw_value(REJECT_BODY).expect("a string encodes"),
        }
    }

    /// Verifies `authentication: Bearer <HS256 JWT>`; None for a missing, malformed or badly
    /// signed token, or one without the client claims.
    fn claims(&self, headers: &Headers) -> Option<Claims> {
        let token = headers
            .get("authentication")?
            .first()?
            .strip_prefix("Bearer ")?;
        jsonwebtoken::decode::<Claims>(token, &self.key, &self.validation)
            .ok()
            .map(|t| t.claims)
    }
}

/// Parses the body as a JSON object and its `headers` (absent or null: none); None when it is
/// not one (the handlers answer 400).
fn read(body: &[u8]) -> Option<(Payload, Headers)> {
    let mut payload = serde_json::from_slice::<Payload>(body).ok()?;
    let headers = match payload.get("headers") {
        Some(raw) => serde_json::from_str::<Option<Headers>>(raw.get()).ok()?,
        None => None,
    };
    // Hive Router's payloads carry no `control` but need one back; Apollo's carry it.
    if !payload.contains_key("control") {
        let go_on = RawValue::from_string(r#""continue""#.to_owned()).ok()?;
        payload.insert("control".to_owned(), go_on);
    }
    Some((payload, headers.unwrap_or_default()))
}

fn bad_payload() -> Response {
    (StatusCode::BAD_REQUEST, "payload is not a JSON object").into_response()
}

fn write(mut payload: Payload, headers: &Headers) -> Response {
    let out = serde_json::value::to_raw_value(headers).and_then(|h| {
        payload.insert("headers".to_owned(), h);
        serde_json::to_vec(&payload)
    });
    match out {
        Ok(body) => ([(CONTENT_TYPE, "application/json")], body).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

/// POST /static-subgraph (SubgraphRequest): adds `source: coprocessor`.
async fn static_subgraph(State(app): Shared, body: Bytes) -> Response {
    let Some((payload, mut headers)) = read(&body) else {
        return bad_payload();
    };
    headers.insert("source".to_owned(), vec!["coprocessor".to_owned()]);
    app.served.static_subgraph.fetch_add(1, Relaxed);
    write(payload, &headers)
}

/// POST /guid-response (RouterResponse): sets guid-1 .. guid-10 to fresh UUID v4s.
async fn guid_response(State(app): Shared, body: Bytes) -> Response {
    let Some((payload, mut headers)) = read(&body) else {
        return bad_payload();
    };
    for name in GUID_NAMES {
        headers.insert(name.to_owned(), vec![uuid::Uuid::new_v4().to_string()]);
    }
    app.served.guid_response.fetch_add(1, Relaxed);
    write(payload, &headers)
}

/// POST /client-awareness (RouterRequest): client name and version from the token's claims,
/// or a 401 break.
async fn client_awareness(State(app): Shared, body: Bytes) -> Response {
    let Some((mut payload, mut headers)) = read(&body) else {
        return bad_payload();
    };
    app.served.client_awareness.fetch_add(1, Relaxed);
    match app.claims(&headers) {
        Some(claims) => {
            headers.insert(
                "apollographql-client-name".to_owned(),
                vec![claims.client_name],
            );
            headers.insert(
                "apollographql-client-version".to_owned(),
                vec![claims.client_version],
            );
        }
        None => {
            app.served.rejected.fetch_add(1, Relaxed);
            payload.insert("control".to_owned(), app.break_control.clone());
            payload.insert("body".to_owned(), app.break_body.clone());
        }
    }
    write(payload, &headers)
}

async fn stats(State(app): Shared) -> Response {
    let s = &app.served;
    let body = format!(
        r#"{{"static-subgraph":{},"guid-response":{},"client-awareness":{},"rejected":{}}}"#,
        s.static_subgraph.load(Relaxed),
        s.guid_response.load(Relaxed),
        s.client_awareness.load(Relaxed),
        s.rejected.load(Relaxed),
    );
    ([(CONTENT_TYPE, "application/json")], body).into_response()
}

/// Resolves on SIGTERM (how gqlbench stops a target) or SIGINT.
async fn shutdown_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("SIGTERM handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    // Graceful shutdown waits for every open connection to finish its request; a client that
    // keeps one busy must not hold the process, so exit anyway a second later.
    tokio::spawn(async {
        tokio::time::sleep(Duration::from_secs(1)).await;
        std::process::exit(0);
    });
}

#[tokio::main]
async fn main() -> ExitCode {
    let Some(port) = env::var("PORT").ok().and_then(|p| p.parse::<u16>().ok()) else {
        eprintln!("coprocessor-rust: PORT is not set to a port number");
        return ExitCode::FAILURE;
    };
    let host = env_or("HOST", "127.0.0.1");
    let addr = match host.parse() {
        Ok(ip) => SocketAddr::new(ip, port),
        Err(e) => {
            eprintln!("coprocessor-rust: HOST {host:?}: {e}");
            return ExitCode::FAILURE;
        }
    };

    let app = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route("/stats", get(stats))
        .route("/static-subgraph", post(static_subgraph))
        .route("/guid-response", post(guid_response))
        .route("/client-awareness", post(client_awareness))
        // Any other path: the router answers 404.
        .with_state(Arc::new(App::new()));

    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("coprocessor-rust: listen on {addr}: {e}");
            return ExitCode::FAILURE;
        }
    };
    // TCP_NODELAY, as Go's net/http sets on every connection: no Nagle delay on answers.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    eprintln!("coprocessor-rust listening on http://{addr}");
    if let Err(e) = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown_signal())
        .await
    {
        eprintln!("coprocessor-rust: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
