#!/usr/bin/env python3
"""Carry-over between alternating slices in this run: for every counted slice of every
target, its rate against the target's mean rate in that round, grouped by the slice before
it (the previous arm's target): after a slow one (mean latency above 50 ms: its 50-100
connections' answers still in flight when its slice ends) or after a fast one. Reads
results.json beside it (or the folder given)."""
import json, pathlib, statistics as st, sys

here = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).parent)
r = json.loads((here / "results.json").read_text())
print("scenario  round  after a slow predecessor        after a fast one")
for s in r["scenarios"]:
    rounds = sorted({t["trial"] for x in s["targets"] for t in x["trials"]})
    for rnd in rounds:
        slices, lat = {}, {}
        for t in s["targets"]:
            for tr in t["trials"]:
                if tr["trial"] != rnd or not tr["load"].get("slices"):
                    continue
                lat[t["name"]] = tr["load"]["latency"]["mean_us"] / 1000
                for x in tr["load"]["slices"]:
                    if x["counted_ms"] > 0:
                        slices[x["index"]] = (t["name"], x["ok"] / x["counted_ms"] * 1000)
        slow, fast = [], []
        for name in lat:
            mine = [(i, v) for i, (n, v) in slices.items() if n == name]
            if not mine:
                continue
            mean = st.mean(v for _, v in mine)
            for i, v in mine:
                before = slices.get(i - 1)
                if before:
                    (slow if lat[before[0]] > 50 else fast).append(v / mean)
        if slow and fast:
            print(f"{s['name']:9} {rnd:5}  {st.mean(slow):.2f} of its mean (n={len(slow):2})"
                  f"          {st.mean(fast):.2f} (n={len(fast):2})")
