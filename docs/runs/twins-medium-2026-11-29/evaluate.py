#!/usr/bin/env python3
"""The twins evaluation: for each run-N/results.json, the twin pair's verdict (faster,
equivalent, undecided), its estimate and interval, the rounds and the noise; then the count
of false rankings ("faster" between two copies of one server)."""
import json, pathlib, statistics, sys

here = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
runs = sorted(here.glob("run-*/results.json"), key=lambda p: int(p.parent.name.split("-")[1]))
states = {}
for p in runs:
    r = json.loads(p.read_text())
    s = r["scenarios"][0]
    pair = s["ranking"]["pairs"][0]
    steal = [t["noise"]["steal_pct"] for x in s["targets"] for t in x["trials"] if t.get("noise")]
    m = pair["margin"]
    states[pair["state"]] = states.get(pair["state"], 0) + 1
    print(f'{p.parent.name:7} {pair["faster"]:>17} vs {pair["slower"]:<17} {pair["state"]:10} '
          f'{m["pct"]:+5.1f}% [{m["ci_low_pct"]:+.1f}, {m["ci_high_pct"]:+.1f}] '
          f'rounds {s["rounds"]["run"]}, steal median {statistics.median(steal):.0f}%')
print(f"{len(runs)} runs: " + ", ".join(f"{v} {k}" for k, v in sorted(states.items())))
print(f'false rankings ("faster" between twins): {states.get("faster", 0)} of {len(runs)}')
