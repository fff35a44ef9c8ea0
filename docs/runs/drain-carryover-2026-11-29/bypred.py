#!/usr/bin/env python3
"""Carry-over between alternating slices, by the target that had the slice before: for
every counted slice of every target, its rate against that target's mean rate in the same
round, averaged over the slices that followed each other target (a slice that follows the
same target, a block's middle, is left out). 1.00: no carry-over; below: the slices after
that target run slower. The predecessors are listed slowest first (mean latency of their
counted requests, ms). Reads results.json in each folder given."""
import collections, json, pathlib, statistics as st, sys

for folder in sys.argv[1:]:
    r = json.loads((pathlib.Path(folder) / "results.json").read_text())
    print(folder)
    for s in r["scenarios"]:
        rounds = sorted({t["trial"] for x in s["targets"] for t in x["trials"]})
        after, lat = collections.defaultdict(list), {}
        for rnd in rounds:
            slices = {}
            for t in s["targets"]:
                for tr in t["trials"]:
                    if tr["trial"] != rnd or tr.get("excluded") or not tr["load"].get("slices"):
                        continue
                    lat[t["name"]] = tr["load"]["latency"]["mean_us"] / 1000
                    for x in tr["load"]["slices"]:
                        if x["counted_ms"] > 0:
                            slices[x["index"]] = (t["name"], x["ok"] / x["counted_ms"] * 1000)
            for name in {n for n, _ in slices.values()}:
                mine = [(i, v) for i, (n, v) in slices.items() if n == name]
                mean = st.mean(v for _, v in mine)
                for i, v in mine:
                    before = slices.get(i - 1)
                    if before and before[0] != name:
                        after[before[0]].append(v / mean)
        if after:
            cells = [f"{k} ({lat[k]:.0f} ms) {st.mean(v):.2f} (n={len(v)})"
                     for k, v in sorted(after.items(), key=lambda kv: -lat[kv[0]])]
            print(f"  {s['name']:8} after " + "; ".join(cells))
