#!/usr/bin/env bash
# Where the generator's kernel time goes, by kernel function (issue 39 part 5: can a
# shorter syscall path reach 1.25x wrk?). gqlbench's load, 5 s, 64 connections, against
# gqlbench's static server on CPU 1, the client on CPU 0, sampled by `perf record`; then
# `perf report --sort sym` (self time) grouped by classify.py into the syscall boundary
# (what io_uring or batched syscalls could shorten), epoll, the TCP send path, the loopback
# receive softirq (the peer's receive, run on the sender's CPU), the receive copy, memory,
# scheduling, the rest. Run from the repository's root after `cargo build --release`;
# needs perf.
set -euo pipefail
here=$(dirname "$0")
tmp=$(mktemp -d)
taskset -c 1 ./target/release/gqlbench serve-static --port 4601 > "$tmp/server.log" 2>&1 &
server=$!
trap 'kill $server; rm -rf "$tmp"' EXIT
sleep 1
echo '{ __typename }' > "$tmp/q.graphql"
perf record -q -o "$tmp/g.data" -- taskset -c 0 ./target/release/gqlbench load \
  http://127.0.0.1:4601/graphql -q "$tmp/q.graphql" -c 64 -d 5s --generator-cpus 0 2>&1 \
  | grep -E "throughput|generator "
perf report -i "$tmp/g.data" --no-children --sort dso,sym 2>/dev/null \
  | grep -E "^ +[0-9]" > "$tmp/syms.txt"
python3 "$here/classify.py" "$tmp/syms.txt"
