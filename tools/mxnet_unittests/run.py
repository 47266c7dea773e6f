#!/usr/bin/env python
"""Runs MXNet 1.9.1's own Python unit tests against ``hybridize.runtime`` and counts what passes.

    python tools/mxnet_unittests/run.py /tmp/mxtests/tests/python/unittest [--files test_symbol ...]
        [--json out.json] [--timeout 60] [--failures] [--python /tmp/hy-np1/bin/python]

Get the tests (never commit them): ``fetch`` github:apache/mxnet, then
``git -C <mirror> archive 1.9.1 tests/python/unittest tests/python/common | tar -x -C /tmp/mxtests``.

How it works
- ``mxnet`` and every ``mxnet.*`` import resolve to ``hybridize.runtime`` (``shim/mxnet_alias.py``, a
  pytest plugin with a meta-path finder); ``nose.tools`` is a small stand-in (``shim/nose``). MXNet's
  ``common.py`` and ``tests/python/common/models.py`` are used as they are.
- Each file runs in its own pytest process; each test has a wall-clock limit (``--timeout``).
- A test file that fails to import fails all its in-scope tests (they are counted from the source).
- ``--python`` runs the tests with another interpreter, e.g. one of MXNet's own NumPy environment:
  MXNet 1.9.1 requires numpy<2 and its test code calls NumPy APIs that later NumPy removed (``np.float``,
  ``np.round_``, ``interpolation=``). ``tools/mxnet_unittests/make_numpy1_venv.sh`` makes such a venv
  (numpy 1.23.5 by default; ``NUMPY=1.19.5 PYTHON=<Python 3.9>`` for MXNet 1.9.1's CI pin numpy<1.20; SciPy,
  pytest, this package editable; no MXNet). The package under test is
  the one ``PYTHONPATH`` or the venv's editable install names.

Scope (decided from the source, before anything runs; a test is out of scope if its own body or any
module-level function of the same file it calls, transitively, matches one of these). Only what the
runtime truly lacks is out of scope; gradients, Trainer steps, kvstores, several CPU contexts, the
Module API and ``mx.np``/``npx`` are all in the runtime, so the tests using them count:
- ``sparse``: sparse storage (``stype``, ``tostype``, ``csr``, ``row_sparse``, ``mx.nd.sparse``; reading a
  row-sparse gradient's own arrays, ``.grad().data``/``.indices``, as of ``Embedding(sparse_grad=True)``:
  a dense gradient has neither);
- ``gpu``: GPUs, cuDNN/CUDA;
- ``download``: downloads, pretrained weights and the datasets that download (WikiText2, MNIST, ...,
  and ``test_utils.get_cifar10``/``get_mnist_ubyte``, which fetch data.mxnet.io's archives), except
  in the files for which ``local_files.py`` provides local copies (``local_files.NEEDS``:
  test_gluon_data, test_io, ...): before such a file runs, generated files in the published formats
  (MNIST idx ``.gz``, CIFAR binary tarballs, ``test_images.tar.gz``, ``mnist.zip``, ``cifar10.zip``)
  are placed where the tests' ``download`` calls and the datasets' default roots
  (``$MXNET_HOME/datasets``, a temporary ``MXNET_HOME``) look, so they run as after a download
  (a download into a folder not known in advance, a ``mkdtemp()``, gets the local copy from the
  shim, which stands in for data.mxnet.io: ``local_files.URLS``); nothing is ever fetched;
- ``skipped``: tests MXNet 1.9.1 itself skips (``@unittest.skip``, or ``SkipTest`` raised at run time,
  e.g. when no suitable locale is installed) or that are not test functions pytest can run
  (generator tests).
Everything else is in scope.

Gradient and forward tests (``GRADIENT``, from the source as the scope): a test is a gradient test
when it or a helper of its file it calls runs a backward pass, records with autograd, calls one of
test_utils' gradient checks or takes a training step; the table counts both kinds apart.
"""
from __future__ import annotations

import argparse
import ast
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import local_files  # noqa: E402  (beside this script)
FILES = ["test_gluon", "test_gluon_rnn", "test_gluon_contrib", "test_gluon_model_zoo", "test_symbol",
         "test_ndarray", "test_operator", "test_loss", "test_init", "test_attr", "test_autograd",
         "test_contrib_autograd", "test_gluon_trainer", "test_optimizer"]

# (category, regex over the source of a test and the helpers it calls)
OUT_OF_SCOPE = [
    ("sparse", r"\bstype\b|\btostype\b|\bcsr\b|row_sparse|\bsparse\b|\bmxsps\b|\bsps\.|"
               r"\.grad\(\)\.(data|indices)\b"),
    ("gpu", r"\bgpu\(|num_gpus|cudnn|\bcuda\b|\bmx\.gpu\b"),
    ("download", r"\bdownload\(|pretrained\s*=\s*(?!False)\w|\bget_model_file\b|\bparallel_download\b|"
                 r"\b(WikiText2|WikiText103|MNIST|FashionMNIST|CIFAR10|CIFAR100)\(|"
                 r"\bget_(cifar10|mnist_ubyte|mnist|mnist_iterator)\("),
]


# a test is a gradient test when its own source or a module-level helper of its file it calls
# (transitively, as for the scope) computes or checks a gradient or trains: a backward pass
# (``backward(`` of an NDArray, executor, Module or autograd, ``forward_backward(``), autograd
# recording (``record(``, ``train_section(``, ``autograd``), a marked variable, contrib autograd's
# ``grad_and_loss``/``compute_gradient``, one of test_utils' gradient checks (``check_numeric_gradient``,
# ``check_symbolic_backward``, ``numeric_grad``, ``check_consistency``: it compares gradients too),
# or a training step (``Trainer``, ``.step(``, ``Module.fit``/``update``); every other test is a
# forward test. Decided from the source, so a forward-only call of a gradient helper still counts.
GRADIENT = (r"backward\(|\bautograd\b|\brecord\(|\btrain_section\(|\battach_grad\b|\bmark_variables\b|"
            r"\bgrad_and_loss\b|\bcompute_gradient\b|\bcheck_numeric_gradient\b|\bcheck_symbolic_backward\b|"
            r"\bnumeric_grad\b|\bcheck_consistency\b|\bTrainer\b|\.step\(|\.fit\(|\.update\(\)")


def _called_names(fn: ast.AST) -> set[str]:
    return {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)} | \
        {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}


def classify(path: str, drop: frozenset = frozenset(), rules: list | None = None) -> dict[str, str]:
    """test name -> "in" or the out-of-scope category, for every module-level ``test_*`` function;
    the categories in ``drop`` do not apply. ``rules`` replaces ``OUT_OF_SCOPE`` (same form)."""
    rules = OUT_OF_SCOPE if rules is None else rules
    src = open(path, encoding="utf-8").read()
    tree = ast.parse(src)
    funcs = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    own = {name: ast.get_source_segment(src, node) or "" for name, node in {**funcs, **classes}.items()}

    def category_of(text: str) -> str | None:
        for cat, rx in rules:
            if cat not in drop and re.search(rx, text):
                return cat
        return None

    memo: dict[str, str | None] = {}
    methods: dict[str, ast.AST] = {}

    def reach(name: str, stack: tuple = ()) -> str | None:
        if name in memo:
            return memo[name]
        if name in stack:
            return None
        text = own[name]
        cat = category_of(text)
        if cat is None:
            node = funcs.get(name) or methods.get(name) or classes[name]
            for callee in sorted(_called_names(node)):
                if callee in own and callee != name:
                    cat = reach(callee, stack + (name,))
                    if cat:
                        break
        memo[name] = cat
        return cat

    # test methods of unittest.TestCase classes (pytest collects them; their node ids end in the
    # method's name): scoped by their own source and the module-level helpers they call
    methods = {}
    for cls in classes.values():
        if not any((isinstance(b, ast.Attribute) and b.attr == "TestCase") or
                   (isinstance(b, ast.Name) and b.id == "TestCase") for b in cls.bases):
            continue
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test") \
                    and node.name not in funcs:
                methods[node.name] = node
                own[node.name] = ast.get_source_segment(src, node) or ""

    out = {}
    for name, node in {**funcs, **methods}.items():
        if not name.startswith("test"):
            continue
        decos = " ".join(ast.get_source_segment(src, d) or "" for d in node.decorator_list)
        if re.search(r"\bskip\b|\bskipIf\b", decos) or any(isinstance(n, (ast.Yield, ast.YieldFrom))
                                                            for n in ast.walk(node)):
            out[name] = "skipped"
            continue
        out[name] = reach(name) or "in"
    return out


def kinds(path: str) -> dict[str, str]:
    """test name -> "gradient" or "forward" (``GRADIENT``); skipped and generator tests are
    "forward" here (they are out of scope anyway)."""
    found = classify(path, rules=[("gradient", GRADIENT)])
    return {t: "gradient" if k == "gradient" else "forward" for t, k in found.items()}


def run_file(unittest_dir: str, stem: str, selected: list[str], timeout: int,
             cache: str | None = None, python: str = sys.executable) -> dict[str, dict]:
    """Runs the selected tests of one file with ``python`` (in a temporary working directory and
    ``MXNET_HOME`` holding the local copies of its downloads, built in ``cache``); test name ->
    {"outcome", "message"}."""
    with tempfile.TemporaryDirectory(prefix="mxut-") as tmp:
        home = os.path.join(tmp, "mxnet_home")
        os.makedirs(home)
        copies = os.path.join(tmp, "local_copies.json")
        with open(copies, "w") as f:
            json.dump(local_files.url_map(stem, cache) if cache is not None else {}, f)
        if cache is not None:
            local_files.prepare(stem, tmp, home, cache)
        env = dict(os.environ, MXUT_TIMEOUT=str(timeout),
                   PYTHONPATH=os.pathsep.join([os.path.join(HERE, "shim"), os.environ.get("PYTHONPATH", "")]),
                   MXNET_TEST_SEED="1", MXNET_MODULE_SEED="1", MXNET_HOME=home,
                   MXUT_LOCAL_COPIES=copies)
        cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mxnet_alias",
               "--rootdir", unittest_dir, "-o", "python_files=test_*.py", "-W", "ignore",
               os.path.join(unittest_dir, stem + ".py")]
        results: dict[str, dict] = {}
        todo = list(selected)
        for attempt in itertools.count():
            sel = os.path.join(tmp, f"select{attempt}.json")
            rep = os.path.join(tmp, f"report{attempt}.jsonl")
            with open(sel, "w") as f:
                json.dump(todo, f)
            proc = subprocess.run(cmd, env=dict(env, MXUT_SELECT=sel, MXUT_REPORT=rep), cwd=tmp,
                                  capture_output=True, text=True, timeout=timeout * max(len(todo), 1) + 120)
            started, ran = _read_report(rep, results)
            if not started:
                if not results:  # the file never reached its first test
                    lines = (proc.stdout + proc.stderr).splitlines()
                    tail = ([ln[1:] for ln in lines if ln.startswith("E ")][-1:]
                            or [ln for ln in lines if "Error" in ln][:1])
                    msg = "file did not run: " + (tail[0].strip() if tail else f"pytest exit {proc.returncode}")
                    results = {t: {"outcome": "failed", "message": msg} for t in selected}
                break
            # A test that started and never reported ended the process (a crash, a kill): it fails,
            # and the file resumes with the tests that did not start.
            for name in started - ran:
                results[name] = {"outcome": "failed",
                                 "message": f"the test ended its pytest process (exit {proc.returncode})"}
            todo = [t for t in todo if t not in started]
            if not todo or not started - ran:
                break
        for t in selected:
            results.setdefault(t, {"outcome": "failed", "message": "not collected"})
        return results


def _read_report(path: str, results: dict[str, dict]) -> tuple[set[str], set[str]]:
    """Adds one pytest process's outcomes to ``results`` (a parametrized test passes only if all its
    cases do); returns the names of the tests it started and of those whose every started case
    reported an outcome (a test of the first set missing from the second ended the process)."""
    started: dict[str, str] = {}   # node id -> test name
    reported: set[str] = set()
    if os.path.exists(path):
        for line in open(path):
            r = json.loads(line)
            name = r["nodeid"].split("::")[-1].split("[")[0]
            if r["when"] == "start":
                started[r["nodeid"]] = name
                continue
            reported.add(r["nodeid"])
            prev = results.get(name)
            if prev is None or r["outcome"] != "passed":
                results[name] = {"outcome": r["outcome"], "message": r["message"]}
    names = set(started.values())
    unfinished = {name for node, name in started.items() if node not in reported}
    return names, names - unfinished


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("unittest_dir", help="MXNet 1.9.1's tests/python/unittest")
    ap.add_argument("--files", nargs="*", default=FILES)
    ap.add_argument("--timeout", type=int, default=60, help="seconds per test")
    ap.add_argument("--json", help="write every test's scope and outcome here")
    ap.add_argument("--failures", action="store_true", help="list failing in-scope tests with their error")
    ap.add_argument("--python", default=sys.executable,
                    help="the interpreter that runs the tests (default: this one), e.g. a numpy<2 venv")
    a = ap.parse_args(argv)
    report, tot_in, tot_pass = {}, 0, 0
    by_kind = {"gradient": [0, 0], "forward": [0, 0]}   # kind -> [in scope, passed]
    cache_dir = tempfile.TemporaryDirectory(prefix="mxut-files-")
    cache = cache_dir.name
    probe = subprocess.run([a.python, "-c", "import numpy; print(numpy.__version__)"], capture_output=True, text=True)
    print(f"python {a.python}, numpy {probe.stdout.strip() or '(not importable)'}")
    print(f"{'file':24} {'tests':>5} {'in scope':>8} {'passed':>6}   pass rate  gradient tests  forward tests")
    for stem in a.files:
        path = os.path.join(a.unittest_dir, stem + ".py")
        if not os.path.isfile(path):
            print(f"{stem}: not found in {a.unittest_dir}", file=sys.stderr)
            return 2
        scope = classify(path, frozenset({"download"}) if stem in local_files.NEEDS else frozenset())
        selected = sorted(t for t, c in scope.items() if c == "in")
        t0 = time.time()
        results = run_file(a.unittest_dir, stem, selected, a.timeout, cache, a.python) if selected else {}
        for t, r in results.items():  # a test that skips itself (raise SkipTest) is MXNet's skip
            if r["outcome"] == "skipped":
                scope[t] = "skipped"
        selected = [t for t in selected if scope[t] == "in"]
        passed = sorted(t for t in selected if results[t]["outcome"] == "passed")
        tot_in += len(selected)
        tot_pass += len(passed)
        kind = kinds(path)
        counts = {}
        for k in by_kind:
            ins = [t for t in selected if kind[t] == k]
            counts[k] = f"{sum(t in passed for t in ins)}/{len(ins)}"
            by_kind[k][0] += len(ins)
            by_kind[k][1] += sum(t in passed for t in ins)
        rate = f"{100 * len(passed) / len(selected):.0f} %" if selected else "-"
        print(f"{stem:24} {len(scope):5} {len(selected):8} {len(passed):6}   {rate:>6}  {counts['gradient']:>14}"
              f"  {counts['forward']:>13}  ({time.time() - t0:.0f} s)", flush=True)
        report[stem] = {t: {"scope": c, "kind": kind[t], **results.get(t, {})} for t, c in scope.items()}
        if a.failures:
            for t in selected:
                if results[t]["outcome"] != "passed":
                    print(f"    FAIL {t}: {results[t]['message']}")
    print(f"{'total':24} {'':5} {tot_in:8} {tot_pass:6}   {100 * tot_pass / max(tot_in, 1):.1f} %")
    for k, (n_in, n_pass) in by_kind.items():
        print(f"{k + ' tests':24} {'':5} {n_in:8} {n_pass:6}   {100 * n_pass / max(n_in, 1):.1f} %")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
