#!/usr/bin/env bash
# The twins evaluation (issue 36): a catalogue where graphql-jit and mercurius each exist
# twice (a copy of the target folder under another name: only target.toml's `name`
# differs), then 20 alternating runs of the servers suite's `medium` scenario, each on one
# twin pair (odd runs graphql-jit, even runs mercurius), with a 1-minute budget. Run from
# the repository's root after `cargo build --release`; ./evaluate.py reads the results.
set -euo pipefail
root=$(mktemp -d)
out=${1:-$(mktemp -d)}
ln -s "$PWD/scenarios" "$root/scenarios"
mkdir "$root/targets"
for t in targets/*; do ln -s "$PWD/$t" "$root/$t"; done
for t in graphql-jit mercurius; do
  cp -r "targets/$t" "$root/targets/$t-twin"
  sed -i "s/^name = \"$t\"/name = \"$t-twin\"/" "$root/targets/$t-twin/target.toml"
done
for i in $(seq 1 20); do
  if [ $((i % 2)) -eq 1 ]; then t=graphql-jit,graphql-jit-twin; else t=mercurius,mercurius-twin; fi
  ./target/release/gqlbench --root "$root" run servers --scenarios medium --targets "$t" --max-time 1m --out "$out/run-$i" || true
done
echo "results in $out"
