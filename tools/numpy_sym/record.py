"""Record MXNet 1.9.1's np-mode behaviour for tests/numpy (run with the MXNet venv, not in the suite).

    /tmp/mxnet-venv/bin/python tools/numpy_sym/record.py [semantics conversions traces models op_names np_operators]

Writes, under tests/numpy/fixtures/:

* ``semantics.json``: every case of tests/numpy/np_cases.py run imperatively and hybridized
  (``npx.set_np()``): ok + output, or the exception's type and first line.
* ``conversions.json``: every conversion of np_cases.CONVERSIONS: the original body imperatively, the
  converted body hybridized (output and the input's gradient of the output's sum), and the bodies
  of np_cases.UNAVAILABLE run both ways (MXNet's refusals).
* ``traces.json``: the nodes MXNet writes for np-mode Symbol expressions (``np_cases.TRACES``).
* ``np_op_names.json``: every np operator name -> the name MXNet writes for its nodes.
* ``models/<name>/``: np-mode blocks hybridized and exported by MXNet: ``model-symbol.json``,
  ``model-0000.params`` and ``io.npz`` (``x``, ``y`` hybridized, ``y_imperative``); the parameters
  come from ``np_models.set_params`` (a seeded RandomState), so the tests rebuild them exactly.

and ``transpile/convert/_np_operators.py``: the np-mode operator names the HY007 conversion uses.
"""
from __future__ import annotations

import json
import os
import shutil
import sys

import mxnet as mx
import numpy as onp
from mxnet import np, npx
from mxnet.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "tests", "numpy", "fixtures")
sys.path.insert(0, os.path.join(REPO, "tests", "numpy"))
from np_cases import CASES, CONVERSIONS, TRACES, UNAVAILABLE, module_text
from np_models import MODELS, set_params

npx.set_np()


def run_case(body: str) -> dict:
    scope: dict = {}
    exec(compile(module_text(body), "<case>", "exec"), scope)  # noqa: S102 - the case is the program
    x = np.array(onp.arange(24, dtype="float32").reshape(2, 3, 4) / 10)
    out = {}
    for mode in ("imperative", "hybridized"):
        net = scope["Net"]()
        net.initialize()
        if mode == "hybridized":
            net.hybridize()
        try:
            y = net(x.copy())
            out[mode] = {"ok": True, "shape": list(y.shape), "value": y.asnumpy().ravel().tolist()}
        except Exception as e:  # noqa: BLE001
            first = (str(e).strip().splitlines() or [""])[0]
            out[mode] = {"ok": False, "error": type(e).__name__, "message": first[:200]}
    return out


def record_semantics() -> None:
    record = {name: {"body": body, **run_case(body)} for name, (body, _) in CASES.items()}
    with open(os.path.join(OUT, "semantics.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": record}, f, indent=1, sort_keys=True)
        f.write("\n")


def run_gradient(body: str) -> dict:
    """The hybridized block's output and ``d sum(output) / d x`` (autograd through the graph)."""
    from mxnet import autograd

    scope: dict = {}
    exec(compile(module_text(body), "<case>", "exec"), scope)  # noqa: S102 - the case is the program
    net = scope["Net"]()
    net.initialize()
    net.hybridize()
    x = np.array(onp.arange(24, dtype="float32").reshape(2, 3, 4) / 10)
    x.attach_grad()
    try:
        with autograd.record():
            y = net(x)
        y.backward()
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": type(e).__name__, "message": (str(e).strip().splitlines() or [""])[0][:200]}
    return {"ok": True, "shape": list(y.shape), "dtype": str(y.dtype), "value": y.asnumpy().ravel().tolist(),
            "grad": x.grad.asnumpy().ravel().tolist()}


def record_conversions() -> None:
    record = {}
    for name, (body, converted, unsafe) in CONVERSIONS.items():
        record[name] = {"body": body, "converted": converted, "unsafe": unsafe,
                        "original": run_case(body)["imperative"], "hybridized": run_gradient(converted)}
    refused = {name: {"body": body, **run_case(body)} for name, body in UNAVAILABLE.items()}
    with open(os.path.join(OUT, "conversions.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "conversions": record, "unavailable": refused}, f, indent=1,
                  sort_keys=True)
        f.write("\n")


def record_traces() -> None:
    """The non-variable nodes MXNet writes for each of ``TRACES`` (op, name, attrs), names counted
    from 0 for each expression."""
    out = {}
    for expr in TRACES:
        with mx.name.NameManager():
            x = mx.sym.var("x").as_np_ndarray()
            y = mx.sym.var("y").as_np_ndarray()
            s = eval(expr, {"x": x, "y": y, "sym": mx.sym})  # noqa: S307 - the table's own expressions
            nodes = json.loads(s.tojson())["nodes"]
        out[expr] = {"type": type(s).__name__,
                     "nodes": [[n["op"], n["name"], n.get("attrs", {})] for n in nodes if n["op"] != "null"]}
    with open(os.path.join(OUT, "traces.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "traces": out}, f, indent=1, sort_keys=True)
        f.write("\n")


def record_models() -> None:
    for name, (build, shape) in MODELS.items():
        folder = os.path.join(OUT, "models", name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        net = build(nn, np)
        net.initialize()
        x = np.array(onp.random.RandomState(1).uniform(-1, 1, size=shape).astype("float32"))
        net(x)  # deferred shapes
        set_params(net, onp)
        y_imp = net(x).asnumpy()
        net.hybridize()
        y = net(x).asnumpy()
        net.export(os.path.join(folder, "model"))
        onp.savez(os.path.join(folder, "io.npz"), x=x.asnumpy(), y=y, y_imperative=y_imp)
        print(name, y.shape, float(abs(y - y_imp).max()))




def np_operator_names() -> list[str]:
    """``np.X`` / ``np.linalg.X`` / ``npx.X``: the functions MXNet 1.9.1 defines with one signature
    in both ``F`` namespaces of np mode (``mx.nd.np`` imperatively, ``mx.sym.np`` while tracing)."""
    import inspect

    def public(module) -> set:
        return {n for n in dir(module) if not n.startswith("_") and callable(getattr(module, n))
                and not inspect.isclass(getattr(module, n)) and not inspect.ismodule(getattr(module, n))}

    out = set()
    for space, nd_mod, sym_mod in (("np", mx.nd.np, mx.sym.np), ("np.linalg", mx.nd.np.linalg, mx.sym.np.linalg),
                                   ("npx", mx.nd.npx, mx.sym.npx)):
        out |= {f"{space}.{n}" for n in public(nd_mod) & public(sym_mod)}
    return sorted(out)


def record_op_names() -> None:
    """Every np operator name MXNet 1.9.1 registers -> the name its nodes carry in symbol JSON (the
    operator's own name, or the legacy operator it is an alias of: ``_npx_fully_connected`` ->
    ``FullyConnected``, while ``_npx_relu`` is its own operator)."""
    import ctypes

    from mxnet.base import _LIB, c_str, check_call, py_str

    plist = ctypes.POINTER(ctypes.c_char_p)()
    size = ctypes.c_uint()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(plist)))
    out = {}
    for n in sorted(py_str(plist[i]) for i in range(size.value)):
        if not n.startswith(("_npi_", "_np_", "_npx_")):
            continue
        handle = ctypes.c_void_p()
        check_call(_LIB.NNGetOpHandle(c_str(n), ctypes.byref(handle)))
        name, desc, ret, key = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
        num = ctypes.c_uint()
        arrays = [ctypes.POINTER(ctypes.c_char_p)() for _ in range(3)]
        check_call(_LIB.MXSymbolGetAtomicSymbolInfo(handle, ctypes.byref(name), ctypes.byref(desc), ctypes.byref(num),
                                                    *[ctypes.byref(a) for a in arrays], ctypes.byref(key),
                                                    ctypes.byref(ret)))
        out[n] = py_str(name.value)
    with open(os.path.join(OUT, "np_op_names.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "names": out}, f, indent=1, sort_keys=True)
        f.write("\n")


def record_np_operators() -> None:
    target = os.path.join(REPO, "transpile", "convert", "_np_operators.py")
    body = "".join(f"    {n!r},\n" for n in np_operator_names())
    with open(target, "w") as f:
        f.write('"""The np-mode ``F`` operators of MXNet 1.9.1: functions defined with one signature in both\n'
                '``mx.nd.np``/``mx.nd.npx`` and ``mx.sym.np``/``mx.sym.npx`` (recorded by '
                '``tools/numpy_sym/record.py``; do not edit)."""\n'
                f"NP_OPERATORS = frozenset({{\n{body}}})\n")


STEPS = {"semantics": record_semantics, "conversions": record_conversions, "traces": record_traces,
         "models": record_models, "op_names": record_op_names, "np_operators": record_np_operators}

if __name__ == "__main__":
    for step in sys.argv[1:] or STEPS:
        STEPS[step]()
