#!/usr/bin/env python3
"""Reads the alternating runs of this folder (and the two sequential quick runs committed
beside it) and prints what docs/method.md quotes about the slice of alternating rounds:

1. carry-over: a target's rate in a slice, by which target had the slice before it
   (mean of slice rate / the target's mean slice rate in that round, -1, in %);
2. the switch transient: answers by send offset within a slice (10 ms bins, summed over
   the rounds), relative to the mean of the slice's second half;
3. the spread of the rounds' log-ratio between the servers compared (sd over rounds, %),
   on simple, medium and mix, for every run.

Usage: python3 evaluate.py   (from this folder; prints to stdout, kept in evaluate.txt)"""
import collections
import json
import math
import statistics as st
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = {
    "rotation-200ms-quick": HERE / "rotation-200ms-quick",
    "permutation-200ms": HERE / "permutation-200ms",
    "permutation-400ms": HERE / "permutation-400ms",
}
SEQUENTIAL = {
    "sequential (servers-quick-floors)": HERE.parent / "servers-quick-floors-2026-11-26",
    "sequential (servers-quick)": HERE.parent / "servers-quick-2026-11-26",
}
SCENARIOS = ["simple", "medium", "mix"]
PAIRS = [
    ("graphql-jit", "mercurius"),
    ("graphql-yoga", "apollo-server"),
    ("node-baseline", "graphql-jit"),
    ("mercurius", "graphql-yoga"),
]


def load(folder):
    return json.loads((folder / "results.json").read_text())


def slice_rate(q):
    return q["ok"] / (q["counted_ms"] / 1000.0)


def carry_over(run):
    """(target, previous slice's target) -> relative rates of the target's slices."""
    agg = collections.defaultdict(list)
    for s in run["scenarios"]:
        if s["name"] not in SCENARIOS:
            continue
        alt = [t for t in s["targets"] if any(x.get("alternated") for x in t["trials"])]
        for k in {x["trial"] for t in alt for x in t["trials"]}:
            owner, own = {}, {}
            for t in alt:
                for x in t["trials"]:
                    if x["trial"] != k or not x.get("alternated"):
                        continue
                    slices = x["load"].get("slices", [])
                    for q in slices:
                        owner[q["index"]] = t["name"]
                    full = max((q["counted_ms"] for q in slices), default=0)
                    own[t["name"]] = [
                        (q["index"], slice_rate(q))
                        for q in slices
                        if q["counted_ms"] >= 0.99 * full > 0
                    ]
            for name, sl in own.items():
                if len(sl) < 3:
                    continue
                m = st.mean(v for _, v in sl)
                for i, v in sl:
                    before = owner.get(i - 1)
                    if before:
                        agg[(name, before)].append(v / m - 1)
    return agg


def print_carry_over(label, agg):
    names = sorted({a for a, _ in agg})
    print(f"\n{label}: slice rate by the previous slice's target, % of the target's mean (slices)")
    print(" " * 16 + "".join(f"{n[:13]:>15s}" for n in names))
    for a in names:
        cells = []
        for b in names:
            v = agg.get((a, b))
            cells.append(f"{st.mean(v) * 100:+8.1f} ({len(v):3d})" if v else " " * 15)
        print(f"{a[:15]:16s}" + "".join(cells))
    spread = [abs(st.mean(v)) * 100 for (a, b), v in agg.items() if a != b and len(v) >= 5]
    print(f"  largest |effect| of another target before (5+ slices): {max(spread):.1f}%")


def transient(run, label):
    print(f"\n{label}: answers by offset in the slice, relative to its second half")
    for s in run["scenarios"]:
        if s["name"] not in SCENARIOS:
            continue
        for t in s["targets"]:
            prof = None
            for x in t["trials"]:
                p = x["load"].get("slice_profile") or []
                if not p:
                    continue
                prof = prof or [0] * len(p)
                for i, v in enumerate(p[: len(prof)]):
                    prof[i] += v
            if not prof:
                continue
            half = prof[len(prof) // 2 :]
            level = sum(half) / len(half)
            step = max(1, len(prof) // 20)
            cells = " ".join(f"{v / level:.2f}" for v in prof[::step])
            print(f"  {s['name']:7s} {t['name'][:13]:13s} every {step * 10} ms: {cells}")


def ratio_sd(run):
    """(scenario, pair) -> sd over rounds of the log-ratio, %."""
    out = {}
    for s in run["scenarios"]:
        if s["name"] not in SCENARIOS:
            continue
        rows = {
            t["name"]: {
                x["trial"]: x["load"]["throughput_rps"]
                for x in t["trials"]
                if x.get("valid") and not x.get("excluded") and x["load"]["throughput_rps"] > 0
            }
            for t in s["targets"]
        }
        for a, b in PAIRS:
            if a in rows and b in rows:
                d = [math.log(rows[a][k] / rows[b][k]) for k in rows[a] if k in rows[b]]
                if len(d) >= 2:
                    out[(s["name"], a, b)] = st.stdev(d) * 100
    return out


def main():
    runs = {k: load(v) for k, v in RUNS.items()}
    for label, run in runs.items():
        print_carry_over(label, carry_over(run))
    for label, run in runs.items():
        transient(run, label)
    print("\nsd over rounds of the log-ratio of two targets' req/s, % (simple, medium, mix)")
    every = {**{k: load(v) for k, v in SEQUENTIAL.items()}, **runs}
    for label, run in every.items():
        sds = ratio_sd(run)
        cells = ", ".join(f"{sc}/{a}:{b} {v:.1f}" for (sc, a, b), v in sorted(sds.items()))
        print(f"  {label}: median {st.median(sds.values()):.1f}% over {len(sds)} pairs")
        print(f"    {cells}")


if __name__ == "__main__":
    main()
