"""The seed chapter's benchmark: 1000 forwards of the MLP on a 1x512 input.

Our imperative mode vs our hybridized mode vs a hand-written numpy function with the same weights
(``np.maximum(x @ W1.T + b1, 0)`` ...). Each measurement is the time of 1000 calls (then
``nd.waitall()``, as the chapter does); the figures are medians over several rounds, the
systems alternating within one process. Writes ``benchmarks/RESULTS-seed-mlp.md``.

    python benchmarks/bench_seed_mlp.py [--rounds 7] [--calls 1000] [--output benchmarks/RESULTS-seed-mlp.md]
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

from hybridize.runtime import nd
from hybridize.runtime.gluon import nn


def get_net():
    net = nn.HybridSequential()  # Here we use the class HybridSequential
    net.add(nn.Dense(256, activation='relu'),
            nn.Dense(128, activation='relu'),
            nn.Dense(2))
    net.initialize()
    return net


def bench(fn, x, calls):
    start = time.perf_counter()
    for _ in range(calls):
        _ = fn(x)
    nd.waitall()
    return (time.perf_counter() - start) / calls


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--output", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "RESULTS-seed-mlp.md"))
    args = ap.parse_args(argv)

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((1, 512)).astype(np.float32)
    x = nd.array(x_np)
    imperative = get_net()
    imperative(x)
    hybrid = get_net()
    for src, dst in zip(imperative.collect_params().values(), hybrid.collect_params().values()):
        if dst.shape is None or 0 in dst.shape:
            hybrid(x)
        dst.set_data(src.data())
    hybrid.hybridize()
    hybrid(x)
    (W1, b1, W2, b2, W3, b3) = [p.data().asnumpy() for p in imperative.collect_params().values()]

    def numpy_mlp(a):
        h = np.maximum(a @ W1.T + b1, 0)
        h = np.maximum(h @ W2.T + b2, 0)
        return h @ W3.T + b3

    y_np = numpy_mlp(x_np)
    np.testing.assert_allclose(imperative(x).asnumpy(), y_np, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hybrid(x).asnumpy(), y_np, rtol=1e-5, atol=1e-6)

    systems = [("imperative", imperative, x), ("hybridized", hybrid, x), ("numpy", numpy_mlp, x_np)]
    for _, fn, inp in systems:  # warm-up
        bench(fn, inp, max(args.calls // 10, 10))
    times = {name: [] for name, _, _ in systems}
    for _ in range(args.rounds):
        for name, fn, inp in systems:
            times[name].append(bench(fn, inp, args.calls))
    med = {k: statistics.median(v) * 1e6 for k, v in times.items()}
    best = {k: min(v) * 1e6 for k, v in times.items()}
    try:
        load = "load average %.2f" % os.getloadavg()[0]
    except OSError:
        load = "load average unknown"

    cmd = "python benchmarks/bench_seed_mlp.py" + "".join(f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    lines = [
        "# Seed MLP benchmark (1000 forwards, 1x512 input)",
        "",
        f"Command: `{cmd}` (from the repository root)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"numpy {np.__version__}, {load} at the start. Medians (and minima) of {args.rounds} rounds of "
        f"{args.calls} calls, systems alternating.",
        "",
        "| system | us / forward (median) | vs numpy | speed-up over our imperative | us / forward (min) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name in ("imperative", "hybridized", "numpy"):
        lines.append(f"| {name} | {med[name]:.1f} | {med[name] / med['numpy']:.2f}x | "
                     f"{med['imperative'] / med[name]:.1f}x | {best[name]:.1f} |")
    lines += [
        "",
        "Targets: hybridized <= 1.2x numpy, and >= 3x faster than imperative. "
        "Real MXNet 1.9.1 on this kind of machine: 125 us imperative, 59 us hybridized, numpy 18 us.",
        "",
        f"Result: hybridized/numpy = {med['hybridized'] / med['numpy']:.2f} "
        f"({'met' if med['hybridized'] <= 1.2 * med['numpy'] else 'NOT met'}), "
        f"imperative/hybridized = {med['imperative'] / med['hybridized']:.1f} "
        f"({'met' if med['imperative'] >= 3 * med['hybridized'] else 'NOT met'}).",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
