"""First-call latency of a compiled model in a fresh process, cold vs warm tuning cache.

    python benchmarks/bench_first_call.py [--rounds 5] [--model resnet18_v1] [--batch 1 8] [--no-bytecode] [--markdown]

What a user waits for the first time they run a model: ``hybridize run model-symbol.json --params
model-0000.params --input x.npy`` in a new process, i.e. load (symbol JSON + parameter file) + trace +
passes + codegen (incl. convolution autotuning) + the first forward. Each sample is one fresh Python
process; two figures per sample:

- ``first call``: load + compile + first forward, timed inside the child around ``Model.load`` and
  ``Model.run`` (the equivalent of ``hybridize run``'s work, without interpreter start-up and imports);
- ``hybridize run``: the wall time of the real command (``python -m hybridize.cli run ...``) in a
  fresh process, start-up and imports included.

``cold``: an empty tuning cache (``HYBRIDIZE_CACHE_DIR`` = a new empty directory per sample), so every
3x3 convolution is timed; ``warm``: a cache directory filled by one earlier run of the same model and
batch, so nothing is timed. Cold and warm samples alternate round by round (load drifts on a shared
machine hit both alike); figures are medians (min in brackets). The last column counts the 3x3
convolution shapes whose algorithm was chosen by measurement and how many kernel timings that took
(convolutions above ``conv.tune.TUNE_MAX_FLOPS``, e.g. every 3x3 layer of resnet18 at batch 8, are never
timed: the fixed rule decides, so there is nothing to cache).

Imports: an installed package has its modules byte-compiled (pip writes ``__pycache__``), but this
machine's environment sets ``PYTHONDONTWRITEBYTECODE=1``, so every fresh process would compile the
whole of numpy's and hybridize's Python source again (~0.2 s of the 0.3 s of imports). The children
therefore run with bytecode caching on, into a private ``PYTHONPYCACHEPREFIX`` filled by a warm-up
process, as an installed package runs; ``--no-bytecode`` measures the source-compiling processes.
The ``imports`` column is ``import numpy`` + ``import hybridize.runtime.graph.model`` in the child.

The model's parameters are the fixtures' deterministic recipe (``params_recipe.py``), written once to a
temporary ``.params`` file. ``--markdown`` replaces the first-call section of
``benchmarks/RESULTS-compiler.md`` (between its markers; ``bench_compiler.py --markdown`` keeps it).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_compiler import MODELS, recipe_params  # noqa: E402

BEGIN, END = "<!-- first-call:begin -->", "<!-- first-call:end -->"

CHILD = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from hybridize.runtime.graph.model import Model
t1 = time.perf_counter()
model = Model.load(sys.argv[1], sys.argv[2])
x = np.load(sys.argv[3])
t2 = time.perf_counter()
from hybridize.runtime.graph.kernels.conv import tune
timed = []
_time_conv = tune.time_conv
tune.time_conv = lambda *a, **k: timed.append(1) or _time_conv(*a, **k)
y = model.run({model.input_names[0]: x})
t3 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "compile_forward": t3 - t2, "first_call": t3 - t1,
                  "tuned": len(tune._TUNED), "timed": len(timed), "out": float(np.abs(y[0]).sum())}))
"""


def prepare(model: str, batches: list[int], folder: Path) -> dict:
    """Symbol, parameter file and one input per batch size in ``folder``."""
    from hybridize.runtime.graph import params as P
    sym = folder / "model-symbol.json"
    sym.write_bytes((MODELS / model / "model-symbol.json").read_bytes())
    P.save(folder / "model-0000.params", {f"arg:{k}": v for k, v in recipe_params(model).items()})
    inputs = {}
    for b in batches:
        inputs[b] = folder / f"x{b}.npy"
        np.save(inputs[b], np.random.default_rng(b).standard_normal((b, 3, 224, 224)).astype(np.float32))
    return {"symbol": sym, "params": folder / "model-0000.params", "inputs": inputs}


_BYTECODE: dict = {}      # environment overrides for the children (bytecode caching), set by run()


def _env(cache: str) -> dict:
    env = {**os.environ, "HYBRIDIZE_CACHE_DIR": cache, **_BYTECODE}
    if _BYTECODE:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def child(files: dict, batch: int, cache: str) -> dict:
    env = _env(cache)
    out = subprocess.run([sys.executable, "-c", CHILD, str(files["symbol"]), str(files["params"]),
                          str(files["inputs"][batch])], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def cli_wall(files: dict, batch: int, cache: str) -> float:
    env = _env(cache)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hybridize.cli", "run", str(files["symbol"]), "--params",
                    str(files["params"]), "--input", str(files["inputs"][batch])],
                   env=env, capture_output=True, check=True)
    return time.perf_counter() - t


def fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} s ({min(xs):.2f})"


def run(args: argparse.Namespace) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="hy-first-call-") as tmp:
        tmp = Path(tmp)
        files = prepare(args.model, sorted(set(args.batch) | {1}), tmp)
        _BYTECODE.clear()
        if args.bytecode:
            _BYTECODE["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
            cli_wall(files, args.batch[0], str(tmp / "warmup"))     # byte-compiles what the children import
        fresh = iter(range(10**6))

        def empty() -> str:
            d = tmp / f"cold{next(fresh)}"
            d.mkdir()
            return str(d)

        scenarios: dict[str, tuple[int, callable]] = {}
        for b in args.batch:
            warm = empty()
            child(files, b, warm)                                # fill it once
            scenarios[f"batch {b}, cold cache"] = (b, empty)
            scenarios[f"batch {b}, warm cache"] = (b, lambda warm=warm: warm)
        samples = {k: {"first": [], "cli": [], "imports": [], "tuned": None, "timed": None} for k in scenarios}
        for r in range(args.rounds):
            for name, (b, cache) in scenarios.items():
                res = child(files, b, cache())
                samples[name]["first"].append(res["first_call"])
                samples[name]["imports"].append(res["import"])
                samples[name]["tuned"], samples[name]["timed"] = res["tuned"], res["timed"]
                samples[name]["cli"].append(cli_wall(files, b, cache()))
            print(f"round {r + 1}/{args.rounds} done, load {os.getloadavg()[0]:.2f}", file=sys.stderr)
        for name, s in samples.items():
            rows.append({"scenario": name, "first": fmt(s["first"]), "cli": fmt(s["cli"]), "imports": fmt(s["imports"]),
                         "tuned": s["tuned"], "timed": s["timed"]})
            print(f"{name:28s} first call {fmt(s['first'])}   imports {fmt(s['imports'])}   hybridize run {fmt(s['cli'])}   "
                  f"convolutions tuned {s['tuned']}, of which timed {s['timed']}")
    return rows


def section(rows: list[dict], args: argparse.Namespace, argv: list[str], load_before: tuple, load_after: tuple) -> str:
    lines = [BEGIN, f"## First call: {args.model} in a fresh process, cold vs warm tuning cache", "",
             "```bash", "python benchmarks/bench_first_call.py " + " ".join(argv), "```", "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.machine()}, {os.cpu_count()} CPUs, "
             f"numpy {np.__version__}; load average (1/5/15 min) before {'/'.join(f'{x:.2f}' for x in load_before)}, "
             f"after {'/'.join(f'{x:.2f}' for x in load_after)} (a shared machine: a load near the CPU count means other jobs competed for the cores). "
             f"Median of {args.rounds} fresh processes per row (min in brackets), rows alternating.", "",
             "`first call` = load (symbol + params) + trace + passes + codegen (+ autotuning) + first forward, "
             "timed inside the process; `hybridize run` = wall time of the whole command, interpreter start-up "
             "and imports included; `imports` = `import numpy` + `import hybridize.runtime.graph.model` in the process. "
             + ("Modules byte-compiled beforehand (private `PYTHONPYCACHEPREFIX`, as an installed package; this "
                "environment sets `PYTHONDONTWRITEBYTECODE=1`). " if args.bytecode else
                "Every process compiles the Python source of numpy and hybridize (`PYTHONDONTWRITEBYTECODE=1`). ")
             + "Cold = empty `HYBRIDIZE_CACHE_DIR`; warm = filled by one earlier run.", "",
             "| scenario | first call | imports | `hybridize run` (whole process) | 3x3 conv shapes tuned / kernel timings run |",
             "|---|---|---|---|---|"]
    lines += [f"| {r['scenario']} | {r['first']} | {r['imports']} | {r['cli']} | {r['tuned']} / {r['timed']} |"
              for r in rows]
    untimed = [r["scenario"].split(",")[0] for r in rows if "cold" in r["scenario"] and not r["timed"]]
    if untimed:
        lines += ["", f"{', '.join(untimed)}: no convolution is timed (all above `conv.tune.TUNE_MAX_FLOPS`, the fixed "
                  "rule decides), so the cache has nothing to save there: cold and warm differ only by noise."]
    lines += ["", END, ""]
    return "\n".join(lines)


def write_section(path: Path, text: str) -> None:
    old = path.read_text() if path.exists() else ""
    if BEGIN in old and END in old:
        new = old[:old.index(BEGIN)] + text.rstrip("\n") + old[old.index(END) + len(END):]
    else:
        new = old.rstrip("\n") + "\n\n" + text
    path.write_text(new)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--model", default="resnet18_v1")
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--markdown", action="store_true", help="update the section in benchmarks/RESULTS-compiler.md")
    ap.add_argument("--output", default=str(HERE / "RESULTS-compiler.md"))
    ap.add_argument("--no-bytecode", dest="bytecode", action="store_false",
                    help="children compile the Python source on every start (PYTHONDONTWRITEBYTECODE as set here)")
    args = ap.parse_args(argv)
    load_before = os.getloadavg()
    rows = run(args)
    load_after = os.getloadavg()
    if args.markdown:
        write_section(Path(args.output), section(rows, args, argv, load_before, load_after))
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
