//! End-to-end: a closed-model ramp against a server that closes idle keep-alive
//! connections. The ramp's later connections are opened and primed before the window and
//! wait seconds for their stage; a server closing them meanwhile (Node does after 5 s) is
//! ordinary HTTP, so the row must stay valid, with the reopened connections counted.
use crate::common;
use common::*;

#[test]
fn a_ramp_against_a_one_second_keep_alive_timeout_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    let out = Gqlbench::run("e2e")
        .root(fixtures())
        .scenarios("ramp")
        .args(["--target-env", "FIXTURE_KEEPALIVE_MS=1000"])
        .warmup("0s")
        .duration("5s")
        .trials(1)
        .json()
        .out(dir.path())
        .go();
    let r = out.results();
    let trial = &target(&r, 0, "fx-good").trials[0];
    assert_eq!(trial.load.failed, 0, "{:?}", trial.load.failure_examples);
    assert!(trial.valid, "{:?}", trial.problems);
    // Connections 3 to 8 waited more than the server's 1 s before their stage.
    assert!(trial.load.reconnects >= 4, "{}", trial.load.reconnects);
    assert_eq!(trial.load.connections.connections_used, 8);
    out.assert_exit(0);
}
