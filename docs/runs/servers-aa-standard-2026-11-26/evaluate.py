#!/usr/bin/env python3
"""The A/A check of issue 23 (item 8): how often `gqlbench compare --fail-if-slower 5%` trips
on two runs of the same build. Usage: evaluate.py GQLBENCH_BINARY [FOLDER]

For each pair of runs it compares them twice: as a whole (compare's own intervals, each row
widened by the variance between target processes that the rows show), and row by row, each
row alone in a copy of both results files (with fewer than 3 rows compare cannot estimate
that variance, so the row is judged on the noise within the two runs only: the gate as it
was before the widening). Pairs: consecutive runs (01-02, 03-04, ...: independent pairs),
then every pair of the runs (not independent: each run is in 9 of them)."""
import copy, itertools, json, os, subprocess, sys, tempfile

binary = sys.argv[1]
folder = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.abspath(__file__))
gate = "5%"
runs = sorted(x for x in os.listdir(folder) if x.startswith("run-"))
results = {r: json.load(open(os.path.join(folder, r, "results.json"))) for r in runs}
scratch = tempfile.mkdtemp()


def compare(a, b):
    out = subprocess.run([binary, "compare", a, b, "--fail-if-slower", gate, "--json"],
                         capture_output=True, text=True, check=False)
    return json.loads(out.stdout)


def one_row(run, scenario, target):
    x = copy.deepcopy(results[run])
    x["scenarios"] = [dict(s, targets=[t for t in s["targets"] if t["name"] == target])
                      for s in x["scenarios"] if s["name"] == scenario]
    return x


def judge(a, b):
    whole = compare(*(os.path.join(folder, r, "results.json") for r in (a, b)))
    widened = [r for r in whole["rows"] if r["regression"]]
    narrow = []
    for s in results[a]["scenarios"]:
        for t in s["targets"]:
            paths = []
            for r, name in ((a, "a.json"), (b, "b.json")):
                p = os.path.join(scratch, name)
                json.dump(one_row(r, s["name"], t["name"]), open(p, "w"))
                paths.append(p)
            narrow += [r for r in compare(*paths)["rows"] if r["regression"]]
    bp = whole.get("between_processes") or {}
    return widened, narrow, (bp.get("tau2") or 0.0) ** 0.5 * 100, len(whole["rows"])


def line(r):
    return f"{r['scenario']} {r['target']}: {r['reason'].split('; req/s')[0]}"


print(f"gate: --fail-if-slower {gate}\n\nindependent pairs (consecutive runs):")
tw = tn = 0
for a, b in zip(runs[0::2], runs[1::2]):
    w, n, sd, _ = judge(a, b)
    tw += bool(w)
    tn += bool(n)
    print(f"- {a} vs {b}: between-process sd {sd:.1f}%; widened: {len(w)} rows trip; within runs only: {len(n)} rows trip")
    for r in w:
        print(f"    widened: {line(r)}")
    for r in n:
        print(f"    within runs only: {line(r)}")
print(f"pairs that trip: widened {tw} of {len(runs) // 2}; within runs only {tn} of {len(runs) // 2}\n")
pw = pn = rw = rn = rows = 0
sds = []
print("every pair of the runs (the earlier one as baseline):")
for a, b in itertools.combinations(runs, 2):
    w, n, sd, k = judge(a, b)
    pw += bool(w)
    pn += bool(n)
    rw += len(w)
    rn += len(n)
    rows += k
    sds.append(sd)
    for r in w:
        print(f"- {a} vs {b}, widened: {line(r)}")
sds.sort()
pairs = len(runs) * (len(runs) - 1) // 2
print(f"pairs that trip: widened {pw} of {pairs} ({rw} of {rows} rows); within runs only {pn} of {pairs} ({rn} of {rows} rows)")
print(f"between-process sd estimated per pair: median {sds[len(sds) // 2]:.1f}%, {sds[0]:.1f}% to {sds[-1]:.1f}%")
