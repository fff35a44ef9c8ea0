//! A fixture server (tests/fixtures/targets/_fixture/server.mjs) started by a test in a
//! mode of its own, on a free loopback port, killed when dropped.
use std::process::{Child, Command, Stdio};

use super::fixtures;

pub struct Server {
    child: Child,
    pub url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn start(mode: &str) -> Server {
    start_with_env(mode, &[])
}

/// A free loopback port (released at once: the caller gives it to a server).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// [`start`] with extra environment for the server.
pub fn start_with_env(mode: &str, env: &[(&str, String)]) -> Server {
    let port = free_port();
    let mut child = Command::new("node")
        .arg(fixtures().join("targets/_fixture/server.mjs"))
        .arg(mode)
        .envs(env.iter().map(|(k, v)| (k, v)))
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
