//! The `gqlbench-subgraphs` binary: refusals, `ready`, prompt exit on SIGTERM.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_gqlbench-subgraphs");

fn refusal(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    String::from_utf8(out.stderr).unwrap()
}

const PORTS: &str = "accounts=1,products=2,reviews=3,inventory=4";

#[test]
fn malformed_delay_is_refused_with_its_reason_and_an_example() {
    let err = refusal(&["serve", "--ports", PORTS, "--delay", "reviews=20..150"]);
    assert!(err.contains("has no unit"), "{err}");
    assert!(err.contains("--delay reviews=20..150ms"), "{err}");
    let err = refusal(&["serve", "--ports", PORTS, "--delay", "users=20..150ms"]);
    assert!(
        err.contains("valid: accounts, products, reviews, inventory"),
        "{err}"
    );
}

#[test]
fn malformed_ports_are_refused_with_an_example() {
    let err = refusal(&["serve", "--ports", "accounts=1,products=2"]);
    assert!(err.contains("no port for reviews"), "{err}");
    assert!(err.contains("--ports accounts=4001"), "{err}");
}

#[test]
fn no_threads_is_refused_as_bad_input() {
    let err = refusal(&["serve", "--ports", PORTS, "--threads", "0"]);
    assert!(err.contains("--threads must be at least 1"), "{err}");
}

#[test]
fn sdl_refuses_unknown_subgraphs() {
    let err = refusal(&["sdl", "--subgraph", "users"]);
    assert!(
        err.contains("valid: accounts, products, reviews, inventory"),
        "{err}"
    );
}

#[test]
fn serve_says_ready_and_exits_promptly_on_sigterm() {
    let ports = free_ports();
    let ports = format!(
        "accounts={},products={},reviews={},inventory={}",
        ports[0], ports[1], ports[2], ports[3]
    );
    let mut child = Command::new(BIN)
        .args(["serve", "--ports", &ports, "--threads", "1"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(
        line,
        format!("ready {ports}\n"),
        "the ports bound, as given"
    );
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let asked = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status}");
            break;
        }
        assert!(
            asked.elapsed() < Duration::from_secs(5),
            "still running 5 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Four ports free right now (bound then released; another process could take one in
/// between, which would fail the test loudly rather than pass it wrongly).
fn free_ports() -> [u16; 4] {
    let listeners: Vec<std::net::TcpListener> = (0..4)
        .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let mut ports = [0; 4];
    for (p, l) in ports.iter_mut().zip(&listeners) {
        *p = l.local_addr().unwrap().port();
    }
    ports
}
