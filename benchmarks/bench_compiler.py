"""The graph compiler against our imperative mode, hand-written numpy and real MXNet 1.9.1.

One command, one process session, systems alternating round by round (so that load drifts on a
shared machine hit every system alike); each figure is the median over the rounds:

    python benchmarks/bench_compiler.py [--markdown] [--rounds 7] [--only resnet18_v1]

Workloads: the seed MLP at batch 1 and 64, resnet18_v1 at batch 1 and 8, mobilenetv2_1.0,
resnet50_v1, densenet121 at batch 1. Two protocols side by side (``--protocol both``): the loop
(N calls back to back, then ``waitall``: the seed chapter's way, where MXNet's OpenMP workers
stay awake and the peer is at its best; the goals are judged on it) and idle-then-call latency
(a ``--settle`` pause, then one call). Systems:

- ``ours imperative``: the MLP as Gluon blocks without ``hybridize()``; the vision models op by
  op through the reference interpreter (what imperative execution does: one registry kernel per
  op, no graph optimization);
- ``ours hybridized``: the MLP as Gluon blocks after ``hybridize()``; the vision models'
  symbol JSON compiled by ``compile_graph`` (trace + passes + codegen), parameters from
  ``params_recipe``;
- ``numpy``: the hand-written ``np.maximum(x @ W1.T + b1, 0)``... (MLP only);
- ``onnxruntime``: the same graph and parameters exported by ``hybridize.runtime.onnx`` and run by
  an onnxruntime ``InferenceSession`` (CPU, its default threads), when onnxruntime is installed;
  outputs checked against the compiler's before timing;
- ``mxnet imperative`` / ``mxnet hybridized``: real MXNet 1.9.1 (``hybridize(static_alloc=True,
  static_shape=True)``), when ``$HYBRIDIZE_MXNET_PYTHON`` names a Python that imports mxnet:
  one worker subprocess per system, driven round by round from here (a venv:
  ``python -m venv /tmp/mxnet-venv && /tmp/mxnet-venv/bin/pip install "numpy<1.24" mxnet==1.9.1``).

Also prints compile time (trace + passes + codegen) and the memory plan (peak activation bytes
against the liveness lower bound) of each compiled model. ``--kernels`` measures the
convolution algorithms (Winograd vs im2col matmul) on ResNet's 3x3 shapes instead.
``--compile-time`` times only compile_graph (with parameters) in fresh processes, ``--against DIR``
alternating with another tree. ``--markdown`` writes ``benchmarks/RESULTS-compiler.md`` (or ``--output``) with the command line.
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
from pathlib import Path

import numpy as np
from _peer import PeerWorker, mxnet_python

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("HYBRIDIZE_SHARED", REPO.parent / "shared"))
MODELS = SHARED / "fixtures" / "mxnet" / "models"

WORKLOADS = [("seed_mlp", 1), ("seed_mlp", 64), ("resnet18_v1", 1), ("resnet18_v1", 8),
             ("mobilenetv2_1.0", 1), ("resnet50_v1", 1), ("densenet121", 1)]
MLP_CALLS = 1000

# --------------------------------------------------------------------------------------------
# the MXNet worker (runs under $HYBRIDIZE_MXNET_PYTHON)
# --------------------------------------------------------------------------------------------
MX_WORKER = textwrap.dedent('''
    import json, sys, time, warnings
    warnings.filterwarnings("ignore")
    import numpy as np
    import mxnet as mx
    from mxnet.gluon import nn
    from mxnet.gluon.model_zoo import vision
    model, batch, hybrid = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "hybrid"
    if model == "seed_mlp":
        net = nn.HybridSequential()
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
        shape = (batch, 512)
    else:
        net = vision.get_model(model)
        shape = (batch, 3, 224, 224)
    net.initialize()
    x = mx.nd.array(np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    if hybrid:
        net.hybridize(static_alloc=True, static_shape=True)
    for _ in range(3):
        net(x).wait_to_read()
    print(json.dumps({"ready": mx.__version__}), flush=True)
    for line in sys.stdin:
        n = int(json.loads(line)["calls"])
        t = time.perf_counter()
        for _ in range(n):
            y = net(x)
        mx.nd.waitall()
        print(json.dumps({"seconds": (time.perf_counter() - t) / n}), flush=True)
''')


# --------------------------------------------------------------------------------------------
# our systems
# --------------------------------------------------------------------------------------------
def recipe_params(name: str) -> dict[str, np.ndarray]:
    import importlib.util
    spec = importlib.util.spec_from_file_location("params_recipe", SHARED / "fixtures" / "mxnet" / "params_recipe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    d = MODELS / name
    names = json.loads((d / "names.json").read_text())
    shapes = json.loads((d / "shapes.json").read_text())
    return {exported: mod.recipe(structural, tuple(shapes[exported])) for structural, exported in names.items()}


def timed(fn, calls: int) -> float:
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - t) / calls


def onnxruntime_run(graph, params: dict, feeds: dict):
    """A no-argument callable running ``graph`` in onnxruntime on ``feeds`` (None without onnxruntime)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return None
    from hybridize.runtime.onnx.export import graph_to_onnx
    from hybridize.runtime.onnx.session import session
    model = graph_to_onnx(graph, params, {k: v.shape for k, v in feeds.items()},
                          {k: v.dtype for k, v in feeds.items()})
    sess = session(model)
    return lambda: sess.run(None, feeds)


def mlp_systems(batch: int) -> tuple[dict, dict]:
    from hybridize.runtime import nd
    from hybridize.runtime.gluon import nn

    def get_net():
        net = nn.HybridSequential()
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"), nn.Dense(2))
        net.initialize()
        return net
    x_np = np.random.default_rng(0).standard_normal((batch, 512)).astype(np.float32)
    x = nd.array(x_np)
    imp = get_net()
    imp(x)
    hyb = get_net()
    hyb(x)
    for src, dst in zip(imp.collect_params().values(), hyb.collect_params().values()):
        dst.set_data(src.data())
    hyb.hybridize()
    hyb(x)
    ps = [p.data().asnumpy() for p in imp.collect_params().values()]
    W1, b1, W2, b2, W3, b3 = ps

    def numpy_mlp():
        h = np.maximum(x_np @ W1.T + b1, 0)
        h = np.maximum(h @ W2.T + b2, 0)
        return h @ W3.T + b3
    np.testing.assert_allclose(hyb(x).asnumpy(), numpy_mlp(), rtol=1e-4, atol=1e-5)

    def chapter_loop(net):
        """The seed chapter's benchmark: ``calls`` calls, then one wait for all of them (as MXNet's worker)."""
        def run(calls: int) -> float:
            t = time.perf_counter()
            for _ in range(calls):
                net(x)
            nd.waitall()
            return (time.perf_counter() - t) / calls
        return run
    systems = {"ours imperative": chapter_loop(imp), "ours hybridized": chapter_loop(hyb),
               "numpy": lambda calls: timed(numpy_mlp, calls)}
    import tempfile
    from hybridize.runtime.graph import mxnet_json
    from hybridize.runtime.graph import params as P
    with tempfile.TemporaryDirectory() as tmp:
        hyb.export(os.path.join(tmp, "mlp"))
        graph = mxnet_json.load(os.path.join(tmp, "mlp-symbol.json"))
        values = P.strip_prefixes(P.load(os.path.join(tmp, "mlp-0000.params")))
    data = next(n.name for n in graph.variables() if n.name not in values)
    ort_run = onnxruntime_run(graph, values, {data: x_np})
    if ort_run is not None:
        np.testing.assert_allclose(ort_run()[0], numpy_mlp(), rtol=1e-4, atol=1e-5)
        systems["onnxruntime"] = lambda calls: timed(ort_run, calls)
    return systems, {}


def vision_systems(name: str, batch: int, with_imperative: bool) -> tuple[dict, dict]:
    from hybridize.runtime.graph import mxnet_json
    from hybridize.runtime.graph.codegen import compile_graph
    from hybridize.runtime.graph.interpret import evaluate
    params = recipe_params(name)
    x = np.random.default_rng(0).standard_normal((batch, 3, 224, 224)).astype(np.float32)
    t0 = time.perf_counter()
    g = mxnet_json.load(MODELS / name / "model-symbol.json")
    inputs = [n.name for n in g.variables() if n.name not in params]
    t1 = time.perf_counter()
    prog = compile_graph(g, input_names=inputs, shapes={inputs[0]: x.shape}, params=params)
    t2 = time.perf_counter()
    prog(x)
    info = {"load_ms": (t1 - t0) * 1e3, "compile_ms": (t2 - t1) * 1e3, "memory": prog.stats.get("memory", {}),
            "layout": prog.stats.get("layout", {})}
    systems = {"ours hybridized": lambda calls: timed(lambda: prog(x), calls)}
    ort_run = onnxruntime_run(g, params, {inputs[0]: x})
    if ort_run is not None:
        y = prog(x)[0]
        np.testing.assert_allclose(ort_run()[0], y, rtol=1e-3, atol=1e-4 * float(np.abs(y).max()))
        systems["onnxruntime"] = lambda calls: timed(ort_run, calls)
    if with_imperative:
        values = dict(params)
        values[inputs[0]] = x
        ref = evaluate(g, values)[0]
        np.testing.assert_allclose(prog(x)[0], ref, rtol=1e-3, atol=1e-4 * float(np.abs(ref).max()))
        systems["ours imperative"] = lambda calls: timed(lambda: evaluate(g, values), calls)
    return systems, info


# --------------------------------------------------------------------------------------------
# the run
# --------------------------------------------------------------------------------------------
COLUMNS = ["ours imperative", "ours hybridized", "numpy", "onnxruntime", "mxnet imperative", "mxnet hybridized"]


def fmt_time(seconds: float | None, unit: str) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e6:.1f} µs" if unit == "us" else f"{seconds * 1e3:.1f} ms"


def run(args: argparse.Namespace) -> tuple[list[dict], dict]:
    py = mxnet_python()
    rows = []
    env = {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine(),
           "cpus": os.cpu_count(), "mxnet": None, "load_start": os.getloadavg()}
    for name, batch in WORKLOADS:
        if args.only and name not in args.only:
            continue
        mlp = name == "seed_mlp"
        if mlp:
            systems, info = mlp_systems(batch)
        else:
            systems, info = vision_systems(name, batch, with_imperative=not args.no_imperative)
        workers = []
        if py:
            modes = ["imperative", "hybrid"] if mlp else ["hybrid"]
            for mode in modes:
                w = PeerWorker(py, MX_WORKER, [name, str(batch), mode], what=name, key="calls")
                env["mxnet"] = w.version
                workers.append(w)
                systems["mxnet imperative" if mode == "imperative" else "mxnet hybridized"] = w
        calls = {}
        for k, f in systems.items():   # warm up, and size each loop sample to about --sample seconds
            f(1)
            calls[k] = MLP_CALLS if mlp else max(1, min(50, round(args.sample / max(f(1), 1e-9))))
        protocols = ["loop", "latency"] if args.protocol == "both" else [args.protocol]
        samples = {(p, k): [] for p in protocols for k in systems}
        order = list(systems)
        rounds = args.rounds if (mlp or batch == 1) else max(3, args.rounds - 2)
        for r in range(rounds):
            seq = order if r % 2 == 0 else order[::-1]
            for k in seq:
                if k == "ours imperative" and not mlp and r >= 3:
                    continue      # the interpreter is slow; 3 samples are enough for its column
                if "loop" in protocols:
                    # the seed chapter's way: calls back to back, then one wait for all of them;
                    # MXNet's OpenMP workers stay awake from call to call (the peer at its best).
                    # The pause lets the previous system's spinning threads sleep (they would steal
                    # this system's cores); the untimed calls wake this system's own threads.
                    time.sleep(args.settle)
                    systems[k](min(calls[k], 3))
                    samples["loop", k].append(systems[k](calls[k]))
                if "latency" in protocols:
                    # idle, then one call: every system pays its wake-up (MXNet's spinning
                    # OpenMP workers have gone to sleep during the pause)
                    time.sleep(args.settle)
                    samples["latency", k].append(systems[k](1))
        for w in workers:
            w.close()
        for p in protocols:
            med = {k: statistics.median(samples[p, k]) for k in systems if samples[p, k]}
            row = {"workload": f"{name} batch {batch}", "protocol": p, "unit": "us" if mlp else "ms",
                   "median": med, "info": info, "key": (name, batch), "load": os.getloadavg()[0]}
            rows.append(row)
            print(format_row(row), flush=True)
    env["load_end"] = os.getloadavg()
    return rows, env


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None:
        return "-"
    return f"{a / b:.2f}x"


def format_row(row: dict) -> str:
    m = row["median"]
    cells = [fmt_time(m.get(c), row["unit"]) for c in COLUMNS]
    h = m.get("ours hybridized")
    return " | ".join([row["workload"], row["protocol"]] + cells + [ratio(h, m.get("numpy")), ratio(h, m.get("mxnet hybridized")),
                                                    ratio(m.get("ours imperative"), m.get("mxnet imperative")),
                                                    ratio(h, m.get("onnxruntime")), f"{row.get('load', 0):.1f}"])


HEADER = ["workload", "protocol"] + COLUMNS + ["hybridized / numpy", "hybridized / mxnet hybridized",
                                   "imperative / mxnet imperative", "hybridized / onnxruntime", "load (1 min)"]

# the steady-state goals: (workload, batch) -> (the system ours is compared with, the ratio to stay under)
GOALS = {("resnet18_v1", 1): ("mxnet hybridized", 0.6), ("resnet18_v1", 8): ("mxnet hybridized", 0.5),
         ("mobilenetv2_1.0", 1): ("mxnet hybridized", 0.5), ("densenet121", 1): ("mxnet hybridized", 0.7),
         ("resnet50_v1", 1): ("mxnet hybridized", 0.7), ("seed_mlp", 1): ("numpy", 1.0)}


def goal_lines(rows: list[dict]) -> list[str]:
    """The goals table, on the loop protocol (the peer at its best): each goal's measured ratio, met or
    by how much not; onnxruntime (stretch)."""
    out = ["## Goals (loop protocol: the peer at its best)", "",
           "| workload | against | goal | measured | met | ours / onnxruntime |", "|---|---|---|---|---|---|"]
    for row in rows:
        goal = GOALS.get(row.get("key"))
        if row["protocol"] != "loop":
            continue
        m = row["median"]
        h = m.get("ours hybridized")
        ort = ratio(h, m.get("onnxruntime"))
        if goal is None or h is None or m.get(goal[0]) is None:
            continue
        r = h / m[goal[0]]
        verdict = "yes" if r <= goal[1] else f"no ({r / goal[1]:.2f}x the goal)"
        out.append(f"| {row['workload']} | {goal[0]} | <= {goal[1]:.2f}x | {r:.2f}x | {verdict} | {ort} |")
    return out + [""]


def markdown(rows: list[dict], env: dict, argv: list[str]) -> str:
    lines = ["# Graph compiler benchmark", "",
             "Command: `" + " ".join(["python", "benchmarks/bench_compiler.py"] + argv) + "`"
             + (f" with `HYBRIDIZE_MXNET_PYTHON={os.environ['HYBRIDIZE_MXNET_PYTHON']}`"
                if os.environ.get("HYBRIDIZE_MXNET_PYTHON") else ""), "",
             f"Machine: {env['cpus']} CPUs ({env['machine']}), Python {env['python']}, numpy {env['numpy']}"
             + (f", MXNet {env['mxnet']}" if env.get("mxnet") else ", MXNet not available") + ". "
             + ("Load average (1/5/15 min) {} at the start, {} at the end (the machine may be "
                "shared: the last column is the 1-minute load when each row finished; a load near the "
                "CPU count means other jobs competed for the cores). ".format(*("/".join(f"{v:.1f}" for v in env[k]) for k in ("load_start", "load_end")))
                if "load_end" in env else "")
             + "Medians over rounds in one process session, systems alternating round by round. "
             "Two protocols, measured in the same rounds: **loop** (the seed chapter's way: N calls "
             "back to back, then `waitall`; N = 1000 for the MLP, about `--sample` seconds of calls "
             "for vision models, after an idle pause (the other system's threads sleep) and three "
             "untimed calls (this system's threads wake); MXNet's OpenMP workers stay awake between "
             "calls, so the peer is at its best) and **latency** (an idle pause of `--settle` seconds, then one call: every system "
             "pays its wake-up). "
             "A ratio below 1.00x means ours is faster.", "",
             "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        lines.append("| " + format_row(row) + " |")
    lines += [""] + goal_lines(rows)
    lines += ["## Compile time and memory plan", "",
              "| model | compile (passes + codegen) | peak activation memory | liveness lower bound | peak / bound | without reuse |",
              "|---|---|---|---|---|---|"]
    for row in rows:
        info = row["info"]
        if "compile_ms" not in info or row["protocol"] != rows[0]["protocol"]:
            continue
        mem = info["memory"]
        lines.append(f"| {row['workload']} | {info['compile_ms']:.0f} ms | {mem.get('peak_bytes', 0) / 2**20:.1f} MiB | "
                     f"{mem.get('lower_bound_bytes', 0) / 2**20:.1f} MiB | "
                     f"{mem.get('peak_bytes', 0) / max(mem.get('lower_bound_bytes', 1), 1):.2f}x | "
                     f"{mem.get('unshared_bytes', 0) / 2**20:.1f} MiB |")
    return "\n".join(lines) + "\n"


def kernels_bench(rounds: int) -> None:
    """Winograd F(2x2,3x3) against im2col + one matmul, on the 3x3 stride-1 shapes of ResNets."""
    from types import SimpleNamespace
    from hybridize.runtime.graph.kernels.conv import build_conv, conv_weight
    print("N H C K | gemm ms | wino ms | wino/gemm")
    for N, H, C in [(1, 56, 64), (1, 28, 128), (1, 14, 256), (1, 7, 512), (8, 56, 64), (8, 28, 128), (8, 14, 256),
                    (8, 7, 512), (1, 56, 128), (1, 28, 32), (1, 14, 48)]:
        K = C
        x = np.random.default_rng(0).standard_normal((N, H, H, C)).astype(np.float32)
        w = np.random.default_rng(1).standard_normal((K, C, 3, 3)).astype(np.float32)
        res = {}
        outs = {}
        for algo in ("gemm", "wino"):
            a = SimpleNamespace(kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), num_filter=K, groups=1,
                                algo=algo, act=(), has_bias=False, has_res=False)
            fn, scratch = build_conv(a, x.shape, np.float32)
            wp = conv_weight(w, algo, 1)
            out = np.empty((N, H, H, K), np.float32)
            bufs = [np.empty(s, d) for s, d in scratch]
            fn(x, wp, out, *bufs)     # bias-free: no optional operands
            outs[algo] = out.copy()
            res[algo] = (fn, wp, out, bufs)
        np.testing.assert_allclose(outs["wino"], outs["gemm"], rtol=1e-3, atol=1e-3 * float(np.abs(outs["gemm"]).max()))
        ts = {"gemm": [], "wino": []}
        for r in range(rounds):
            for algo in ("gemm", "wino"):
                fn, wp, out, bufs = res[algo]
                ts[algo].append(timed(lambda: fn(x, wp, out, *bufs), 3))
        g, wi = statistics.median(ts["gemm"]), statistics.median(ts["wino"])
        print(f"{N} {H} {C} {K} | {g * 1e3:.2f} | {wi * 1e3:.2f} | {wi / g:.2f}", flush=True)


# --------------------------------------------------------------------------------------------
# compile time in fresh processes (--compile-time)
# --------------------------------------------------------------------------------------------
COMPILE_CHILD = textwrap.dedent('''
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    import bench_compiler as B
    import numpy as np
    import hybridize
    from hybridize.runtime.graph import mxnet_json
    from hybridize.runtime.graph.codegen import compile_graph
    name, batch = sys.argv[2], int(sys.argv[3])
    params = B.recipe_params(name)
    g = mxnet_json.load(B.MODELS / name / "model-symbol.json")
    inputs = [n.name for n in g.variables() if n.name not in params]
    out = {"tree": hybridize.__file__}
    for k in ("first", "second"):
        t, c = time.perf_counter(), time.process_time()
        compile_graph(g, input_names=inputs, shapes={inputs[0]: (batch, 3, 224, 224)}, params=params)
        out[k] = (time.perf_counter() - t, time.process_time() - c)
    print(json.dumps(out))
''')


def compile_time(args: argparse.Namespace) -> None:
    """Compile time (compile_graph with parameters: passes, codegen, bind_params) of each model in
    fresh processes, the first compile of the process (imports done, lazy ones included) and a second
    one; with ``--against DIR`` (a folder holding another tree as ``hybridize``, e.g. an older commit)
    the two trees alternate process by process, so load drifts hit both alike."""
    import subprocess
    trees = [("this tree", os.environ.get("PYTHONPATH", ""))]
    if args.against:
        trees.append((args.against, args.against))
    models = args.only or ["resnet50_v1"]
    print(f"compile time, median (min) of {args.rounds} fresh processes per row; load {os.getloadavg()}")
    for name in models:
        res: dict[str, list] = {label: [] for label, _ in trees}
        for r in range(args.rounds):
            for label, path in (trees if r % 2 == 0 else trees[::-1]):
                env = dict(os.environ, PYTHONPATH=path, HYBRIDIZE_TUNE_BACKGROUND="0")
                done = subprocess.run([sys.executable, "-c", COMPILE_CHILD, str(HERE), name, "1"], env=env,
                                      capture_output=True, text=True, check=True)
                res[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
        for label, runs in res.items():
            cells = []
            for k in ("first", "second"):
                wall = [x[k][0] * 1e3 for x in runs]
                cpu = [x[k][1] * 1e3 for x in runs]
                cells.append(f"{k}: wall {statistics.median(wall):.0f} ms ({min(wall):.0f}), "
                             f"cpu {statistics.median(cpu):.0f} ms ({min(cpu):.0f})")
            print(f"{name} b1 [{label}] " + "; ".join(cells), flush=True)
    print(f"load at the end {os.getloadavg()}")


def set_blas_threads(n: int) -> None:
    from hybridize.runtime.graph.kernels import blas_threads
    blas_threads(n)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", nargs="*", help="model names to run (default: all workloads)")
    ap.add_argument("--no-imperative", action="store_true", help="skip the (slow) interpreter column of vision models")
    ap.add_argument("--markdown", action="store_true", help="write benchmarks/RESULTS-compiler.md")
    ap.add_argument("--output", default=str(HERE / "RESULTS-compiler.md"),
                    help="the file --markdown writes (default benchmarks/RESULTS-compiler.md)")
    ap.add_argument("--kernels", action="store_true", help="Winograd vs im2col convolution timings")
    ap.add_argument("--sample", type=float, default=0.3,
                    help="seconds per sample of a vision model (calls are repeated up to this)")
    ap.add_argument("--settle", type=float, default=0.3,
                    help="latency protocol: idle seconds before the one timed call")
    ap.add_argument("--protocol", choices=["both", "loop", "latency"], default="both",
                    help="loop: N calls back to back then waitall (the peer at its best); "
                         "latency: idle pause then one call; both (default): side by side in one run")
    ap.add_argument("--blas-threads", type=int, default=None,
                    help="set numpy's OpenBLAS thread count in this process (MXNet workers keep theirs)")
    ap.add_argument("--compile-time", action="store_true",
                    help="compile time of --only models (default resnet50_v1) in --rounds fresh processes")
    ap.add_argument("--against", default=None,
                    help="--compile-time: a folder holding another tree as 'hybridize' (its PYTHONPATH), "
                         "timed alternately with this one")
    args = ap.parse_args(argv)
    if args.compile_time:
        compile_time(args)
        return 0
    if args.blas_threads:
        set_blas_threads(args.blas_threads)
    if args.kernels:
        kernels_bench(args.rounds)
        return 0
    print(" | ".join(HEADER))
    rows, env = run(args)
    if args.markdown:
        text = markdown(rows, env, argv)
        old = Path(args.output).read_text() if Path(args.output).exists() else ""
        begin, end = "<!-- first-call:begin -->", "<!-- first-call:end -->"
        if begin in old and end in old:       # bench_first_call.py's section is kept
            text = text.rstrip("\n") + "\n\n" + old[old.index(begin):old.index(end) + len(end)] + "\n"
        Path(args.output).write_text(text)
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
