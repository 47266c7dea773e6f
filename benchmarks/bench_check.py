"""Benchmark of ``hybridize-check``: the shared Gluon corpus cold, and a generated ~400-file tree.

Usage (from the repository root)::

    python benchmarks/bench_check.py                 # both benchmarks, 3 runs each, jobs = CPUs
    python benchmarks/bench_check.py --jobs 2 --runs 5 --keep /tmp/tree
    python benchmarks/bench_check.py --long-methods --runs 3   # cost against the size of one method

Every run is a fresh ``hybridize-check`` process (interpreter start-up and imports included, as in
CI or a pre-commit hook), timed from outside. The generated tree mixes four renamed copies of the
corpus (real Gluon code: 19 of 48 files define ``hybrid_forward``) with small synthetic model
files (half with ``hybrid_forward`` and a few planted violations, half plain utilities), about
400 files and 90k lines. Reports files/s and lines/s; see ``benchmarks/RESULTS-check.md``.

Bytecode: an installed package has its modules byte-compiled (pip writes ``__pycache__``), but an
environment with ``PYTHONDONTWRITEBYTECODE=1`` (this machine's) makes every fresh process compile
hybridize's source again (~0.2-0.3 s). By default the runs therefore use a private
``PYTHONPYCACHEPREFIX`` filled by a warm-up run, as an installed package runs; ``--no-bytecode``
measures source-compiling processes. Either way the checked trees themselves are parsed cold.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"

_MODEL = '''"""Synthetic model file {n}."""
from mxnet import nd
from mxnet.gluon import nn


def _helper_{n}(F, x, scale):
    y = F.relu(x) * scale
    return y


class Block{n}(nn.HybridBlock):
    """A residual block (synthetic)."""

    def __init__(self, units={units}, **kwargs):
        super(Block{n}, self).__init__(**kwargs)
        with self.name_scope():
            self.fc1 = nn.Dense(units)
            self.fc2 = nn.Dense(units)
            self.bn = nn.BatchNorm()
        self.use_shortcut = {shortcut}
        self.scale = {scale}

    def hybrid_forward(self, F, x):
        h = self.fc1(x)
        h = self.bn(h)
        h = _helper_{n}(F, h, self.scale)
        if self.use_shortcut:
            h = h + x
        out = self.fc2(h)
{violation}
        return F.relu(out)


class Head{n}(nn.HybridBlock):
    def __init__(self, classes=10, **kwargs):
        super(Head{n}, self).__init__(**kwargs)
        self.out = nn.Dense(classes)
        self.layers = [nn.Dense(16) for _ in range(3)]

    def hybrid_forward(self, F, x, mask=None):
        for layer in self.layers:
            x = layer(x)
        parts = F.split(x, num_outputs=2, axis=1)
        x = parts[0] + parts[1]
        if mask is not None:
            x = F.where(mask, x, F.zeros_like(x))
        return self.out(x)

    def describe(self):
        lines = []
        for i, layer in enumerate(self.layers):
            lines.append("%d: %s" % (i, layer))
        return "\\n".join(lines)
'''

_VIOLATIONS = [
    "        out += h",
    "        print(out)",
    "        n = out.shape[0]",
    "        out = out.reshape(0, -1)",
    "        if out.sum() > 0:\n            out = -out",
    "",
    "",
    "",
]

_UTIL = '''"""Synthetic utility module {n} (no hybrid blocks: skipped unparsed by the pre-filter)."""
import os
import json


def load_{n}(path):
    with open(path) as handle:
        return json.load(handle)


def save_{n}(obj, path):
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(obj, handle)
    os.replace(tmp, path)


class Registry{n}:
    def __init__(self):
        self.items = {{}}

    def add(self, name, value):
        self.items[name] = value
        return value
''' + "".join(f"\n\ndef util_{{n}}_{i}(a, b):\n    return a * {i} + b\n" for i in range(26))


def generate_tree(dest: Path, copies: int = 4, synthetic: int = 208, seed: int = 0) -> tuple[int, int]:
    """Write the benchmark tree; returns (files, lines)."""
    rng = random.Random(seed)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    corpus_files = sorted(p for p in (CORPUS / "mxnet").rglob("*.py"))
    count = lines = 0
    for copy in range(copies):
        for src in corpus_files:
            rel = src.relative_to(CORPUS)
            out = dest / f"copy{copy}" / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            text = src.read_text(encoding="utf-8")
            out.write_text(text, encoding="utf-8")
            count += 1
            lines += text.count("\n")
    for n in range(synthetic):
        if n % 2 == 0:
            text = _MODEL.format(n=n, units=rng.choice([16, 32, 64]), shortcut=rng.choice([True, False]),
                                 scale=rng.choice([0.5, 1.0, 2.0]), violation=rng.choice(_VIOLATIONS))
        else:
            text = _UTIL.format(n=n)
        out = dest / "models" / f"pkg{n % 8}" / f"module_{n}.py"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        count += 1
        lines += text.count("\n")
    return count, lines


def count_tree(path: Path) -> tuple[int, int]:
    files = list(path.rglob("*.py"))
    return len(files), sum(p.read_bytes().count(b"\n") for p in files)


#: extra environment of the timed processes (``PYTHONPYCACHEPREFIX`` unless ``--no-bytecode``)
_ENV: dict[str, str] = {}


def command(path: Path, jobs: int) -> list[str]:
    return ["hybridize-check", "--exit-zero", "--output-format", "concise", "--jobs", str(jobs), str(path)]


def time_check(path: Path, jobs: int, runs: int) -> tuple[list[float], list[float]]:
    """Wall times and CPU times (user+sys of the process and its workers) of fresh runs."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(command(path, jobs), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, **_ENV})
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if proc.returncode != 0:
            raise SystemExit(f"check failed ({proc.returncode}): {proc.stderr.strip()}")
    return walls, cpus


def report(name: str, path: Path, jobs: int, runs: int) -> str:
    files, lines = count_tree(path)
    walls, cpus = time_check(path, jobs, runs)
    best, median = min(walls), statistics.median(walls)
    load = os.getloadavg()[0]
    line = (f"{name}: {files} files, {lines} lines, jobs={jobs}: wall best {best:.3f} s, median {median:.3f} s "
            f"({files / best:.0f} files/s, {lines / best:.0f} lines/s); CPU best {min(cpus):.3f} s; "
            f"load average {load:.1f}; {'byte-compiled modules' if _ENV else 'modules compiled from source'}")
    print(line, flush=True)
    return line


def long_method(lines: int, aug: bool) -> str:
    """One ``hybrid_forward`` of ``lines`` statements ``x = F.relu(x)``; every tenth is ``x += 1``
    (``aug``: a finding with a fix to render each) or ``x = x + 1`` (clean)."""
    body = [("        x += 1" if aug else "        x = x + 1") if i % 10 == 9 else "        x = F.relu(x)"
            for i in range(lines)]
    return ("from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            + "\n".join(body) + "\n        return x\n")


def long_methods(runs: int) -> None:
    """The checker's cost must stay linear in the size of a method: JSON output renders every
    fix's edits, so a method with a fixable finding every tenth line against the same clean."""
    with tempfile.TemporaryDirectory(prefix="bench-long-") as tmp:
        for lines in (2000, 8000):
            best = {}
            for aug in (False, True):
                path = Path(tmp) / f"m{lines}{'aug' if aug else ''}.py"
                path.write_text(long_method(lines, aug))
                walls = []
                for _ in range(runs):
                    start = time.perf_counter()
                    subprocess.run(["hybridize-check", "--exit-zero", "--isolated", "--output-format", "json", str(path)],
                                   stdout=subprocess.DEVNULL, check=True)
                    walls.append(time.perf_counter() - start)
                best[aug] = min(walls)
            print(f"{lines}-line method, json output: clean {best[False]:.2f} s, a fix every tenth line "
                  f"{best[True]:.2f} s ({best[True] / best[False]:.1f}x); load average {os.getloadavg()[0]:.1f}",
                  flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (0 = one per CPU)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="generate the tree here and keep it")
    parser.add_argument("--long-methods", action="store_true", help="only the long-method scaling benchmark")
    parser.add_argument("--no-bytecode", dest="bytecode", action="store_false",
                        help="no private bytecode cache: every process compiles hybridize's modules from source")
    args = parser.parse_args()
    pycache = tempfile.mkdtemp(prefix="bench-check-pycache-") if args.bytecode else None
    if pycache is not None:
        _ENV.update(PYTHONPYCACHEPREFIX=pycache, PYTHONDONTWRITEBYTECODE="")
        time_check(CORPUS, 1, 1)      # the warm-up run byte-compiles what the children import
    try:
        _run(args)
    finally:
        if pycache is not None:
            shutil.rmtree(pycache, ignore_errors=True)


def _run(args: argparse.Namespace) -> None:
    if args.long_methods:
        long_methods(args.runs)
        return
    jobs = args.jobs or len(os.sched_getaffinity(0))
    report("corpus (cold)", CORPUS, jobs, args.runs)
    tmp = None
    dest = args.keep
    if dest is None:
        tmp = tempfile.mkdtemp(prefix="bench-check-")
        dest = Path(tmp) / "tree"
    generate_tree(dest)
    try:
        report("generated tree", dest, jobs, args.runs)
        report("generated tree", dest, 1, args.runs)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
