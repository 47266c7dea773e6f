"""Training step time of two trees of this project, alternating round by round in one run.

Each tree runs in its own process (``PYTHONPATH`` set to a directory holding a ``hybridize`` link to
the tree, as ``/work/wt/NAME.pkg``), holding one workload of ``bench_training.py`` (its ``Ours``), and
both are driven round by round from here: a load change hits both. Prints the medians of wall and
CPU time per step and the median of the per-round ratios (B / A)::

    python benchmarks/ab_training.py PKG_A PKG_B [--rounds 10] [--steps 20] [--workload lenet]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

WORKER = r'''
import json, sys
sys.path.insert(0, sys.argv[2])
from bench_training import WORKLOADS, Ours
name = sys.argv[1]
w = [w for w in WORKLOADS if w[0] == name][0]
o = Ours(name, w[1], w[2], w[3])
print(json.dumps({"ready": 1}), flush=True)
for line in sys.stdin:
    t = o(int(line))
    print(json.dumps({"wall": t, "cpu": o.last["cpu"]}), flush=True)
'''


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--workload", default="lenet")
    args = ap.parse_args()
    here = str(Path(__file__).resolve().parent)
    procs = {}
    for tag, pkg in (("A", args.a), ("B", args.b)):
        p = subprocess.Popen([sys.executable, "-c", WORKER, args.workload, here], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=pkg), text=True)
        json.loads(p.stdout.readline())
        procs[tag] = p
    res: dict = {"A": [], "B": []}
    load = os.getloadavg()[0]
    for r in range(args.rounds):
        for tag in ("A", "B") if r % 2 == 0 else ("B", "A"):
            p = procs[tag]
            p.stdin.write(f"{args.steps}\n")
            p.stdin.flush()
            res[tag].append(json.loads(p.stdout.readline()))
    for p in procs.values():
        p.stdin.close()
        p.wait()
    for tag, pkg in (("A", args.a), ("B", args.b)):
        wall = statistics.median(x["wall"] for x in res[tag]) * 1e3
        cpu = statistics.median(x["cpu"] for x in res[tag]) * 1e3
        print(f"{tag} {pkg}: wall {wall:.2f} ms, CPU {cpu:.2f} ms")
    for k in ("wall", "cpu"):
        ratio = statistics.median(b[k] / a[k] for a, b in zip(res["A"], res["B"]))
        print(f"B / A {k}: {ratio:.3f} (median of {args.rounds} rounds)")
    print(f"load average {load:.1f} -> {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
