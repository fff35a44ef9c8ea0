#!/usr/bin/env bash
# Where the generator's CPU goes (issue 39 part 5): gqlbench's load and wrk, each 5 s
# against gqlbench's static server on CPU 1, the client on CPU 0, sampled by `perf record`;
# prints each one's requests per second and its CPU split by object (kernel, the program,
# libc). Run from the repository's root after `cargo build --release`; needs perf and wrk.
set -euo pipefail
tmp=$(mktemp -d)
taskset -c 1 ./target/release/gqlbench serve-static --port 4600 > "$tmp/server.log" 2>&1 &
server=$!
trap 'kill $server; rm -rf "$tmp"' EXIT
sleep 1
echo '{ __typename }' > "$tmp/q.graphql"
printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Content-Type"] = "application/json"\n' \
  "'{\"query\":\"{ __typename }\"}'" > "$tmp/post.lua"
echo "== gqlbench load, 64 connections, pipelining 1"
perf record -q -o "$tmp/g.data" -- taskset -c 0 ./target/release/gqlbench load \
  http://127.0.0.1:4600/graphql -q "$tmp/q.graphql" -c 64 -d 5s --generator-cpus 0 2>&1 \
  | grep -E "throughput|generator "
perf report -i "$tmp/g.data" --no-children --sort dso 2>/dev/null | grep -E "^ +[0-9]"
echo "== wrk, 1 thread, 64 connections"
perf record -q -o "$tmp/w.data" -- taskset -c 0 wrk -t1 -c64 -d5s -s "$tmp/post.lua" \
  http://127.0.0.1:4600/graphql 2>&1 | grep -E "Requests/sec"
perf report -i "$tmp/w.data" --no-children --sort dso 2>/dev/null | grep -E "^ +[0-9]"
