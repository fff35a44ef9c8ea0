#!/usr/bin/env bash
# The efficiency twins check (issue 39, "an A/A check"): a catalogue where hive-router and
# apollo-router each exist twice (the twin is a variant of the target that changes nothing:
# `base = "<target>"` and a name, so both start the same cached build), then 20 runs of
# the federation suite's `efficiency-50` scenario (the large query at 50 req/s, ranked by
# CPU per validated answer), each on one twin pair (odd runs hive-router, even runs
# apollo-router), with a 1-minute budget. Run from the repository's root after
# `cargo build --release` and `gqlbench install hive-router apollo-router`;
# ./evaluate.py reads the results.
set -euo pipefail
root=$(mktemp -d)
out=${1:-$(mktemp -d)}
# The scenarios copied, efficiency-50's target list given the twins (a scenario runs only
# the targets it lists).
cp -r scenarios "$root/scenarios"
sed -i 's/^targets = \[.*\]$/targets = ["hive-router", "hive-router-twin", "apollo-router", "apollo-router-twin"]/' \
  "$root/scenarios/federation/efficiency-50.toml"
mkdir "$root/targets"
for t in targets/*; do ln -s "$PWD/$t" "$root/$t"; done
for t in hive-router apollo-router; do
  mkdir "$root/targets/$t-twin"
  printf 'name = "%s-twin"\nbase = "%s"\ndescription = "%s under another name (A/A)"\nworkloads = ["federation"]\n' \
    "$t" "$t" "$t" > "$root/targets/$t-twin/target.toml"
done
for i in $(seq 1 20); do
  if [ $((i % 2)) -eq 1 ]; then t=hive-router,hive-router-twin; else t=apollo-router,apollo-router-twin; fi
  ./target/release/gqlbench --root "$root" run federation --scenarios efficiency-50 --targets "$t" --max-time 1m --out "$out/run-$i" || true
done
rm -rf "$root"
echo "results in $out"
