#!/usr/bin/env python3
"""The efficiency twins check: for each run-N/results.json, the twin pair's verdict on CPU per
answer (faster = named cheaper, equivalent, undecided), its estimate and interval, the rounds
and the noise; then the count of false rankings ("cheaper" between two names of one build)."""
import json, pathlib, statistics, sys

here = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
runs = sorted(here.glob("run-*/results.json"), key=lambda p: int(p.parent.name.split("-")[1]))
states = {}
for p in runs:
    r = json.loads(p.read_text())
    s = r["scenarios"][0]
    pairs = (s.get("ranking") or {}).get("pairs") or []
    steal = [t["noise"]["steal_pct"] for x in s["targets"] for t in x["trials"] if t.get("noise")]
    steal_txt = f"steal median {statistics.median(steal):.0f}%" if steal else "steal not read"
    if not pairs:
        why = "; ".join(f'{x["name"]}: {x["status"]}' for x in s["targets"])
        states["no pair"] = states.get("no pair", 0) + 1
        print(f'{p.parent.name:7} no pair ranked ({why}), {steal_txt}')
        continue
    pair = pairs[0]
    m = pair["margin"]
    states[pair["state"]] = states.get(pair["state"], 0) + 1
    print(f'{p.parent.name:7} {pair["faster"]:>18} vs {pair["slower"]:<18} {pair["state"]:10} '
          f'{m["pct"]:+5.1f}% [{m["ci_low_pct"]:+.1f}, {m["ci_high_pct"]:+.1f}] answers per '
          f'CPU-second, rounds {s["rounds"]["run"]}, {steal_txt}')
print(f"{len(runs)} runs: " + ", ".join(f"{v} {k}" for k, v in sorted(states.items())))
print(f'false rankings ("cheaper" between twins): {states.get("faster", 0)} of {len(runs)}')
