"""The transpiled model zoo: ``hybridize transpile`` MXNet's Gluon vision zoo, then run all 14 fixture
networks from the OUTPUT package on hybridize.runtime and compare with MXNet's recorded outputs.

1. ``hybridize transpile ../shared/corpus/mxnet/gluon/model_zoo/vision -o TMP`` (as
   tests/emit/test_zoo.py does), timed as a subprocess (interpreter start-up included).
2. For every zoo fixture in ``../shared/fixtures/mxnet/models/`` (all but seed_mlp/seed_hybridnet):
   ``vision.get_model(name)`` from the transpiled package; parameters from
   ``params_recipe.recipe(structural_name, shape)`` (shapes from the fixture's shapes.json/names.json)
   written to a ``.npz`` and loaded with ``load_parameters``; ``hybridize()``; the fixture's ``x``
   through the network; compared with its ``y`` (rtol 1e-3, atol 1e-4 * max|y|).
3. Timings: transpile (once), build (``get_model``), parameter load (``load_parameters`` of the
   .npz, writing it is not timed), first call (trace + compile + run), and the median of
   ``--repeat`` further forwards. A small conv net runs once before the first network (warm-up).

    python benchmarks/bench_transpile_zoo.py [--repeat 5] [--models resnet18_v1,alexnet] [--markdown]

With ``--markdown`` it writes benchmarks/RESULTS-transpile.md (or ``--output``). Exit code 1 if
any network does not match (or fails), 0 otherwise.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SHARED = Path(os.environ.get("HYBRIDIZE_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures" / "mxnet"
MODELS = FIXTURES / "models"
VISION = SHARED / "corpus" / "mxnet" / "gluon" / "model_zoo" / "vision"
SEEDS = ("seed_mlp", "seed_hybridnet")
RTOL, ATOL_SCALE = 1e-3, 1e-4


def zoo_models() -> list[str]:
    return sorted(p.name for p in MODELS.iterdir()
                  if (p / "meta.json").is_file() and p.name not in SEEDS)


def load_module(path: Path, name: str, package_dir: Path | None = None):
    kwargs = {"submodule_search_locations": [str(package_dir)]} if package_dir else {}
    spec = importlib.util.spec_from_file_location(name, path, **kwargs)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def transpile(outdir: str) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "hybridize.cli", "transpile", str(VISION), "-o", outdir]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"transpile failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return elapsed, proc.stderr.strip()


def warm_up() -> None:
    """One small hybridized conv net first, so that no network's first call pays the runtime's
    one-time costs (lazy imports, thread pool start)."""
    import hybridize.runtime as mx
    from hybridize.runtime.gluon import nn

    net = nn.HybridSequential()
    net.add(nn.Conv2D(8, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"), nn.MaxPool2D(2),
            nn.Conv2D(8, 1), nn.GlobalAvgPool2D(), nn.Dropout(0.5), nn.Flatten(), nn.Dense(4))
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((1, 3, 16, 16))).asnumpy()


def run_model(vision, recipe, name: str, repeat: int, workdir: str) -> dict:
    import hybridize.runtime as mx

    d = MODELS / name
    io = np.load(d / "io.npz")
    shapes = json.loads((d / "shapes.json").read_text())
    names = json.loads((d / "names.json").read_text())
    row: dict = {"model": name, "input": "x".join(str(s) for s in io["x"].shape)}

    start = time.perf_counter()
    net = vision.get_model(name)
    row["build"] = time.perf_counter() - start

    structural = sorted(net._collect_params_with_prefix())
    if set(structural) != set(names):
        raise AssertionError(f"parameter names differ from MXNet's: {sorted(set(structural) ^ set(names))[:5]}")
    params = {s: recipe(s, shapes[names[s]]) for s in structural}
    row["params_mb"] = sum(a.nbytes for a in params.values()) / 1e6
    path = os.path.join(workdir, f"{name}.npz")
    np.savez(path, **params)
    del params
    start = time.perf_counter()
    net.load_parameters(path)
    row["load"] = time.perf_counter() - start
    os.unlink(path)

    net.hybridize()
    x = mx.nd.array(io["x"])
    start = time.perf_counter()
    y = net(x).asnumpy()
    row["first"] = time.perf_counter() - start

    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        again = net(x).asnumpy()
        times.append(time.perf_counter() - start)
    row["forward"] = statistics.median(times)
    row["repeat_equal"] = bool(np.array_equal(again, y))

    ref = io["y"]
    scale = float(np.abs(ref).max())
    err = float(np.abs(y.astype(np.float64) - ref).max()) if y.shape == ref.shape else float("inf")
    row["max_err"] = err
    row["rel_err"] = err / scale if scale else err
    row["match"] = y.shape == ref.shape and bool(np.allclose(y, ref, rtol=RTOL, atol=ATOL_SCALE * scale))
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="forwards after the first call (median reported)")
    ap.add_argument("--models", default=None, help="comma-separated subset of the 14 zoo networks")
    ap.add_argument("--markdown", action="store_true", help="write the results as markdown")
    ap.add_argument("--output", default=str(HERE / "RESULTS-transpile.md"), help="with --markdown: where")
    args = ap.parse_args(argv)

    if not MODELS.is_dir() or not VISION.is_dir():
        raise SystemExit(f"fixtures or corpus not found under {SHARED} (set HYBRIDIZE_SHARED)")
    models = zoo_models()
    if len(models) != 14:
        print(f"warning: {len(models)} zoo fixtures, expected 14", file=sys.stderr)
    if args.models:
        wanted = args.models.split(",")
        unknown = sorted(set(wanted) - set(models))
        if unknown:
            raise SystemExit(f"unknown model(s): {', '.join(unknown)}; known: {', '.join(models)}")
        models = [m for m in models if m in wanted]
    try:
        load = "%.2f" % os.getloadavg()[0]
    except OSError:
        load = "unknown"

    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-transpile-zoo-") as tmp:
        t_transpile, summary = transpile(os.path.join(tmp, "out"))
        print(f"transpile: {t_transpile:.2f} s ({summary})", flush=True)
        vision = load_module(Path(tmp) / "out" / "vision" / "__init__.py", "transpiled_vision_bench",
                             Path(tmp) / "out" / "vision")
        recipe = load_module(FIXTURES / "params_recipe.py", "params_recipe_bench").recipe
        warm_up()
        for name in models:
            try:
                row = run_model(vision, recipe, name, args.repeat, tmp)
            except Exception as exc:  # report and go on: one broken network must not hide the others
                row = {"model": name, "match": False, "error": f"{type(exc).__name__}: {exc}"}
                traceback.print_exc()
            rows.append(row)
            print(_line(row), flush=True)

    try:
        load += " at the start, %.2f at the end" % os.getloadavg()[0]
    except OSError:
        pass
    text = _render(rows, t_transpile, summary, args, argv, load)
    print()
    print(text)
    if args.markdown:
        with open(args.output, "w") as handle:
            handle.write(text)
    return 0 if all(r["match"] for r in rows) else 1


def _line(r: dict) -> str:
    if "error" in r:
        return f"{r['model']:<17} FAILED {r['error']}"
    return (f"{r['model']:<17} match={'yes' if r['match'] else 'NO'} max_err={r['max_err']:.2e} "
            f"build={r['build']:.2f}s load={r['load']:.2f}s first={r['first']:.2f}s forward={r['forward'] * 1e3:.0f}ms")


def _render(rows, t_transpile, summary, args, argv, load) -> str:
    cmd = "python benchmarks/bench_transpile_zoo.py" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:]))
    try:
        import hybridize
        version = hybridize.__version__
    except Exception:  # pragma: no cover
        version = "?"
    matched = sum(1 for r in rows if r["match"])
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                              text=True).stdout.strip() or "?"
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "runtime", "transpile"], cwd=REPO,
                               capture_output=True, text=True).stdout.strip()
        tree = f"commit {head}" + (" with uncommitted changes in runtime/ or transpile/" if dirty else "")
    except OSError:
        tree = "commit unknown"
    lines = [
        "# Transpiled model zoo: MXNet Gluon vision zoo -> hybridize.runtime",
        "",
        f"Command: `{cmd}` (from the repository root)",
        "",
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"numpy {np.__version__}, hybridize {version} ({tree}), load average {load}.",
        "",
        f"Transpile: `hybridize transpile ../shared/corpus/mxnet/gluon/model_zoo/vision -o TMP` took "
        f"**{t_transpile:.2f} s** wall (a subprocess: interpreter start-up and imports included); "
        f"it reported: \"{summary}\"",
        "",
        "Each network: `vision.get_model(name)` from the transpiled package (build), parameters "
        "`params_recipe.recipe(structural_name, shape)` saved to .npz and read by `load_parameters` "
        "(load; writing the file is not timed), `hybridize()`, then the fixture's `x`: the first call "
        "traces the `@static_graph` hybrid_forwards, compiles and runs (a small conv net runs once "
        "before the first network, so one-time runtime start-up is not charged to it); forward is the median of "
        f"{args.repeat} further calls. Match: `allclose(y, y_mxnet, rtol={RTOL:g}, "
        f"atol={ATOL_SCALE:g} * max|y_mxnet|)`; max err is max|y - y_mxnet|, rel. err that over max|y_mxnet|.",
        "",
        "| model | input | params MB | match | max err | rel. err | build s | load s | first call s | forward ms (median) |",
        "| --- | --- | ---: | :---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['model']} | | | **no** (failed: {r['error']}) | | | | | | |")
            continue
        lines.append(
            f"| {r['model']} | {r['input']} | {r['params_mb']:.1f} | {'yes' if r['match'] else '**no**'} | "
            f"{r['max_err']:.2e} | {r['rel_err']:.2e} | {r['build']:.3f} | {r['load']:.3f} | "
            f"{r['first']:.2f} | {r['forward'] * 1e3:.0f} |")
    lines += [
        "",
        f"Result: {matched} of {len(rows)} networks match MXNet's outputs.",
    ]
    unstable = [r["model"] for r in rows if "error" not in r and not r["repeat_equal"]]
    if unstable:
        lines.append(f"Repeated forwards were not bit-identical to the first for: {', '.join(unstable)}.")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
