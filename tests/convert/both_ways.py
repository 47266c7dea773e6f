"""The both-ways harness: a conversion is correct when the original module run imperatively and the
converted module run hybridized compute the same outputs from the same parameters and inputs.

    from both_ways import both_ways
    result = both_ways(before, code="HY010")          # converts with fix_source(unsafe=True)
    result = both_ways(before, after, code="HY010")   # also demands that the conversion gives `after`

Steps (all on ``hybridize.runtime``; the module's ``mxnet`` imports are mapped by the transpiler's own
:func:`~hybridize.transpile.emit.imports.map_module`, applied by an ``__import__`` hook local to the
module's namespace, so nothing global changes):

1. convert: ``check.checker.fix_source(before, unsafe=True)``; the converted module must have no
   finding of ``code`` left (and equal ``after`` if given);
2. build the block (class ``Net``, or the module's only class with a ``hybrid_forward``), initialize,
   call once to finish deferred initialization, then set every parameter to seeded random values;
   inputs are seeded random float32 tensors of the shapes the example declares
   (:func:`~hybridize.transpile.rules.base.input_specs`);
3. the original runs imperatively; the converted module runs imperatively and then hybridized, with
   the same parameter values (matched by structural name) and copies of the same inputs (an original
   may write into its inputs); all three results must agree.

When real MXNet 1.9.1 is available (``HYBRIDIZE_MXNET_PYTHON``, default ``../mxnet-venv/bin/python``)
:func:`on_mxnet` repeats 2-3 for a batch of cases in one subprocess: the original imperatively and
the converted code hybridized *on MXNet*, with our parameters and inputs. CI has no MXNet: callers
skip that part when :func:`mxnet_python` is ``None``.
"""
from __future__ import annotations

import ast
import builtins
import importlib
import json
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.emit.imports import MXNET, map_module
from hybridize.transpile.rules.base import input_specs

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
MXNET_SCRIPT = HERE / "mxnet_both_ways.py"
RTOL, ATOL = 1e-5, 1e-6


# ---------------------------------------------------------------------------------------------
# loading a module with its mxnet imports mapped
def _mapped_import(name: str, globals: Any = None, locals: Any = None, fromlist: Sequence[str] = (), level: int = 0):
    """``__import__`` for the module under test: ``mxnet[.x]`` is ``hybridize.runtime[.x]``."""
    mapped = map_module(name) if level == 0 else None
    if mapped is None:
        return builtins.__import__(name, globals, locals, fromlist, level)
    module = builtins.__import__(mapped, globals, locals, fromlist, 0)
    if fromlist:
        return module
    # ``import mxnet.gluon`` binds ``mxnet``: the runtime package (with ``gluon`` now loaded)
    return importlib.import_module(map_module(MXNET))


def load_module(text: str, label: str) -> dict:
    """Execute module ``text`` on ``hybridize.runtime``; returns its namespace."""
    namespace: dict = {"__name__": f"both_ways_{label}",
                       "__builtins__": dict(vars(builtins), __import__=_mapped_import)}
    exec(compile(text, f"<{label}>", "exec"), namespace)
    return namespace


def block_class_name(text: str) -> str:
    """``Net`` if the module defines it, else its only class with a ``hybrid_forward``."""
    classes = [n for n in ast.parse(text).body if isinstance(n, ast.ClassDef)]
    names = [c.name for c in classes]
    if "Net" in names:
        return "Net"
    hybrid = [c.name for c in classes
              if any(isinstance(f, ast.FunctionDef) and f.name == "hybrid_forward" for f in c.body)]
    if len(hybrid) != 1:
        raise ValueError(f"cannot tell which block to build: classes with hybrid_forward {hybrid}")
    return hybrid[0]


def forward_inputs(text: str, class_name: str, param_names: Sequence[str]) -> list[str]:
    """Names of ``hybrid_forward``'s data inputs (after ``self, F``; parameters come as keywords)."""
    cls = next(n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == class_name)
    fn = next(f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "hybrid_forward")
    names = [a.arg for a in fn.args.posonlyargs + fn.args.args][2:]
    return [n for n in names if n not in set(param_names)]


# ---------------------------------------------------------------------------------------------
# data
def make_inputs(specs: Sequence[tuple[str, Any]], seed: int) -> list:
    """Seeded float32 arrays: one per shape, a list of arrays per list of shapes."""
    rng = np.random.default_rng(seed)

    def one(shape: tuple) -> np.ndarray:
        return rng.standard_normal(shape).astype(np.float32)

    return [[one(s) for s in spec] if isinstance(spec, list) else one(spec) for _, spec in specs]


def param_values(shapes: dict[str, tuple], seed: int) -> dict[str, np.ndarray]:
    """Seeded values for every parameter (structural name -> array); variances stay positive."""
    rng = np.random.default_rng(seed + 1)
    out = {}
    for name in sorted(shapes):
        value = rng.standard_normal(shapes[name]).astype(np.float32)
        if name.endswith(("running_var", "moving_var")):
            value = np.abs(value) + np.float32(0.5)
        out[name] = value
    return out


def flatten(out: Any) -> list[np.ndarray]:
    """An output (tensor, or nested lists/tuples of tensors) as a flat list of numpy arrays."""
    if isinstance(out, (list, tuple)):
        return [a for item in out for a in flatten(item)]
    return [np.asarray(out.asnumpy())]


def _to_nd(nd: Any, value: Any) -> Any:
    return [nd.array(v, dtype=v.dtype) for v in value] if isinstance(value, list) else nd.array(value, dtype=value.dtype)


# ---------------------------------------------------------------------------------------------
@dataclass
class BothWays:
    """What one run established (arrays are flat lists of outputs)."""

    before: str
    after: str
    inputs: list
    params: dict[str, np.ndarray]
    block: str = "Net"
    original: list[np.ndarray] = field(default_factory=list)            # before, imperative
    converted_imperative: list[np.ndarray] = field(default_factory=list)
    converted_hybridized: list[np.ndarray] = field(default_factory=list)


def convert(before: str, code: Optional[str], after: Optional[str] = None) -> str:
    """``before`` with every fix applied (safe and unsafe); checks ``after`` and what remains."""
    fixed, count, remaining = fix_source(before, "example.py", unsafe=True)
    assert count >= 1 and fixed != before, "no conversion applied"
    if after is not None:
        assert fixed == after, f"conversion differs from the expected text:\n{fixed}"
    if code is not None:
        left = [f for f in check_source(fixed, "example.py") if f.code == code]
        assert not left, f"{code} still reported after conversion: {[f.message for f in left]}"
    return fixed


def _build(text: str, label: str, block: Optional[str] = None):
    import hybridize.runtime as mx

    namespace = load_module(text, label)
    name = block or block_class_name(text)
    net = namespace[name]()
    net.initialize()
    return mx, net, name


def _set_params(net: Any, values: dict[str, np.ndarray]) -> None:
    params = net._collect_params_with_prefix()
    assert sorted(params) == sorted(values), f"parameters differ: {sorted(params)} vs {sorted(values)}"
    for name, p in params.items():
        p.set_data(values[name])


def _call(mx: Any, net: Any, inputs: list) -> list[np.ndarray]:
    return flatten(net(*[_to_nd(mx.nd, v) for v in inputs]))  # fresh copies: a block may write into them


def both_ways(before: str, after: Optional[str] = None, code: Optional[str] = None, seed: int = 0,
              converted: Optional[str] = None, block: Optional[str] = None) -> BothWays:
    """Convert ``before`` (unless ``converted`` is given) and demand equal outputs both ways
    (``block``: the class to build, when the module has several)."""
    fixed = converted if converted is not None else convert(before, code, after)
    mx, original, name = _build(before, "original", block)
    params = {n: p for n, p in original._collect_params_with_prefix().items()}
    specs = input_specs(before, forward_inputs(before, name, list(original._reg_params)))
    inputs = make_inputs(specs, seed)
    _call(mx, original, inputs)                                  # finishes deferred initialization
    values = param_values({n: p.shape for n, p in params.items()}, seed)
    _set_params(original, values)
    result = BothWays(before, fixed, inputs, values, block=name)
    result.original = _call(mx, original, inputs)

    _, net, _ = _build(fixed, "converted", name)
    _call(mx, net, inputs)
    _set_params(net, values)
    result.converted_imperative = _call(mx, net, inputs)
    net.hybridize()
    result.converted_hybridized = _call(mx, net, inputs)
    assert net._cached_graph, "the converted block did not run hybridized"
    assert_same(result.original, result.converted_imperative, "converted, imperative")
    assert_same(result.original, result.converted_hybridized, "converted, hybridized")
    return result


def assert_same(expected: list[np.ndarray], got: list[np.ndarray], what: str) -> None:
    assert len(expected) == len(got), f"{what}: {len(got)} outputs, expected {len(expected)}"
    for i, (e, g) in enumerate(zip(expected, got)):
        assert e.shape == g.shape, f"{what}: output {i} has shape {g.shape}, expected {e.shape}"
        assert e.dtype == g.dtype, f"{what}: output {i} has dtype {g.dtype}, expected {e.dtype}"
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL, err_msg=f"{what}: output {i}")


# ---------------------------------------------------------------------------------------------
# real MXNet 1.9.1 (optional)
def mxnet_python() -> Optional[str]:
    """The interpreter that has MXNet 1.9.1, or ``None`` (then the MXNet part is skipped)."""
    configured = os.environ.get("HYBRIDIZE_MXNET_PYTHON")
    candidate = configured or str(REPO.parent / "mxnet-venv" / "bin" / "python")
    return candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None


def on_mxnet(results: dict[str, BothWays], python: str) -> dict[str, dict]:
    """Run every case on MXNet in one subprocess: ``{id: {"original": [...], "hybridized": [...]}}``
    or ``{id: {"error": "..."}}``."""
    with tempfile.TemporaryDirectory(prefix="both_ways_mx_") as tmp:
        cases = []
        for i, (key, r) in enumerate(sorted(results.items())):
            base = Path(tmp) / f"case{i}"
            base.with_suffix(".before.py").write_text(r.before, encoding="utf-8")
            base.with_suffix(".after.py").write_text(r.after, encoding="utf-8")
            arrays = {f"param:{n}": v for n, v in r.params.items()}
            for j, value in enumerate(r.inputs):
                if isinstance(value, list):
                    arrays.update({f"input:{j}:{k}": v for k, v in enumerate(value)})
                    arrays[f"listlen:{j}"] = np.array(len(value))
                else:
                    arrays[f"input:{j}"] = value
            np.savez(base.with_suffix(".npz"), **arrays)
            cases.append({"id": key, "before": str(base.with_suffix(".before.py")),
                          "after": str(base.with_suffix(".after.py")), "data": str(base.with_suffix(".npz")),
                          "ninputs": len(r.inputs), "out": str(base.with_suffix(".out.npz")), "block": r.block})
        manifest = Path(tmp) / "manifest.json"
        manifest.write_text(json.dumps(cases), encoding="utf-8")
        proc = subprocess.run([python, str(MXNET_SCRIPT), str(manifest)], capture_output=True, text=True,
                              timeout=600, env=dict(os.environ, MXNET_ENGINE_TYPE="NaiveEngine"))
        assert proc.returncode == 0, proc.stderr[-3000:]
        status = json.loads(proc.stdout.strip().splitlines()[-1])
        out: dict[str, dict] = {}
        for case in cases:
            err = status.get(case["id"])
            if err:
                out[case["id"]] = {"error": err}
                continue
            with np.load(case["out"]) as data:
                got = {k: data[k] for k in data.files}
            out[case["id"]] = {
                which: [got[f"{which}:{i}"] for i in range(sum(1 for k in got if k.startswith(which + ":")))]
                for which in ("original", "hybridized")}
        return out
