"""Training step time against real MXNet 1.9.1 (CPU), one run, systems alternating round by round.

A training step is what a Gluon script does per batch::

    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainer.step(batch)

with the net hybridized (MXNet: ``hybridize(static_alloc=True, static_shape=True)``), SGD with
momentum, the same input shapes on both sides. Each measurement is N steps back to back then
``nd.waitall()`` (the seed chapter's way of timing calls); the figure is the median over the rounds.
Before each system's round the cores are left idle for ``--settle`` seconds (0.3): MXNet's OpenMP
threads spin after its round and took a core from ours when our round followed at once (the
seed MLP measured 1.15-1.37x without the pause, 0.88-1.20x with it; MXNet's own figure unchanged).
MXNet runs in its own subprocess (``$HYBRIDIZE_MXNET_PYTHON``, default ``/tmp/mxnet-venv/bin/python``
when it exists), driven round by round from here.

Workloads: LeNet with BatchNorm at batch 64 (1x28x28), resnet18_v1 at batch 8 (3x224x224), the
seed chapter's MLP at batch 64 (512 features). Also measured, ours only unless stated:

- **first step**: a fresh hybridized net's first training step (trace, differentiate, compile,
  run), both systems, imports excluded on both sides (the compiler's modules are imported before
  the clock starts, as ``import mxnet`` loads all of MXNet);
- **peak memory**: ``tracemalloc``'s peak during one steady-state step (numpy's buffers are
  traced) plus the compiled training programs' arena (their planned buffers, allocated at the first
  step and reused, so not a steady step's allocation), against the planned peak (the activations
  saved for the backward, held until it returns, plus the arena) and the liveness bound of forward +
  backward (``TrainingProgram.memory``: the most bytes alive at once over the forward's steps then
  the backward's, each step counting its program's planned buffers alive at it, kernels' scratch
  included, and the saved activations alive at it, each from the forward step that makes it to the
  backward step that last reads it). Parameters, their gradient buffers and the optimizer's states
  exist before and after a step and are not counted; what the peak holds beyond the bound: the
  activations the backward has done with (held until it returns), the arena's size beyond the
  buffers alive at the bound's step, and what no plan covers: numpy's ufunc buffers (8192
  elements), the loss's arrays, kernels' own per-chunk temporaries.

    python benchmarks/bench_training.py [--quick] [--rounds 5] [--only lenet mlp] [--markdown]

``--quick``: 3 rounds of fewer steps (about a minute). ``--markdown`` writes
``benchmarks/RESULTS-training.md`` (or ``--output``) with the command line and the load average
(the machine may be shared: the 1-minute load is printed per row).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import textwrap
import time
import tracemalloc
from pathlib import Path

import numpy as np
from _peer import PeerWorker, mxnet_python

HERE = Path(__file__).resolve().parent

# name, batch, input shape (without batch), classes, steps per measurement (full, quick)
WORKLOADS = [("lenet", 64, (1, 28, 28), 10, (20, 5)),
             ("resnet18_v1", 8, (3, 224, 224), 1000, (3, 1)),
             ("mlp", 64, (512,), 2, (200, 40))]

# the nets, written once, run by both systems: ``nn`` is ours or MXNet's Gluon
NETS = textwrap.dedent('''
    def build(name, nn, vision):
        if name == "lenet":
            net = nn.HybridSequential()
            net.add(nn.Conv2D(6, kernel_size=5), nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(2),
                    nn.Conv2D(16, kernel_size=5), nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(2),
                    nn.Flatten(), nn.Dense(120, activation="relu"), nn.Dense(84, activation="relu"), nn.Dense(10))
        elif name == "mlp":   # the seed chapter's
            net = nn.HybridSequential()
            net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
        else:
            net = vision.get_model(name)
        return net
''')

MX_WORKER = NETS + textwrap.dedent('''
    import json, sys, time, warnings
    warnings.filterwarnings("ignore")
    import numpy as np
    import mxnet as mx
    from mxnet import autograd, gluon
    from mxnet.gluon import nn
    from mxnet.gluon.model_zoo import vision
    name, batch, classes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    shape = tuple(json.loads(sys.argv[4]))
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal((batch,) + shape).astype(np.float32))
    y = mx.nd.array(rng.integers(0, classes, batch).astype(np.float32))
    net = build(name, nn, vision)
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "momentum": 0.9})
    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(batch)
    t = time.perf_counter()
    step()
    mx.nd.waitall()
    first = time.perf_counter() - t
    for _ in range(2):
        step()
    mx.nd.waitall()
    print(json.dumps({"ready": mx.__version__, "first": first}), flush=True)
    for line in sys.stdin:
        n = int(json.loads(line)["steps"])
        t, c = time.perf_counter(), time.process_time()
        for _ in range(n):
            step()
        mx.nd.waitall()
        print(json.dumps({"seconds": (time.perf_counter() - t) / n, "cpu": (time.process_time() - c) / n}),
              flush=True)
''')


class Ours:
    """Our runtime training one workload in this process."""

    def __init__(self, name: str, batch: int, shape: tuple, classes: int):
        import hybridize.runtime as mx
        # the compiler's modules are imported on first use; imported here, before the first step's
        # clock starts, as ``import mxnet`` imports all of MXNet before the peer's (on a machine with
        # PYTHONDONTWRITEBYTECODE=1 their compilation from source was 0.2-0.4 s of a cold first step)
        import hybridize.runtime.graph.codegen  # noqa: F401
        import hybridize.runtime.graph.differentiate  # noqa: F401
        import hybridize.runtime.symbol_numpy  # noqa: F401
        from hybridize.runtime import autograd, gluon
        from hybridize.runtime.gluon import nn
        from hybridize.runtime.gluon.model_zoo import vision
        ns: dict = {}
        exec(NETS, ns)
        rng = np.random.default_rng(0)
        x = mx.nd.array(rng.standard_normal((batch,) + shape).astype(np.float32))
        y = mx.nd.array(rng.integers(0, classes, batch).astype(np.float32))
        t = time.perf_counter()
        net = ns["build"](name, nn, vision)
        net.initialize(mx.init.Xavier())
        net.hybridize(static_alloc=True, static_shape=True)
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "momentum": 0.9})

        def step() -> None:
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(batch)
        step()
        mx.nd.waitall()
        self.first = time.perf_counter() - t
        for _ in range(2):
            step()
        self.step, self.net, self.nd = step, net, mx.nd

    def __call__(self, steps: int) -> float:
        t, c = time.perf_counter(), time.process_time()
        for _ in range(steps):
            self.step()
        self.nd.waitall()
        self.last = {"cpu": (time.process_time() - c) / steps}
        return (time.perf_counter() - t) / steps

    def memory(self) -> dict:
        """tracemalloc's peak over one step (above what was allocated before it) plus the compiled
        training programs' arena, and their memory plan when there is one."""
        tracemalloc.start()
        before = tracemalloc.get_traced_memory()[0]
        self.step()
        peak = tracemalloc.get_traced_memory()[1] - before
        tracemalloc.stop()
        out = {"traced_peak_bytes": peak}
        plan = training_plan(self.net)
        if plan:
            out.update(plan)
            out["traced_peak_bytes"] = peak + plan.get("arena_bytes", 0)
        return out


def training_plan(net) -> dict | None:
    """The memory plan of the net's compiled training programs (forward + backward), if any:
    planned peak and the liveness bound, bytes."""
    cop = getattr(net, "_cached_op", None)
    trains = getattr(cop, "training_programs", None) if cop is not None else None
    if not trains:
        return None
    tp = next(iter(trains.values()))[0]
    stats = getattr(tp, "memory", None)
    return stats() if callable(stats) else None


def run(args: argparse.Namespace) -> tuple[list[dict], dict]:
    py = mxnet_python(default="/tmp/mxnet-venv/bin/python")
    env = {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
           "cpus": os.cpu_count(), "mxnet": None, "load_start": os.getloadavg()}
    rows = []
    for name, batch, shape, classes, (full, quick) in WORKLOADS:
        if args.only and name not in args.only:
            continue
        steps = quick if args.quick else full
        ours = Ours(name, batch, shape, classes)
        systems = {"ours": ours}
        if py:
            mxw = PeerWorker(py, MX_WORKER, [name, str(batch), str(classes), json.dumps(shape)], what=name, key="steps")
            mxw.first = mxw.ready["first"]
            env["mxnet"] = mxw.version
            systems["mxnet"] = mxw
        times: dict[str, list[float]] = {k: [] for k in systems}
        cpus: dict[str, list[float]] = {k: [] for k in systems}
        for _ in range(args.rounds):
            for k, fn in systems.items():
                time.sleep(args.settle)   # the other system's threads park (OpenMP spins after its work)
                times[k].append(fn(steps))
                cpus[k].append(fn.last["cpu"])
        mem = ours.memory()
        row = {"workload": f"{name} batch {batch}", "steps": steps,
               "median": {k: statistics.median(v) for k, v in times.items()},
               "cpu": {k: statistics.median(v) for k, v in cpus.items()},
               "first": {k: s.first for k, s in systems.items()}, "memory": mem, "load": os.getloadavg()[0]}
        rows.append(row)
        if py:
            mxw.close()
        print(format_row(row), flush=True)
    env["load_end"] = os.getloadavg()
    return rows, env


def ms(s: float | None) -> str:
    return "-" if s is None else f"{s * 1e3:.1f} ms"


def ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or b is None else f"{a / b:.2f}x"


def mib(b: float | None) -> str:
    return "-" if b is None else f"{b / 2**20:.1f} MiB"


HEADER = ["workload", "steps x rounds", "ours", "mxnet", "ours / mxnet", "CPU ours", "CPU mxnet", "CPU ours / mxnet",
          "first step ours", "first step mxnet", "peak (traced + arena)", "planned peak", "liveness bound", "load (1 min)"]


def format_row(row: dict) -> str:
    m, f, mem, c = row["median"], row["first"], row["memory"], row.get("cpu", {})
    return " | ".join([row["workload"], str(row["steps"]), ms(m.get("ours")), ms(m.get("mxnet")),
                       ratio(m.get("ours"), m.get("mxnet")), ms(c.get("ours")), ms(c.get("mxnet")),
                       ratio(c.get("ours"), c.get("mxnet")), ms(f.get("ours")), ms(f.get("mxnet")),
                       mib(mem.get("traced_peak_bytes")), mib(mem.get("peak_bytes")),
                       mib(mem.get("lower_bound_bytes")), f"{row['load']:.1f}"])


def markdown(rows: list[dict], env: dict, argv: list[str], rounds: int) -> str:
    lines = ["# Training step: ours vs MXNet 1.9.1 (CPU)", "",
             "Command: `python benchmarks/bench_training.py " + " ".join(argv) + "`", "",
             f"Python {env['python']}, numpy {env['numpy']}, MXNet {env['mxnet']}, {env['machine']}, "
             f"{env['cpus']} CPUs. Load average (1/5/15 min) at start "
             + "/".join(f"{v:.2f}" for v in env["load_start"]) + ", at end "
             + "/".join(f"{v:.2f}" for v in env["load_end"])
             + ": the machine is shared, so other jobs competed for the cores; both systems alternate "
               "round by round so a load change hits both.", "",
             f"Step time: median over {rounds} rounds of (N steps back to back, then waitall) / N; CPU: the "
             "process CPU time (all its threads) of the same N steps / N, less sensitive to the other jobs "
             "on the cores than the wall time. "
             "First step: a fresh hybridized net's first training step (trace, differentiate, compile, run). "
             "Peak (traced + arena): tracemalloc's peak during one steady-state step of ours plus the compiled "
             "training programs' arena (planned buffers allocated at the first step, reused); planned peak: the "
             "saved activations plus the arena; liveness bound: the most bytes alive at once over the forward's "
             "then the backward's steps (planned buffers, and each saved activation from the step that makes it "
             "to the backward step that last reads it). Parameters, gradient buffers and optimizer states are "
             "not counted; beyond the bound: activations held until the backward returns, the arena beyond the "
             "buffers alive at the bound's step, numpy's ufunc buffers, the loss's arrays, kernels' per-chunk "
             "temporaries.", "",
             "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + format_row(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 rounds of few steps")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--settle", type=float, default=0.3,
                    help="seconds of idle before each system's round (default 0.3): neither system's "
                         "spinning worker threads from its last round take cores from the other's")
    ap.add_argument("--only", nargs="*", help="workloads: lenet resnet18_v1 mlp")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--output", default=str(HERE / "RESULTS-training.md"))
    args = ap.parse_args(argv)
    if args.rounds is None:
        args.rounds = 3 if args.quick else 5
    print(" | ".join(HEADER), flush=True)
    rows, env = run(args)
    print(f"load average: start {env['load_start']}, end {env['load_end']}")
    if args.markdown:
        Path(args.output).write_text(markdown(rows, env, [a for a in argv if a != "--markdown"], args.rounds))
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
