"""mx.np / mx.npx imperatively, as MXNet 1.9.1 answered the cases of np_imperative_cases.py.

Each case's expression runs on the runtime over the same prelude; the result must have MXNet's
kind, dtype, shape and values (float32 tolerance), or raise as MXNet raised (an MXNetError where
MXNet's C++ failed; TypeError/ValueError/IndexError where MXNet's Python did). Random cases compare
shapes and dtypes only (MXNet's generator cannot be reproduced: values differ, seeding with
``npx.random.seed`` makes ours repeatable).
"""
import json
import os

import hybridize.runtime as mx
import numpy as onp
import pytest
from hybridize.runtime import np, npx
from hybridize.runtime.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "np_imperative.json")) as _fh:
    RECORDED = json.load(_fh)

_ERRORS = {"MXNetError": MXNetError, "TypeError": TypeError, "ValueError": ValueError, "IndexError": IndexError}


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def run(expr):
    scope = {"np": np, "npx": npx, "onp": onp, "mx": mx}
    exec(RECORDED["prelude"], scope)
    return eval(expr, scope)


def check(ours, theirs, where, values=True):
    kind = theirs["kind"]
    if kind == "ndarray":
        assert isinstance(ours, np.ndarray), f"{where}: {type(ours).__name__}, MXNet gives mx.np.ndarray"
        assert str(ours.dtype) == theirs["dtype"], f"{where}: dtype {ours.dtype}, MXNet {theirs['dtype']}"
        assert list(ours.shape) == theirs["shape"], f"{where}: shape {ours.shape}, MXNet {theirs['shape']}"
        if values:
            want = onp.array(theirs["values"], dtype=theirs["dtype"]).reshape(theirs["shape"])
            onp.testing.assert_allclose(ours.asnumpy(), want, rtol=1e-4, atol=1e-5, err_msg=where)
    elif kind in ("list", "tuple"):
        assert type(ours).__name__ == kind, f"{where}: {type(ours).__name__}, MXNet gives a {kind}"
        assert len(ours) == len(theirs["items"]), where
        for i, (o, t) in enumerate(zip(ours, theirs["items"])):
            check(o, t, f"{where}[{i}]", values)
    elif kind == "py":
        assert type(ours).__name__ == theirs["type"], f"{where}: {type(ours).__name__}, MXNet {theirs['type']}"
        if isinstance(ours, float):
            assert ours == pytest.approx(theirs["value"], rel=1e-5), where
        else:
            assert ours == theirs["value"], where
    elif kind == "numpy_scalar":
        assert ours.item() == pytest.approx(theirs["value"], rel=1e-5), where
    else:
        raise AssertionError(f"{where}: unexpected recorded kind {kind}")


@pytest.mark.parametrize("name", sorted(RECORDED["cases"]))
def test_case_as_mxnet(name):
    case = RECORDED["cases"][name]
    if not case["ok"]:
        with pytest.raises(_ERRORS[case["error"]]):
            run(case["expr"])
        return
    check(run(case["expr"]), case["result"], name)


@pytest.mark.parametrize("name", sorted(RECORDED["random"]))
def test_random_shapes_and_dtypes_as_mxnet(name):
    case = RECORDED["random"][name]
    check(run(case["expr"]), case["result"], name, values=False)


def test_seeded_sampling_repeats():
    npx.random.seed(7)
    first = np.random.uniform(size=(3,)).asnumpy()
    npx.random.seed(7)
    assert (np.random.uniform(size=(3,)).asnumpy() == first).all()


def test_ldexp_of_integers_truncates_the_floating_product():
    # MXNet 1.9.1: ldexp([2, 3, -3, 1], [-1, -1, -2, 2]) on int32 is [1, 1, 0, 4] (a * 2**b, then int32)
    a, b = np.array(onp.array([2, 3, -3, 1], "int32")), np.array(onp.array([-1, -1, -2, 2], "int32"))
    got = np.ldexp(a, b)
    assert got.dtype == onp.int32 and got.asnumpy().tolist() == [1, 1, 0, 4]


def test_svd_takes_only_matrices_with_no_more_rows_than_columns():
    # MXNet 1.9.1's gesvd refuses M > N ("The second to last dimension must be less than or equal ...")
    assert [o.shape for o in np.linalg.svd(np.ones((2, 3)))] == [(2, 2), (2,), (2, 3)]
    with pytest.raises(MXNetError, match="second to last dimension"):
        np.linalg.svd(np.ones((3, 2)))
