"""mx.np / mx.npx as MXNet 1.9.1 answered the cases of np_unittest_cases.py (the behaviours MXNet's
own test_numpy_* files lean on: autograd through np views, symbolic np functions, samplers, ...).

Each case runs on the runtime; ``out`` must have MXNet's kind, dtype, shape and values (float32
tolerance), or the case must raise where MXNet raised (typed: an MXNetError where MXNet's C++ failed).
"""
import json
import os

import hybridize.runtime as mx
import numpy as onp
import pytest
from hybridize.runtime import autograd, np, npx
from hybridize.runtime.base import MXNetError
from hybridize.runtime.gluon import HybridBlock

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "np_unittest_cases.json")) as _fh:
    RECORDED = json.load(_fh)["cases"]

_ERRORS = {"MXNetError": MXNetError, "TypeError": TypeError, "ValueError": ValueError, "IndexError": IndexError,
           "AttributeError": AttributeError, "NotImplementedError": NotImplementedError}


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def run(code):
    scope = {"mx": mx, "np": np, "npx": npx, "onp": onp, "autograd": autograd, "HybridBlock": HybridBlock}
    with mx.name.NameManager():  # symbols are named as in a fresh MXNet process (exponential0)
        exec(code, scope)
    return scope["out"]


def check(ours, theirs, where):
    kind = theirs["kind"]
    if kind == "ndarray":
        assert isinstance(ours, np.ndarray), f"{where}: {type(ours).__name__}, MXNet gives mx.np.ndarray"
        assert str(ours.dtype) == theirs["dtype"], f"{where}: dtype {ours.dtype}, MXNet {theirs['dtype']}"
        assert list(ours.shape) == theirs["shape"], f"{where}: shape {ours.shape}, MXNet {theirs['shape']}"
        want = onp.array(theirs["values"], dtype=theirs["dtype"]).reshape(theirs["shape"])
        onp.testing.assert_allclose(ours.asnumpy(), want, rtol=1e-4, atol=1e-5, err_msg=where)
    elif kind in ("list", "tuple"):
        assert type(ours).__name__ == kind, f"{where}: {type(ours).__name__}, MXNet gives a {kind}"
        assert len(ours) == len(theirs["items"]), where
        for i, (o, t) in enumerate(zip(ours, theirs["items"])):
            check(o, t, f"{where}[{i}]")
    elif kind == "py":
        assert type(ours).__name__ == theirs["type"], f"{where}: {type(ours).__name__}, MXNet {theirs['type']}"
        assert ours == (pytest.approx(theirs["value"], rel=1e-5) if isinstance(ours, float) else theirs["value"]), where
    elif kind == "numpy":
        assert isinstance(ours, onp.ndarray) and str(ours.dtype) == theirs["dtype"], where
        onp.testing.assert_allclose(ours, onp.array(theirs["values"], dtype=theirs["dtype"]), rtol=1e-5, err_msg=where)
    elif kind == "numpy_scalar":
        assert ours.item() == pytest.approx(theirs["value"], rel=1e-5), where
    else:
        raise AssertionError(f"{where}: unexpected recorded kind {kind}")


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_case_as_mxnet(name):
    case = RECORDED[name]
    if not case["ok"]:
        with pytest.raises(_ERRORS[case["error"]]):
            run(case["code"])
        return
    check(run(case["code"]), case["result"], name)
