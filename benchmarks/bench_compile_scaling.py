"""Compile cost of long chains, stage by stage: seconds up to 100k nodes, operation counts at 1k/4k/16k.

    python benchmarks/bench_compile_scaling.py [--nodes 1000 10000 100000] [--counts 1000 4000 16000] [--cli]

Seconds (wall, and the process's CPU seconds: on a shared machine the CPU figure is the one that
compares between runs): a plain chain of N operators (ReLU, +1, sigmoid, *0.5 in turn, every node named ``node``,
the shape of the faults campaign's reproducer) is loaded from its symbol JSON and compiled
(``compile_graph`` as ``hybridize run`` calls it), each stage timed on its own: ``load``, ``setup``
(compile_graph's checks), ``infer`` (the first shape/dtype inference), every pass of
``pipeline.PIPELINE`` (inference a pass asks for counts in that pass), ``pack buffers`` (the memory
planner's placement, inside ``generate``). ``--cli`` also times the real command
``python -m hybridize run CHAIN-symbol.json -i x.npy`` (start-up, imports and the first call included).

Operation counts: lines of the package's code executed per stage (``tests/compiler/opcount.py``, the
instrument of ``tests/compiler/test_scaling.py``) for the test's block chain (FullyConnected, BatchNorm,
ReLU, two equal sigmoids, add, Dropout, +1: ~14 nodes a block) of about each given node count, and
the ratio of each count to the previous size's: a linear stage grows as the nodes do. Seconds are
this machine's, counts are not.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "compiler"))
from opcount import Counter, count, op_chain_json  # noqa: E402


def seconds(nodes: list[int], cli: bool) -> None:
    print(f"seconds to load and compile a chain of N operators (python {sys.version.split()[0]})")
    rows = []
    for n in nodes:
        text = op_chain_json(n)
        c = Counter(trace=False)
        t0, c0 = time.perf_counter(), time.process_time()
        c.compile(text)
        total, cpu = time.perf_counter() - t0, time.process_time() - c0
        rows.append((n, total, cpu, {k: v for k, v in c.seconds.items() if k}))
    stages = list(rows[-1][3])
    print(f"{'N':>8} {'wall':>7} {'cpu':>7}  " + " ".join(f"{s[:12]:>12}" for s in stages))
    for n, total, cpu, st in rows:
        print(f"{n:>8} {total:7.2f} {cpu:7.2f}  " + " ".join(f"{st.get(s, 0.0):12.3f}" for s in stages))
    if cli:
        with tempfile.TemporaryDirectory() as d:
            np.save(os.path.join(d, "x.npy"), np.ones((2, 3), np.float32))
            for n in nodes:
                path = os.path.join(d, f"chain{n}-symbol.json")
                with open(path, "w") as f:
                    f.write(op_chain_json(n))
                t0 = time.perf_counter()
                done = subprocess.run([sys.executable, "-m", "hybridize", "run", path, "-i", os.path.join(d, "x.npy")],
                                      capture_output=True, text=True)
                took = time.perf_counter() - t0
                print(f"hybridize run chain of {n}: exit {done.returncode}, {took:.2f} s: {done.stdout.strip()[:80]}")


def counts(nodes: list[int]) -> None:
    print("lines executed per stage (block chain, ~14 nodes a block); x: ratio to the previous size")
    rows = [(n, count(max(1, n // 14)).totals()) for n in nodes]
    stages = list(rows[-1][1])
    print(f"{'stage':>14} " + " ".join(f"{n:>18}" for n, _ in rows))
    for s in stages:
        cells, prev = [], None
        for _, t in rows:
            v = t.get(s, 0)
            cells.append(f"{v:>10}" + (f" ({v / prev:4.2f}x)" if prev else " " * 8))
            prev = v
        print(f"{s:>14} " + " ".join(cells))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="*", default=[1000, 10000, 100000])
    ap.add_argument("--counts", type=int, nargs="*", default=[1000, 4000, 16000])
    ap.add_argument("--cli", action="store_true")
    args = ap.parse_args()
    if args.nodes:
        seconds(args.nodes, args.cli)
    if args.counts:
        counts(args.counts)


if __name__ == "__main__":
    main()
