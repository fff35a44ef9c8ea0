#!/usr/bin/env python3
"""The slice pilot's figures (docs/method.md, "A/B of two builds"): per slice length, each
pair's variance of its ABBA block estimates times the load time a block takes
(V = within_se^2 * blocks * 4L, in 1e-4), the transient the pair's switches showed, each
side's req/s, and the spread of the pair estimates. Reads the runs beside this file."""
import json
import pathlib
import statistics

here = pathlib.Path(__file__).parent
for run in sorted(here.glob("slice-*"), key=lambda p: float(p.name[6:-2])):
    r = json.loads((run / "results.json").read_text())
    ab = r["scenarios"][0]["ab"]
    L = ab["slice_ms"] / 1000.0
    pairs = ab["pairs"]
    v = [p["within_se"] ** 2 * p["blocks"] * 4 * L * 1e4 for p in pairs]
    d = [100 * p["d"] for p in pairs]
    print(
        f"{run.name}: V (1e-4) {', '.join(f'{x:.2f}' for x in v)} (mean {statistics.mean(v):.2f}); "
        f"transient {[p.get('transient_ms') for p in pairs]} ms; "
        f"req/s A {[round(p['a_rps']) for p in pairs]}; "
        f"pair estimates {[round(x, 2) for x in d]}% (sd {statistics.stdev(d):.2f}%)"
    )
