//! Measures the subscription engine's efficiency: the reference publisher in a child process
//! pinned to CPU 1 publishes to every subscriber at a fixed rate, and the engine (one worker
//! thread pinned to CPU 0) holds the subscriptions and receives every message.
//!
//! cargo run --release -p gqlbench-engine --example subscribe_load -- \
//!     [connections=10000] [seconds=20] [rate=10] [ws|sse] [connect_rate=2000]
//!
//! The publisher runs in its own process because both ends of 10,000 connections in one
//! process would need more than the usual 20,000 open-files hard limit.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use gqlbench_engine::*;
use gqlbench_servers::publisher::{Publisher, PublisherOptions};

/// utime + stime of a process, in seconds (from /proc, clock ticks of 10 ms).
fn process_cpu_s(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may contain spaces) start after the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    Some((utime + stime) / hz)
}

fn pin(cpu: usize) {
    // SAFETY: plain libc calls on a zeroed cpu_set_t.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

/// Child: serve until stdin closes (the parent ended), then report.
fn serve(rate: f64, cpu: usize) {
    let p = Publisher::start(PublisherOptions {
        rate,
        cpus: Some(vec![cpu]),
        ..PublisherOptions::default()
    })
    .expect("publisher");
    println!("PORT {}", p.addr().port());
    let _ = std::io::stdout().flush();
    let mut sink = Vec::new();
    let _ = std::io::stdin().read_to_end(&mut sink);
    eprintln!("publisher: {:?}, pinned {:?}", p.stats(), p.pinned_cpus());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("serve") {
        let rate = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(10.0);
        let cpu = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(1);
        return serve(rate, cpu);
    }
    let num = |i: usize, d: f64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(d);
    let connections = num(0, 10_000.0) as u32;
    let seconds = num(1, 20.0);
    let rate = num(2, 10.0);
    let transport = match args.get(3).map(String::as_str) {
        Some("sse") => SubscribeTransport::Sse,
        _ => SubscribeTransport::WebSocket,
    };
    let connect_rate = num(4, 2000.0);
    pin(0);
    let exe = std::env::current_exe().expect("current exe");
    let mut child = Command::new(exe)
        .args(["serve", &rate.to_string(), "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the publisher");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("child stdout");
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("port line");
    let port: u16 = line
        .trim()
        .strip_prefix("PORT ")
        .and_then(|p| p.parse().ok())
        .expect("PORT line from the publisher");
    let endpoint = Endpoint::from_url(&format!("ws://127.0.0.1:{port}/graphql")).expect("url");
    let mut plan = SubscribePlan::new(
        endpoint,
        transport,
        "subscription { ticks { seq publishedAt } }",
    );
    plan.connections = connections;
    plan.connect_rate = connect_rate;
    plan.warmup = Duration::from_secs(2);
    plan.hold = Duration::from_secs_f64(seconds);
    plan.published_at_pointer = Some("/data/ticks/publishedAt".into());
    plan.seq_pointer = Some("/data/ticks/seq".into());
    plan.cpus = Some(vec![0]);
    let control = SubscribeControl::default();
    // Publisher CPU over the measured window, sampled when the phase changes.
    let live = control.live.clone();
    let child_pid = child.id();
    let sampler = std::thread::spawn(move || {
        let mut start = None;
        loop {
            match live.phase() {
                SubscribePhase::Measure if start.is_none() => {
                    start = process_cpu_s(child_pid).map(|c| (c, std::time::Instant::now()));
                }
                SubscribePhase::Done => break,
                _ => {}
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let (c0, t0) = start?;
        let c1 = process_cpu_s(child_pid)?;
        Some((c1 - c0) / t0.elapsed().as_secs_f64() * 100.0)
    });
    let r = run_subscriptions(&plan, &control).expect("run");
    let publisher_cpu = sampler.join().ok().flatten();
    drop(child.stdin.take());
    let _ = child.wait();
    let c = &r.connections;
    println!(
        "{} subscriptions ({}): attempted {} subscribed {} held at end {} dropped {} setup failed {} (connect phase {:.2}s{})",
        connections,
        r.transport,
        c.attempted,
        c.subscribed,
        c.held_at_end,
        c.dropped,
        c.setup_failed,
        r.connect_phase_s,
        if r.connect_phase_timed_out { ", timed out" } else { "" }
    );
    println!(
        "window {:.1}s: {} messages = {:.0} msg/s ({:.2}/s per connection, min {:.2} max {:.2}); invalid {} missed {} dup {} out-of-order {}",
        r.elapsed_s,
        r.messages,
        r.messages_per_s,
        r.per_connection.mean_per_s,
        r.per_connection.min_per_s,
        r.per_connection.max_per_s,
        r.invalid_messages,
        r.missed,
        r.duplicates,
        r.out_of_order
    );
    println!(
        "delivery latency: p50 {}us p90 {}us p99 {}us p99.9 {}us max {}us",
        r.latency.p50_us, r.latency.p90_us, r.latency.p99_us, r.latency.p999_us, r.latency.max_us
    );
    println!(
        "generator CPU {:.2}s over {:.1}s = {:.1}% of one core (pinned {:?}); publisher CPU {}",
        r.generator_cpu_s,
        r.elapsed_s,
        r.generator_cpu_percent,
        r.pinned_cpus,
        publisher_cpu.map_or("n/a".to_string(), |p| format!("{p:.1}% of one core")),
    );
    println!(
        "connect time p50 {}us p99 {}us max {}us",
        r.connect_time.p50_us, r.connect_time.p99_us, r.connect_time.max_us
    );
    if !r.failure_examples.is_empty() {
        println!(
            "failures: setup {:?} drops {:?} messages {:?}",
            r.setup_failures, r.drops, r.message_failures
        );
        for e in &r.failure_examples {
            println!("  {:?} {} #{}: {}", e.stage, e.kind, e.connection, e.detail);
        }
    }
    let held: Vec<u64> = r.series.iter().map(|s| s.held).collect();
    let msgs: Vec<u64> = r.series.iter().map(|s| s.messages).collect();
    println!("per second: messages {msgs:?}\nper second: held {held:?}");
}
