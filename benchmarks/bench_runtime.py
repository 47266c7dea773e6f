"""Runtime benchmark: exported models run from symbol JSON + parameters (what ``hybridize run`` does).

Models: resnet18_v1 and mobilenet1.0 at batch 1 (1x3x224x224), and the seed chapter's MLP at
batch 1 (1x512). Graphs are the MXNet fixtures' ``model-symbol.json``; parameters are rebuilt
from ``params_recipe.py``. For each model and executor (compiled = ``codegen.compile_graph``,
interpret = the reference interpreter, onnxruntime = exported to ONNX and run by onnxruntime when it is
installed) it reports the one-off costs (JSON load, first call
including compilation) and the forward latency: each round times enough calls to last about
``--min-round`` seconds, the figure is the median (and min) over ``--rounds`` rounds of the time per
call. Outputs are checked against MXNet's (rtol 1e-3) before timing. Writes
``benchmarks/RESULTS-runtime.md``.

    python benchmarks/bench_runtime.py [--rounds 7] [--min-round 0.5] [--output benchmarks/RESULTS-runtime.md]
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("HYBRIDIZE_SHARED", REPO.parent / "shared"))
MODELS = SHARED / "fixtures" / "mxnet" / "models"
CASES = [("resnet18_v1", (1, 3, 224, 224)), ("mobilenet1.0", (1, 3, 224, 224)), ("seed_mlp", (1, 512))]
EXECUTORS = ["compiled", "interpret"]
try:   # the onnxruntime backend (the model exported to ONNX in memory), when installed
    import onnxruntime  # noqa: F401
    EXECUTORS.append("onnxruntime")
except ImportError:
    pass


def _recipe():
    spec = importlib.util.spec_from_file_location("params_recipe", SHARED / "fixtures" / "mxnet" / "params_recipe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod.recipe


def _params(name: str) -> dict:
    d = MODELS / name
    names = json.loads((d / "names.json").read_text())
    shapes = json.loads((d / "shapes.json").read_text())
    recipe = _recipe()
    return {exported: recipe(structural, tuple(shapes[exported])) for structural, exported in names.items()}


def _input(name: str, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The fixture's input cut to ``shape``'s batch, and MXNet's output for it."""
    with np.load(MODELS / name / "io.npz") as z:
        x, y = z["x"], z["y"]
    return np.ascontiguousarray(x[: shape[0]]), y[: shape[0]]


def _time_rounds(fn, rounds: int, min_round: float) -> tuple[float, float, int]:
    start = time.perf_counter()
    fn()
    one = time.perf_counter() - start
    calls = max(1, int(min_round / max(one, 1e-7)))
    per_call = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        per_call.append((time.perf_counter() - t) / calls)
    return statistics.median(per_call), min(per_call), calls


def _fmt(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--min-round", type=float, default=0.5, help="seconds per timing round (at least one call)")
    ap.add_argument("--models", default=",".join(n for n, _ in CASES))
    ap.add_argument("--executors", default=",".join(EXECUTORS))
    ap.add_argument("--output", default=str(HERE / "RESULTS-runtime.md"))
    args = ap.parse_args(argv)

    from hybridize.runtime.graph import mxnet_json
    from hybridize.runtime.graph.model import Model

    wanted = args.models.split(",")
    rows = []
    for name, shape in CASES:
        if name not in wanted:
            continue
        t = time.perf_counter()
        graph = mxnet_json.load(MODELS / name / "model-symbol.json")
        t_json = time.perf_counter() - t
        params = _params(name)
        x, y = _input(name, shape)
        for kind in args.executors.split(","):
            model = Model(graph, params, executor=kind)
            t = time.perf_counter()
            out = model.run({"data": x})[0]
            t_first = time.perf_counter() - t
            np.testing.assert_allclose(out, y, rtol=1e-3, atol=1e-4 * float(np.abs(y).max()))
            med, best, calls = _time_rounds(lambda: model.run({"data": x}), args.rounds, args.min_round)
            rows.append((name, shape, kind, t_json, t_first, med, best, calls))
            print(f"{name:14s} {str(shape):18s} {kind:11s} json {t_json * 1e3:7.1f} ms  first call "
                  f"{t_first * 1e3:8.1f} ms  median {_fmt(med)} ms/forward  (min {_fmt(best)}, {calls} calls x "
                  f"{args.rounds} rounds)", flush=True)

    cmd = "python benchmarks/bench_runtime.py" + ("" if argv is None and len(sys.argv) == 1 else
                                                  " " + " ".join(sys.argv[1:] if argv is None else argv))
    lines = [
        "# Runtime benchmark: exported models from symbol JSON + parameters",
        "",
        "Produced by:",
        "",
        "```",
        cmd,
        "```",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPU(s), {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, numpy {np.__version__}"
        + (f" ({_blas()})" if _blas() else "") + f"; load average at the end {_load()} (other work on the "
        "machine inflates the figures: compare medians taken under similar load).",
        "",
        "Graphs: `../shared/fixtures/mxnet/models/<model>/model-symbol.json` (MXNet 1.9.1's export); "
        "parameters rebuilt from `params_recipe.py`; input: the fixture's `x` (first item for batch 1); "
        "outputs checked against MXNet's `y` (rtol 1e-3) before timing. `compiled` is "
        "`graph/codegen.compile_graph` (what `hybridize run` uses), `interpret` the reference "
        "interpreter (`graph/interpret.py`). Latency = time per `Model.run` call: median (min) over "
        f"{args.rounds} rounds of at least {args.min_round} s each. `first call` includes shape checks and "
        "compilation.",
        "",
        "| model | input | executor | JSON load (ms) | first call (ms) | median ms/forward | min ms/forward | calls/round |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, shape, kind, t_json, t_first, med, best, calls in rows:
        lines.append(f"| {name} | {'x'.join(map(str, shape))} | {kind} | {t_json * 1e3:.1f} | {t_first * 1e3:.1f} | "
                     f"{_fmt(med)} | {_fmt(best)} | {calls} |")
    lines += ["", "No targets yet (a later issue sets them): this records where the runtime stands.", ""]
    Path(args.output).write_text("\n".join(lines))
    print("wrote", args.output)
    return 0


def _load() -> str:
    try:
        return "/".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        return "?"


def _blas() -> str:
    try:
        cfg = np.show_config(mode="dicts")  # numpy >= 1.25
        blas = cfg.get("Build Dependencies", {}).get("blas", {})
        return f"BLAS {blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception:
        return ""


if __name__ == "__main__":
    sys.exit(main())
