#!/usr/bin/env python3
"""How far each alternating trial's count (answers over the counted time of its slices)
lies from the rate from the requests' own timing (`timed_rps`), and the step
(`rps_resolution`) each trial's interval was floored at. Reads results.json in each folder
given."""
import json, pathlib, statistics as st, sys

def q(v, p):
    return v[min(len(v) - 1, int(p * len(v)))]

for folder in sys.argv[1:]:
    r = json.loads((pathlib.Path(folder) / "results.json").read_text())
    d, res = [], []
    for s in r["scenarios"]:
        for t in s["targets"]:
            for x in t["trials"]:
                l = x["load"]
                if l.get("slices") and l.get("timed_rps"):
                    d.append(abs(l["throughput_rps"] / l["timed_rps"] - 1) * 100)
                    res.append((l.get("rps_resolution") or 0) * 100)
    d.sort(); res.sort()
    print(f"{folder}: {len(d)} trials; |count / timing - 1| median {st.median(d):.2f}%, "
          f"90th percentile {q(d, .9):.2f}%, max {max(d):.2f}%; "
          f"step median {st.median(res):.2f}%, 90th percentile {q(res, .9):.2f}%")
