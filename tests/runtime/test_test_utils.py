"""``mxnet.test_utils`` on numpy and ``nd.contrib.allclose``, as MXNet 1.9.1 documents them."""
import os

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import test_utils as tu


def test_allclose_is_a_uint8_scalar_like_numpy_allclose():
    a, b = mx.nd.array([1e10, 1e-7]), mx.nd.array([1.00001e10, 1e-8])
    r = mx.nd.contrib.allclose(a, b)
    assert r.shape == () and r.dtype == np.uint8 and r.asnumpy() == 0  # MXNet's docstring example
    assert mx.nd.contrib.allclose(mx.nd.array([1.0, 1e-8]), mx.nd.array([1.000001, 1e-9])).asnumpy() == 1
    nan = mx.nd.array([np.nan])
    assert mx.nd.contrib.allclose(nan, nan).asnumpy() == 1  # equal_nan defaults to True
    assert mx.nd.contrib.allclose(nan, nan, equal_nan=False).asnumpy() == 0
    with pytest.raises(mx.base.MXNetError):
        mx.nd.contrib.allclose(mx.nd.ones((2,)), mx.nd.ones((3,)))


def test_tolerances_default_per_dtype():
    assert tu.get_tols(np.ones(1, np.float32), np.ones(1, np.float64), None, None) == (1e-4, 1e-3)
    assert tu.get_tols(np.ones(1, np.float16), np.ones(1, np.float16), None, None) == (1e-2, 1e-1)
    assert tu.get_tols(np.ones(1, np.int32), np.ones(1, np.int32), None, None) == (0, 0)
    assert tu.get_tols(np.ones(1), np.ones(1), 0.5, {np.dtype(np.float64): 0.25}) == (0.5, 0.25)


def test_assert_almost_equal_accepts_ndarrays_and_names_the_worst_element():
    tu.assert_almost_equal(mx.nd.array([1, 2]), np.array([1, 2.0001], np.float32))
    with pytest.raises(AssertionError, match=r"Location of maximum error: \(1,\), x=2.0+, y=3.0+"):
        tu.assert_almost_equal(np.array([1.0, 2.0]), np.array([1.0, 3.0]), names=("x", "y"))
    with pytest.raises(AssertionError):
        tu.assert_allclose(np.array([1.0]), np.array([1.0 + 1e-6]))  # rtol 1e-7 by default
    assert tu.almost_equal(np.array([1.0]), np.array([1.0 + 1e-6]), rtol=1e-5)
    assert tu.same(mx.nd.array([1, 2]), np.array([1, 2], np.float32)) and not tu.same(np.ones(2), np.ones(3))


def test_random_helpers_and_dense_rand_ndarray():
    np.random.seed(0)
    s2, s3, sn = tu.rand_shape_2d(), tu.rand_shape_3d(4, 5, 6), tu.rand_shape_nd(4, dim=3)
    assert len(s2) == 2 and all(1 <= d <= 10 for d in s2)
    assert s3[0] <= 4 and s3[1] <= 5 and s3[2] <= 6 and len(sn) == 4 and max(sn) <= 3
    x = tu.rand_ndarray((3, 4), dtype="float64")
    assert isinstance(x, mx.nd.NDArray) and x.shape == (3, 4) and x.dtype == np.float64
    with pytest.raises(NotImplementedError, match="csr"):
        tu.rand_ndarray((3, 4), stype="csr")
    assert tu.random_arrays((2, 3)).dtype == np.float32 and len(tu.random_arrays((1,), (2,))) == 2


def test_default_context_can_be_set():
    assert tu.default_context() == mx.cpu()
    tu.set_default_context(mx.cpu(1))
    try:
        assert tu.default_context() == mx.cpu(1)
    finally:
        tu.set_default_context(mx.cpu())


def test_check_symbolic_forward_and_simple_forward():
    lhs, rhs = mx.sym.var("lhs"), mx.sym.var("rhs")
    dot = mx.sym.dot(lhs, rhs)
    m1, m2 = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [7, 8]])
    tu.check_symbolic_forward(dot, [m1, m2], [np.array([[19, 22], [43, 50]])])  # MXNet's docstring example
    tu.check_symbolic_forward(dot, {"lhs": m1, "rhs": m2}, {dot.list_outputs()[0]: m1 @ m2})
    with pytest.raises(AssertionError):
        tu.check_symbolic_forward(dot, [m1, m2], [np.zeros((2, 2))])
    with pytest.raises(ValueError, match="do not match"):
        tu.check_symbolic_forward(dot, {"lhs": m1}, [m1])
    assert tu.simple_forward(lhs * 2, lhs=np.array([1.0, 2.0])).tolist() == [2, 4]


def test_check_consistency_compares_dtypes_forward_and_backward():
    x = mx.sym.var("x")
    s = mx.sym.tanh(x)
    ctx_list = [{"ctx": mx.cpu(0), "x": (2, 3), "type_dict": {"x": np.float32}},
                {"ctx": mx.cpu(0), "x": (2, 3), "type_dict": {"x": np.float64}}]
    gt = tu.check_consistency(s, ctx_list, grad_req="null")
    assert gt[s.list_outputs()[0]].dtype == np.float64 and "x" not in gt
    gt = tu.check_consistency(s, ctx_list)
    out, grad = gt[s.list_outputs()[0]].asnumpy(), gt["x"].asnumpy()
    # the head gradient is the first (float32) run's output
    np.testing.assert_allclose(grad, (1 - out ** 2) * out, rtol=1e-6)
    blocked = mx.sym.broadcast_mul(mx.sym.BlockGrad(x), mx.sym.ones_like(x), name="out")  # no gradient
    plain = mx.sym.broadcast_mul(x, mx.sym.ones_like(x), name="out")  # the same forward
    same_ctx = [{"ctx": mx.cpu(0), "x": (2, 3)}] * 2
    tu.check_consistency([blocked, blocked], same_ctx)
    with pytest.raises(AssertionError, match="Items are not equal"):
        tu.check_consistency([plain, blocked], same_ctx)


def test_gradient_checks_run_the_backward_pass():
    x, w = mx.sym.var("x"), mx.sym.var("w")
    s = mx.sym.FullyConnected(mx.sym.tanh(x), w, num_hidden=3, no_bias=True)
    rng = np.random.RandomState(0)
    loc = {"x": rng.rand(2, 4), "w": rng.rand(3, 4)}
    tu.check_numeric_gradient(s, loc, numeric_eps=1e-3, rtol=1e-2, atol=1e-3)
    tu.check_numeric_gradient(s, loc, grad_nodes={"x": "add", "w": "write"}, numeric_eps=1e-3, rtol=1e-2, atol=1e-3)
    og = rng.rand(2, 3)
    expected = {"x": (og @ loc["w"]) * (1 - np.tanh(loc["x"]) ** 2), "w": og.T @ np.tanh(loc["x"])}
    tu.check_symbolic_backward(s, loc, [og], expected, rtol=1e-4, atol=1e-5)
    tu.check_symbolic_backward(s, loc, [og], expected, rtol=1e-4, atol=1e-5, grad_req="add")
    with pytest.raises(AssertionError):
        tu.check_symbolic_backward(s, loc, [og], {"x": expected["x"] + 1, "w": expected["w"]}, rtol=1e-4, atol=1e-5)
    approx = tu.numeric_grad(s.bind(mx.cpu(), args={k: mx.nd.array(v) for k, v in loc.items()}),
                             {"x": loc["x"].astype(np.float32).copy(), "w": loc["w"].astype(np.float32).copy()},
                             eps=1e-2)
    np.testing.assert_allclose(approx["w"], np.ones((2, 3)).T @ np.tanh(loc["x"]), rtol=1e-2)


def test_environment_sets_and_restores():
    os.environ.pop("HYB_TU_VAR", None)
    with tu.environment("HYB_TU_VAR", "1"):
        assert os.environ["HYB_TU_VAR"] == "1"
        with tu.environment({"HYB_TU_VAR": None}):
            assert "HYB_TU_VAR" not in os.environ
        assert os.environ["HYB_TU_VAR"] == "1"
    assert "HYB_TU_VAR" not in os.environ


def test_assert_exception_and_small_helpers():
    tu.assert_exception(int, ValueError, "x")
    with pytest.raises(AssertionError):
        tu.assert_exception(int, ValueError, "1")
    assert tu.np_reduce(np.ones((2, 3, 4)), (0, 2), True, np.sum).shape == (1, 3, 1)
    assert tu.collapse_sum_like(np.ones((2, 3)), (1, 3)).tolist() == [[2, 2, 2]]
    assert tu.same_array(*(lambda a: (a, a))(mx.nd.ones((2,))))
