#!/usr/bin/env python3
"""The duet's figures against alternation's (docs/method.md, "The duet form"): per run,
the pair estimates, their spread, the decision and the time it took. Reads the duet runs
beside this file and, when given, the A/B runs of a calibration folder (alternation)."""
import collections
import json
import pathlib
import statistics
import sys

here = pathlib.Path(__file__).parent
runs = sorted(here.glob("duet-*/results.json"))
for extra in sys.argv[1:]:
    runs += sorted(pathlib.Path(extra).glob("rep-*/*/ab.json"))
by_form = collections.defaultdict(lambda: ([], []))
for f in runs:
    r = json.loads(f.read_text())
    ab = r["scenarios"][0]["ab"] if "scenarios" in r else r["ab"]
    ds = [100 * p["d"] for p in ab["pairs"] if p.get("d") is not None]
    dec = ab["decision"]
    print(
        f"{f.parent.relative_to(f.parents[2]) if 'rep-' in str(f) else f.parent.name}: {ab['form']}, "
        f"{len(ds)} pairs, estimates sd {statistics.stdev(ds):.2f}%, "
        f"{dec['verdict']} {dec['pct']:+.2f}% [{dec['low_pct']:+.2f}, {dec['high_pct']:+.2f}] "
        f"in {ab['elapsed_s']:.0f} s"
    )
    sd, secs = by_form[ab["form"]]
    sd.append(statistics.stdev(ds))
    # Times of A/A and +5% only: a +2% change (at the allowance) always runs to the end.
    if "AB2" not in str(f):
        secs.append(ab["elapsed_s"])
for form, (sd, secs) in by_form.items():
    print(
        f"{form}: {len(sd)} runs, spread of the pair estimates {min(sd):.2f}% to {max(sd):.2f}% "
        f"(median {statistics.median(sd):.2f}%), time to decide {min(secs):.0f} s to "
        f"{max(secs):.0f} s (median {statistics.median(secs):.0f} s; A/A and +5%)"
    )
