"""Record MXNet 1.9.1's imperative mx.np / mx.npx behaviour for tests/numpy (MXNet venv, not the suite).

    /tmp/mxnet-venv/bin/python tools/numpy_rt/record.py

Writes tests/numpy/fixtures/np_imperative.json (every case of tests/numpy/np_imperative_cases.py:
MXNet's result as dtype/shape/values, Python values, or the exception's type) and
tests/numpy/fixtures/np_gluon.npz + np_gluon.json (np-mode Gluon networks run imperatively: the
input, every parameter, the output, in training and inference mode).
"""
from __future__ import annotations

import json
import os
import sys

import mxnet as mx
import numpy as onp
from mxnet import np, npx
from mxnet.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "tests", "numpy", "fixtures")
sys.path.insert(0, os.path.join(REPO, "tests", "numpy"))
from np_gluon_nets import NETS, set_params
from np_imperative_cases import CASES, PRELUDE, RANDOM

npx.set_np()


def encode(value, with_values=True):
    """MXNet's result as JSON: arrays as dtype/shape/values, containers item by item."""
    if isinstance(value, np.ndarray):
        host = value.asnumpy()
        out = {"kind": "ndarray", "dtype": str(host.dtype), "shape": list(host.shape)}
        if with_values:
            out["values"] = host.tolist()
        return out
    if isinstance(value, mx.nd.NDArray):
        return {"kind": "NDArray", "dtype": str(value.asnumpy().dtype), "shape": list(value.shape)}
    if isinstance(value, onp.ndarray):
        return {"kind": "numpy", "dtype": str(value.dtype), "shape": list(value.shape), "values": value.tolist()}
    if isinstance(value, (list, tuple)):
        return {"kind": type(value).__name__, "items": [encode(v, with_values) for v in value]}
    if isinstance(value, (bool, int, float, str, type(None))):
        return {"kind": "py", "type": type(value).__name__, "value": value}
    if isinstance(value, onp.generic):
        return {"kind": "numpy_scalar", "type": type(value).__name__, "value": value.item()}
    return {"kind": "other", "type": type(value).__name__, "value": repr(value)}


def run(expr, with_values=True):
    scope = {"np": np, "npx": npx, "onp": onp, "mx": mx}
    exec(PRELUDE, scope)
    try:
        res = eval(expr, scope)
        enc = encode(res, with_values)
        mx.nd.waitall()
        return {"ok": True, "result": enc}
    except Exception as e:  # noqa: BLE001 - the exception is the recorded answer
        try:
            mx.nd.waitall()
        except Exception:  # noqa: BLE001
            pass
        name = type(e).__name__
        return {"ok": False, "error": name, "message": str(e).strip().splitlines()[-1][:200] if str(e) else ""}


def record_cases():
    cases = {k: {"expr": e, **run(e)} for k, e in CASES.items()}
    random = {k: {"expr": e, **run(e, with_values=False)} for k, e in RANDOM.items()}
    with open(os.path.join(OUT, "np_imperative.json"), "w") as fh:
        json.dump({"mxnet": mx.__version__, "prelude": PRELUDE, "cases": cases, "random": random}, fh, indent=1,
                  sort_keys=True)


def record_nets():
    arrays, meta = {}, {}
    for name, (build, shape) in NETS.items():
        net = build(nn)
        net.initialize()
        x = np.array(onp.random.RandomState(0).uniform(-1, 1, shape).astype("float32"))
        net(x)  # deferred initialization
        set_params(net, np)
        arrays[f"{name}/x"] = x.asnumpy()
        for pname, p in net.collect_params().items():
            arrays[f"{name}/param/{pname}"] = p.data().asnumpy()
        arrays[f"{name}/y"] = net(x).asnumpy()
        with mx.autograd.train_mode():
            arrays[f"{name}/y_train"] = net(x).asnumpy()
        meta[name] = {"out_type": type(net(x)).__name__, "param_type": type(next(iter(
            net.collect_params().values())).data()).__name__, "params": list(net.collect_params().keys())}
    onp.savez(os.path.join(OUT, "np_gluon.npz"), **arrays)
    with open(os.path.join(OUT, "np_gluon.json"), "w") as fh:
        json.dump({"mxnet": mx.__version__, "nets": meta}, fh, indent=1, sort_keys=True)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    record_cases()
    record_nets()
