#!/usr/bin/env python3
"""Totals of the A/B calibration's parts (each a `calibrate --sensitivity --ab` folder
beside this file): per reference and comparison, flagged of compared, the verdicts, the
median and largest time to decide, and the changes measured."""
import collections
import json
import pathlib
import statistics

here = pathlib.Path(__file__).parent
totals = collections.OrderedDict()
for part in sorted(p for p in here.iterdir() if (p / "sensitivity.json").exists()):
    s = json.loads((part / "sensitivity.json").read_text())
    for c in s["cases"]:
        t = totals.setdefault((s["target"], c["name"]), {"flagged": 0, "compared": 0, "reps": []})
        t["flagged"] += c["flagged"]
        t["compared"] += c["compared"]
        t["reps"] += c["reps"]
for (target, name), t in totals.items():
    secs = [r["seconds"] for r in t["reps"] if r.get("seconds") is not None]
    changes = [r["change_pct"] for r in t["reps"] if r.get("change_pct") is not None]
    verdicts = collections.Counter(r["verdict"] for r in t["reps"])
    print(
        f"{target} {name}: flagged {t['flagged']} of {t['compared']}; "
        f"verdicts {dict(verdicts)}; time to decide median {statistics.median(secs):.0f} s, "
        f"max {max(secs):.0f} s; change median {statistics.median(changes):+.2f}%, "
        f"range {min(changes):+.2f}% to {max(changes):+.2f}%"
    )
