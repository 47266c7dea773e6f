"""Record MXNet 1.9.1's answers to tests/numpy/np_unittest_cases.py (MXNet venv, not the suite).

    /tmp/mxnet-venv/bin/python tools/numpy_rt/record_unittest_cases.py

Writes tests/numpy/fixtures/np_unittest_cases.json: each case's ``out`` as record.py encodes values,
or the exception's type.
"""
from __future__ import annotations

import json
import os
import sys

import mxnet as mx
import numpy as onp
from mxnet import autograd, np, npx
from mxnet.gluon import HybridBlock

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(REPO, "tests", "numpy")]
from np_unittest_cases import CASES  # noqa: E402
from record import encode  # noqa: E402


def run(code: str) -> dict:
    scope = {"mx": mx, "np": np, "npx": npx, "onp": onp, "autograd": autograd, "HybridBlock": HybridBlock}
    try:
        exec(code, scope)
        res = encode(scope["out"])
        mx.nd.waitall()
        return {"ok": True, "result": res}
    except Exception as e:  # noqa: BLE001 - the exception is the recorded answer
        return {"ok": False, "error": type(e).__name__, "message": (str(e).strip().splitlines() or [""])[-1][:200]}


if __name__ == "__main__":
    npx.set_np()
    onp.random.seed(0)
    out = {k: {"code": c, **run(c)} for k, c in CASES.items()}
    with open(os.path.join(REPO, "tests", "numpy", "fixtures", "np_unittest_cases.json"), "w") as fh:
        json.dump({"mxnet": mx.__version__, "cases": out}, fh, indent=1, sort_keys=True)
