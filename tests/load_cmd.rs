//! End-to-end: `gqlbench load` against a fixture server started here.
mod common;
use common::*;
use std::process::{Child, Command, Stdio};

struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(mode: &str) -> Server {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new("node")
        .arg(fixtures().join("targets/_fixture/server.mjs"))
        .arg(mode)
        .env("PORT", port.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the server's own "listening" line: polling connect() can succeed against
    // nobody (a TCP self-connect when the source port equals the free port chosen).
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert!(
        line.contains("fixture"),
        "fixture server did not start: {line:?}"
    );
    Server {
        child,
        url: format!("http://127.0.0.1:{port}/graphql"),
    }
}

fn query() -> std::path::PathBuf {
    fixtures().join("scenarios/queries/fixture/hello.graphql")
}

#[test]
fn load_validates_against_the_expected_answer() {
    let s = start("good");
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.json");
    std::fs::write(&good, r#"{"data": {"hello": "world"}}"#).unwrap();
    let out = run(bin()
        .args(["load", &s.url, "-q"])
        .arg(query())
        .args(["-c", "4", "-d", "1s", "--json", "--expect"])
        .arg(&good));
    assert!(out.status.success());
    let r = json(&out);
    let ok = r["result"]["ok"].as_u64().unwrap();
    assert!(ok > 0);
    assert_eq!(r["result"]["failed"], 0);
    assert_eq!(r["expected_answer"], true);
    assert!(r["result"]["latency"]["p99_us"].as_u64().unwrap() > 0);
    assert!(r["result"]["throughput_rps"].as_f64().unwrap() > 0.0);
    assert!(r["generator"]["cpu_s"].as_f64().unwrap() > 0.0);
    assert!(r["requests_per_cpu_second"].as_f64().unwrap() > 0.0);

    let wrong = dir.path().join("wrong.json");
    std::fs::write(&wrong, r#"{"hello": "mars"}"#).unwrap();
    let out = run(bin()
        .args(["load", &s.url, "-q"])
        .arg(query())
        .args(["-c", "2", "-d", "1s", "--json", "--expect"])
        .arg(&wrong));
    assert_eq!(out.status.code(), Some(1), "failures make the exit code 1");
    let r = json(&out);
    assert_eq!(r["result"]["ok"], 0);
    assert!(r["result"]["failures"]["wrong_data"].as_u64().unwrap() > 0);
    let ex = r["result"]["failure_examples"][0]["detail"]
        .as_str()
        .unwrap();
    assert!(ex.contains("mars") && ex.contains("world"), "{ex}");
}

#[test]
fn load_counts_requests_and_pipelines() {
    let s = start("chunked");
    let out = run(bin()
        .args(["load", &s.url, "-q"])
        .arg(query())
        .args(["-c", "3", "-n", "600", "-p", "4", "--json"]));
    assert!(out.status.success());
    let r = json(&out);
    assert_eq!(r["result"]["requests"], 600);
    assert_eq!(r["result"]["ok"], 600);
}

#[test]
fn open_model_reports_send_lag_and_intended_requests() {
    let s = start("good");
    let out = run(bin()
        .args(["load", &s.url, "-q"])
        .arg(query())
        .args(["-c", "20", "-d", "1s", "--rate", "400", "--json"]));
    assert!(out.status.success());
    let r = json(&out);
    assert_eq!(r["load"]["model"], "open");
    let intended = r["result"]["intended_requests"].as_u64().unwrap();
    assert!((360..=440).contains(&intended), "{intended}");
    assert!(r["result"]["send_lag"]["p99_us"].is_u64());
    assert!(r["result"]["uncorrected_latency"]["p50_us"].is_u64());
}

#[test]
fn connection_refused_is_counted_as_connect_failures() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/graphql");
    let out = run(bin()
        .args(["load", &url, "-q"])
        .arg(query())
        .args(["-c", "2", "-d", "500ms", "--json"]));
    assert_eq!(out.status.code(), Some(1));
    let r = json(&out);
    assert!(r["result"]["failures"]["connect"].as_u64().unwrap() > 0);
}

#[test]
fn open_model_reopens_connections_the_server_closed_while_idle() {
    // The server closes idle keep-alive connections after 100 ms; at 5 req/s every pooled
    // connection has been idle longer than that when it is reused.
    let s = start("short-keepalive");
    let out = run(bin()
        .args(["load", &s.url, "-q"])
        .arg(query())
        .args(["-c", "2", "-d", "2s", "--rate", "5", "--json"]));
    assert!(out.status.success());
    let r = json(&out);
    assert_eq!(
        r["result"]["failed"], 0,
        "{}",
        r["result"]["failure_examples"]
    );
    assert!(r["result"]["ok"].as_u64().unwrap() >= 8);
}

#[test]
fn open_model_with_a_request_count_owes_nothing_after_the_budget() {
    let s = start("good");
    let out = run(bin()
        .args(["load", &s.url, "-q"])
        .arg(query())
        .args(["-c", "4", "-n", "50", "--rate", "200", "--json"]));
    assert!(out.status.success());
    let r = json(&out);
    assert_eq!(r["result"]["requests"], 50);
    assert_eq!(r["result"]["unsent"], 0);
    let kinds: Vec<&str> = r["saturation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert!(
        !kinds.contains(&"unsent") && !kinds.contains(&"rate_shortfall"),
        "{kinds:?}"
    );
}
