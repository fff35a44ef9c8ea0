#!/usr/bin/env bash
# How many simple entity requests a mock subgraph serves per second on one core (issue 27's
# goal: at least 20k). Not a test: a measurement to re-run by hand (docs/own-graph.md).
#
# The release `gqlbench-subgraphs mock` serves tests/fixtures/graphs/shop/ with --threads 1,
# pinned to one CPU; `gqlbench load` (closed model, every answer compared with the one
# fetched first) loads its products subgraph from another CPU with one `_entities` request
# for one Product by its key (upc). Each run prints the load's throughput and the CPU time
# the mock used, so a figure per core survives a machine where other work took some of it.
#
# Usage: tools/bench-mock-subgraph.sh [EXTRA MOCK FLAGS...]   (e.g. --cost Product.price=50us)
# Environment (defaults in brackets):
#   RUNS [3]  DURATION [10s]  WARMUP [2s]  CONNECTIONS [16]
#   SERVER_CPU [1]  LOAD_CPU [0]  PORT [14471] (and PORT+1 for reviews)
#   CARGO_TARGET_DIR [target]  NO_BUILD (set: use the binaries already built)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
runs=${RUNS:-3}
duration=${DURATION:-10s}
warmup=${WARMUP:-2s}
connections=${CONNECTIONS:-16}
server_cpu=${SERVER_CPU:-1}
load_cpu=${LOAD_CPU:-0}
port=${PORT:-14471}
bin=${CARGO_TARGET_DIR:-$root/target}/release

if [ -z "${NO_BUILD:-}" ]; then
    cargo build --release -p gqlbench-subgraphs --bin gqlbench-subgraphs
    cargo build --release --bin gqlbench
fi

work=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

query='query($r:[_Any!]!){_entities(representations:$r){... on Product{upc name price}}}'
variables='{"r":[{"__typename":"Product","upc":"Product-1"}]}'
printf '%s\n' "$query" >"$work/query.graphql"
url="http://127.0.0.1:$port/graphql"

# The mock's CPU time so far (user + system), in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
hz=$(getconf CLK_TCK)

mkfifo "$work/ready"
taskset -c "$server_cpu" "$bin/gqlbench-subgraphs" mock --dir tests/fixtures/graphs/shop \
    --ports "products=$port,reviews=$((port + 1))" --threads 1 --no-response-cache "$@" >"$work/ready" &
server=$!
read -r line <"$work/ready"
# `ready products=PORT,reviews=PORT`: the ports bound.
case $line in
    "ready products=$port,"*) ;;
    *) echo "the mock did not say ready on port $port: $line" >&2; exit 1 ;;
esac

curl -sf -H 'content-type: application/json' \
    --data "{\"query\":\"$query\",\"variables\":$variables}" "$url" >"$work/expect.json"
echo "answer: $(cat "$work/expect.json")"
echo "mock on CPU $server_cpu (--threads 1 $*), load on CPU $load_cpu, $connections connections, $runs x $duration after $warmup warm-up"

for run in $(seq "$runs"); do
    before=$(ticks)
    start=$(date +%s.%N)
    taskset -c "$load_cpu" "$bin/gqlbench" load "$url" -q "$work/query.graphql" \
        --variables "$variables" --expect "$work/expect.json" -c "$connections" \
        -d "$duration" --warmup "$warmup" --generator-cpus "$load_cpu" --json >"$work/run.json" 2>"$work/run.txt" ||
        { cat "$work/run.txt" >&2; exit 1; }
    end=$(date +%s.%N)
    after=$(ticks)
    cpu=$(awk -v a="$after" -v b="$before" -v hz="$hz" 'BEGIN { print (a - b) / hz }')
    wall=$(awk -v a="$end" -v b="$start" 'BEGIN { print a - b }')
    # Requests per CPU-second of the mock: the load's throughput over the run's wall time
    # (warm-up included, at the same rate) divided by the mock's CPU time over it.
    jq -r --arg run "$run" --argjson cpu "$cpu" --argjson wall "$wall" \
        '"run \($run): \(.result.throughput_rps | floor) req/s, \(.result.failed) failed, p50 \(.result.latency.p50_us) us, p99 \(.result.latency.p99_us) us; mock \($cpu * 100 / $wall | floor)% of its core: \(.result.throughput_rps * $wall / $cpu | floor) req/s per core; load generator \(.generator.utilization * 100 | floor)% of its core"' \
        "$work/run.json"
done
