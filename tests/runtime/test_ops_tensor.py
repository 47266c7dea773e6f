"""Focused specs of the tensor operator families (MXNet 1.9.1 semantics), beyond the recorded fixtures."""
from __future__ import annotations

import numpy as np
import pytest

from hybridize.runtime import nd, sym
from hybridize.runtime.base import ShapeError
from hybridize.runtime.ops import all_ops, find_op, get_op
from hybridize.runtime.ops.tensor_shape import infer_reshape


def _a(shape, dtype=np.float32):
    return nd.array(np.arange(int(np.prod(shape))).reshape(shape), dtype=dtype)


def _ops(symbol):
    return [n.op.name for n in symbol.graph().nodes if n.op is not None]


# -- Reshape codes (the examples of MXNet's Reshape documentation) ------------------------------------
@pytest.mark.parametrize("dshape,shape,reverse,expected", [
    ((2, 3, 4), (4, 0, 2), False, (4, 3, 2)),
    ((2, 3, 4), (2, 0, 0), False, (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), False, (6, 1, 4)),
    ((2, 3, 4), (3, -1, 8), False, (3, 1, 8)),
    ((2, 3, 4), (-1,), False, (24,)),
    ((2, 3, 4), (-2,), False, (2, 3, 4)),
    ((2, 3, 4), (2, -2), False, (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), False, (2, 3, 4, 1, 1)),
    ((2, 3, 4), (-3, 4), False, (6, 4)),
    ((2, 3, 4, 5), (-3, -3), False, (6, 20)),
    ((2, 3, 4), (0, -3), False, (2, 12)),
    ((2, 3, 4), (-3, -2), False, (6, 4)),
    ((2, 3, 4), (-4, 1, 2, -2), False, (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), False, (2, 1, 3, 4)),
    ((10, 5, 4), (-1, 0), False, (40, 5)),
    ((10, 5, 4), (-1, 0), True, (50, 4)),
])
def test_reshape_codes(dshape, shape, reverse, expected):
    assert infer_reshape(shape, dshape, reverse) == expected
    x = _a(dshape)
    y = nd.reshape(x, shape=shape, reverse=reverse)
    assert y.shape == expected
    np.testing.assert_array_equal(y.asnumpy().reshape(-1), x.asnumpy().reshape(-1))
    s = sym.reshape(sym.var("x"), shape=shape, reverse=reverse)
    assert s.infer_shape(x=dshape)[1] == [expected]


def test_reshape_errors_and_target_shape():
    with pytest.raises(ShapeError):
        infer_reshape((5, -1), (2, 3, 4))
    with pytest.raises(ShapeError):
        infer_reshape((-1, -1), (2, 3))
    y = nd.Reshape(_a((2, 3, 4)), target_shape=(0, 4), keep_highest=False)
    assert y.shape == (6, 4)
    # unknown input dimensions (0) stay unknown through -1
    assert infer_reshape((0, -1), (0, 12)) == (0, 0)


def test_reshape_fluent_spellings():
    x = _a((2, 3, 4))
    for y in (x.reshape((0, -1)), x.reshape(0, -1), x.reshape(shape=(0, -1))):
        assert y.shape == (2, 12)
    assert x.reshape((-1, 0), reverse=True).shape == (6, 4)
    s = sym.var("x")
    for t in (s.reshape((0, -1)), s.reshape(0, -1), s.reshape(shape=(0, -1))):
        assert t.infer_shape(x=(2, 3, 4))[1] == [(2, 12)]
    assert s.reshape((-1, 0), True).infer_shape(x=(2, 3, 4))[1] == [(6, 4)]


def test_reshape_like_ranges():
    x = _a((30, 12))
    y = nd.zeros((4, 2, 2, 3))
    assert nd.reshape_like(x, y, lhs_begin=-1, rhs_begin=1).shape == (30, 2, 2, 3)
    assert nd.reshape_like(x, nd.zeros((10, 36))).shape == (10, 36)


# -- slicing --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("begin,end,step", [
    ((None, 3), (None, 0), (1, -1)),
    ((None,), (None,), (-1,)),
    ((-1, None), (None, None), (-2, 2)),
    ((0, 1), (2, 3), ()),
    ((1, -2), (None, None), (None, None)),
    ((5,), (None,), (1,)),
    ((None, None), (None, 10), (None, 3)),
])
def test_slice_matches_python(begin, end, step):
    x = _a((4, 5))
    ref = x.asnumpy()[tuple(slice(b, e, s) for b, e, s in zip(begin, end, step or (None,) * len(begin)))]
    y = nd.slice(x, begin=begin, end=end, step=step)
    np.testing.assert_array_equal(y.asnumpy(), ref)
    s = sym.slice(sym.var("x"), begin=begin, end=end, step=step)
    assert s.infer_shape(x=(4, 5))[1] == [ref.shape]
    assert x.slice(begin=begin, end=end, step=step).shape == ref.shape


def test_slice_attr_strings_roundtrip():
    op = get_op("slice")
    attrs = op.parse_attrs({"begin": "(None, 3)", "end": "(None, 0)", "step": "(1, -1)"})
    assert attrs == {"begin": (None, 3), "end": (None, 0), "step": (1, -1)}
    assert op.format_attrs(attrs)["begin"] == "(None, 3)"


def test_slice_axis_and_like():
    x = _a((3, 6))
    np.testing.assert_array_equal(nd.slice_axis(x, axis=1, begin=1, end=None).asnumpy(), x.asnumpy()[:, 1:])
    np.testing.assert_array_equal(x.slice_axis(axis=-1, begin=-3, end=-1).asnumpy(), x.asnumpy()[:, -3:-1])
    assert nd.slice_like(x, nd.zeros((2, 4))).shape == (2, 4)
    assert nd.slice_like(x, nd.zeros((2, 4)), axes=(1,)).shape == (3, 4)


# -- split / concat --------------------------------------------------------------------------------------
def test_split_multi_output_symbol_indexing():
    x = sym.var("x")
    parts = sym.split(x, num_outputs=3, axis=1, name="sp")
    assert len(parts) == 3
    assert parts.list_outputs() == ["sp_output0", "sp_output1", "sp_output2"]
    y = parts[1] + parts[2]
    assert _ops(y) == ["SliceChannel", "elemwise_add"]
    assert y.infer_shape(x=(2, 6))[1] == [(2, 2)]
    data = _a((2, 6))
    (out,) = y.eval(x=data)
    ref = data.asnumpy()
    np.testing.assert_array_equal(out.asnumpy(), ref[:, 2:4] + ref[:, 4:6])
    outs = data.split(num_outputs=2, axis=0, squeeze_axis=True)
    assert [o.shape for o in outs] == [(6,), (6,)]


def test_split_v2_and_concat_stack():
    x = _a((2, 7))
    outs = nd._internal._split_v2(x, indices=(0, 2, 5), axis=1)
    assert [o.shape for o in outs] == [(2, 2), (2, 3), (2, 2)]
    outs = nd._internal._split_v2(_a((6, 2)), indices=(), sections=3, axis=0)
    assert [o.shape for o in outs] == [(2, 2)] * 3
    assert nd.concat(x, x, dim=0).shape == (4, 7)
    assert nd.Concat(x, x, x, dim=1).shape == (2, 21)
    assert nd.stack(x, x, axis=-1).shape == (2, 7, 2)
    c = sym.concat(sym.var("a"), sym.var("b"), dim=1)
    assert c.infer_shape(a=(2, 3), b=(2, 4))[1] == [(2, 7)]


# -- arithmetic dunders ------------------------------------------------------------------------------------
def test_ndarray_arithmetic():
    a = nd.array([[1.0, -2.5], [3.0, 4.0]])
    b = nd.array([[2.0, 2.0], [-2.0, 1.0]])
    A, B = a.asnumpy(), b.asnumpy()
    cases = [
        (a + b, A + B), (a - 1, A - 1), (1 - a, 1 - A), (a * b, A * B), (a / b, A / B), (2 / a, 2 / A),
        (-a, -A), (a ** 2, A ** 2), (2 ** a, 2 ** A), (a % b, np.mod(A, B)), (7 % b, np.mod(7, B)),
        (a > 0, (A > 0).astype(np.float32)), (a == b, (A == B).astype(np.float32)),
        (a != b, (A != B).astype(np.float32)), (a <= 1, (A <= 1).astype(np.float32)),
        (a >= b, (A >= B).astype(np.float32)), (abs(a), np.abs(A)),
        (a + nd.array([10.0, 20.0]), A + np.array([10.0, 20.0])),  # NDArray + NDArray broadcasts
    ]
    for ours, ref in cases:
        assert ours.dtype == np.float32
        np.testing.assert_allclose(ours.asnumpy(), ref, rtol=1e-6)
    c = a.copy()
    c += 1
    np.testing.assert_allclose(c.asnumpy(), A + 1)


def test_symbol_arithmetic_op_names():
    x, y = sym.var("x"), sym.var("y")
    expect = {
        "elemwise_add": x + y, "elemwise_sub": x - y, "elemwise_mul": x * y, "elemwise_div": x / y,
        "_mod": x % y, "_power": x ** y, "_plus_scalar": x + 1, "_minus_scalar": x - 1,
        "_rminus_scalar": 1 - x, "_mul_scalar": 2 * x, "_div_scalar": x / 2, "_rdiv_scalar": 2 / x,
        "_power_scalar": x ** 2, "_rpower_scalar": 2 ** x, "_mod_scalar": x % 2, "_rmod_scalar": 2 % x,
        "_greater": x > y, "_greater_scalar": x > 0, "_equal": x == y, "_not_equal_scalar": x != 1,
        "_lesser_equal": x <= y, "_lesser_scalar": x < 0,
    }
    for name, s in expect.items():
        assert _ops(s) == [name], (name, _ops(s))
    assert (x + y).name.startswith("_plus")
    assert _ops(-x) == ["_mul_scalar"]
    data = {"x": nd.array([1.0, 2.0]), "y": nd.array([3.0, 2.0])}
    np.testing.assert_allclose(((x + y) * 2 - x / y).eval(**data)[0].asnumpy(), [7.6666665, 7.0])
    np.testing.assert_allclose((x == y).eval(**data)[0].asnumpy(), [0.0, 1.0])


def test_every_arithmetic_name_is_registered():
    from hybridize.runtime import ndarray as ndmod
    from hybridize.runtime import symbol as symmod
    names = set()
    for table in (ndmod._ARITH, ndmod._COMPARE, symmod._ARITH, symmod._COMPARE):
        for row in table.values():
            names.update(n for n in row if n and not n.endswith("scalar") or n and find_op(n) is not None)
    for table in (ndmod._ARITH, ndmod._COMPARE):
        for row in table.values():
            names.update(n for n in row if n)
    for row in symmod._ARITH.values():
        names.update((row[0], row[2], row[4]))
    for row in symmod._COMPARE.values():
        names.update(row)
    missing = sorted(n for n in names if find_op(n) is None)
    assert not missing, missing


def test_binary_semantics():
    a = nd.array([-7.0, 7.0, -7.0, 5.0])
    b = nd.array([2.0, -2.0, -2.0, 0.0])
    np.testing.assert_array_equal(nd.broadcast_mod(a, b).asnumpy(), [1.0, -1.0, -1.0, 0.0])
    i = nd.array([5, 7], dtype="int32")
    assert (i / 2).dtype == np.int32
    np.testing.assert_array_equal((i / 2).asnumpy(), [2, 3])
    np.testing.assert_array_equal((i + 1.7).asnumpy(), [6, 8])  # MXNet casts the scalar to the dtype
    np.testing.assert_array_equal(nd.broadcast_logical_and(nd.array([0, 2, 3]), nd.array([1, 0, 5])).asnumpy(),
                                  [0, 0, 1])
    np.testing.assert_allclose(nd.broadcast_hypot(nd.array([3.0]), nd.array([4.0])).asnumpy(), [5.0])
    with pytest.raises(ShapeError):
        sym.elemwise_add(sym.var("a"), sym.var("b")).infer_shape(a=(2, 3), b=(3, 2))


def test_unary_semantics():
    x = nd.array([-2.5, -0.5, 0.5, 1.5, 2.5])
    np.testing.assert_array_equal(nd.round(x).asnumpy(), [-3, -1, 1, 2, 3])  # half away from zero
    np.testing.assert_array_equal(nd.rint(x).asnumpy(), [-3, -1, 0, 1, 2])  # MXNet 1.9.1: halfway cases go down
    np.testing.assert_array_equal(nd.fix(x).asnumpy(), [-2, -0, 0, 1, 2])
    np.testing.assert_allclose(nd.erfinv(nd.erf(x)).asnumpy(), x.asnumpy(), rtol=1e-5)
    np.testing.assert_allclose(nd.gamma(nd.array([5.0, 0.5])).asnumpy(), [24.0, np.sqrt(np.pi)], rtol=1e-6)
    np.testing.assert_allclose(nd.gammaln(nd.array([10.0])).asnumpy(), [np.log(362880.0)], rtol=1e-6)
    np.testing.assert_allclose(nd.hard_sigmoid(x).asnumpy(), np.clip(0.2 * x.asnumpy() + 0.5, 0, 1))
    np.testing.assert_array_equal(nd.logical_not(nd.array([0, 3])).asnumpy(), [1, 0])
    assert nd.cast(x, dtype="int32").dtype == np.int32
    np.testing.assert_array_equal(nd.Cast(x, "int32").asnumpy(), [-2, 0, 0, 1, 2])
    assert nd.sqrt(nd.array([4], dtype="int32")).dtype == np.int32
    np.testing.assert_array_equal(nd.identity(x).asnumpy(), x.asnumpy())
    assert find_op("identity") is get_op("_copy") and find_op("stop_gradient") is get_op("BlockGrad")


def test_clip_where_add_n():
    x = nd.array([[-1.0, 3.0, 7.0]])
    np.testing.assert_array_equal(nd.clip(x, 0, 6).asnumpy(), [[0, 3, 6]])
    np.testing.assert_array_equal(x.clip(0, 6).asnumpy(), [[0, 3, 6]])
    cond = nd.array([1.0, 0.0])
    a, b = nd.ones((2, 2)), nd.zeros((2, 2))
    np.testing.assert_array_equal(nd.where(cond, a, b).asnumpy(), [[1, 1], [0, 0]])
    assert nd.add_n(a, a, a).asnumpy().sum() == 12
    assert nd.ElementWiseSum(a, b).asnumpy().sum() == 4
    s = sym.add_n(sym.var("p"), sym.var("q"))
    assert s.list_arguments() == ["p", "q"]


# -- reductions -----------------------------------------------------------------------------------------
def test_reductions():
    x = _a((2, 3, 4))
    X = x.asnumpy()
    assert nd.sum(x).shape == (1,)
    assert nd.sum(x, keepdims=True).shape == (1, 1, 1)
    np.testing.assert_allclose(x.sum(axis=1).asnumpy(), X.sum(axis=1))
    np.testing.assert_allclose(nd.sum(x, axis=(0, 2), exclude=True).asnumpy(), X.sum(axis=1))
    np.testing.assert_allclose(nd.mean(x, axis=-1, keepdims=True).asnumpy(), X.mean(axis=-1, keepdims=True))
    np.testing.assert_allclose(nd.prod(x + 1, axis=0).asnumpy(), (X + 1).prod(axis=0))
    np.testing.assert_allclose(nd.nansum(nd.array([1.0, np.nan, 2.0])).asnumpy(), [3.0])
    np.testing.assert_allclose(nd.max(x, axis=(1, 2)).asnumpy(), X.max(axis=(1, 2)))
    np.testing.assert_allclose(nd.norm(x).asnumpy(), [np.sqrt((X ** 2).sum())], rtol=1e-6)
    np.testing.assert_allclose(nd.norm(x, ord=1, axis=2).asnumpy(), np.abs(X).sum(axis=2))
    am = nd.argmax(x, axis=1)
    assert am.dtype == np.float32 and am.shape == (2, 4)
    assert nd.argmax(x).shape == (1,)
    np.testing.assert_array_equal(nd.argmax_channel(x).asnumpy(), np.full((2, 3), 3))
    assert sym.sum(sym.var("x"), axis=1, exclude=True).infer_shape(x=(2, 3, 4))[1] == [(3,)]


def test_topk_sort_argsort():
    x = nd.array([[3.0, 1.0, 2.0, 3.0], [0.0, 5.0, 4.0, 1.0]])
    v, i = nd.topk(x, k=2, ret_typ="both")
    np.testing.assert_array_equal(v.asnumpy(), [[3, 3], [5, 4]])
    np.testing.assert_array_equal(i.asnumpy(), [[0, 3], [1, 2]])
    np.testing.assert_array_equal(nd.topk(x, k=1).asnumpy(), [[0], [1]])
    np.testing.assert_array_equal(nd.topk(x, k=1, ret_typ="mask").asnumpy(), [[1, 0, 0, 0], [0, 1, 0, 0]])
    np.testing.assert_array_equal(nd.topk(x, k=2, is_ascend=True, ret_typ="value").asnumpy(), [[1, 2], [0, 1]])
    assert nd.topk(x, k=2, dtype="int32").dtype == np.int32
    np.testing.assert_array_equal(nd.sort(x, is_ascend=False).asnumpy(), -np.sort(-x.asnumpy()))
    np.testing.assert_array_equal(x.argsort(axis=0).asnumpy(), [[1, 0, 0, 1], [0, 1, 1, 0]])
    assert len(sym.topk(sym.var("x"), ret_typ="both", k=2)) == 2


# -- indexing -------------------------------------------------------------------------------------------
def test_take_pick_one_hot():
    a = _a((3, 2))
    idx = nd.array([[0, 5], [-1, 1]])
    assert nd.take(a, idx).shape == (2, 2, 2)
    np.testing.assert_array_equal(nd.take(a, nd.array([4]), mode="clip").asnumpy(), [[4, 5]])
    np.testing.assert_array_equal(nd.take(a, nd.array([4]), mode="wrap").asnumpy(), [[2, 3]])
    np.testing.assert_array_equal(nd.take(a, nd.array([1]), axis=1).asnumpy(), [[1], [3], [5]])
    np.testing.assert_array_equal(nd.pick(a, nd.array([0, 1, 1])).asnumpy(), [0, 3, 5])
    assert nd.pick(a, nd.array([0, 1, 1]), keepdims=True).shape == (3, 1)
    np.testing.assert_array_equal(nd.one_hot(nd.array([1, 3, -1]), depth=3, on_value=5, off_value=-1).asnumpy(),
                                  [[-1, 5, -1], [-1, -1, -1], [-1, -1, -1]])
    assert nd.one_hot(nd.array([1]), 4, dtype="int32").dtype == np.int32


def test_gather_scatter_nd():
    data = _a((2, 3))
    idx = nd.array([[1, 0], [2, 1]])
    np.testing.assert_array_equal(nd.gather_nd(data, idx).asnumpy(), [5, 1])
    out = nd.scatter_nd(nd.array([5.0, 1.0]), idx, shape=(2, 3))
    np.testing.assert_array_equal(out.asnumpy(), [[0, 1, 0], [0, 0, 5]])
    np.testing.assert_array_equal(nd.batch_take(data, nd.array([2, 0])).asnumpy(), [2, 3])


# -- linear algebra ------------------------------------------------------------------------------------------
def test_dot_nd_semantics():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    np.testing.assert_allclose(nd.dot(nd.array(a), nd.array(b)).asnumpy(), np.tensordot(a, b, 1), rtol=1e-5)
    # transpose_a contracts the lhs's first axis; transpose_b the rhs's last axis
    c = rng.standard_normal((2, 5)).astype(np.float32)
    r = nd.dot(nd.array(a), nd.array(c), transpose_a=True).asnumpy()
    np.testing.assert_allclose(r, np.tensordot(a, c, axes=([0], [0])), rtol=1e-5, atol=1e-6)
    d = rng.standard_normal((6, 4)).astype(np.float32)
    r = nd.dot(nd.array(a), nd.array(d), transpose_b=True).asnumpy()
    np.testing.assert_allclose(r, np.tensordot(a, d, axes=([2], [1])), rtol=1e-5, atol=1e-6)
    assert nd.dot(nd.array([1.0, 2.0]), nd.array([3.0, 4.0])).shape == (1,)
    assert sym.dot(sym.var("a"), sym.var("b")).infer_shape(a=(2, 3, 4), b=(4, 5))[1] == [(2, 3, 5)]
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    y = rng.standard_normal((2, 3, 5)).astype(np.float32)
    r = nd.batch_dot(nd.array(x), nd.array(y), transpose_a=True).asnumpy()
    np.testing.assert_allclose(r, np.matmul(x.transpose(0, 2, 1), y), rtol=1e-5, atol=1e-6)
    z = rng.standard_normal((2, 5, 4)).astype(np.float32)
    r = nd.linalg.gemm2(nd.array(x), nd.array(z), transpose_b=True, alpha=2.0).asnumpy()
    np.testing.assert_allclose(r, 2 * np.matmul(x, z.transpose(0, 2, 1)), rtol=1e-5, atol=1e-5)


# -- layout --------------------------------------------------------------------------------------------------
def test_layout_ops():
    x = _a((2, 3, 4))
    X = x.asnumpy()
    np.testing.assert_array_equal(x.transpose().asnumpy(), X.T)
    np.testing.assert_array_equal(x.transpose(axes=(1, 0, 2)).asnumpy(), X.transpose(1, 0, 2))
    np.testing.assert_array_equal(nd.swapaxes(x, 0, 2).asnumpy(), X.swapaxes(0, 2))
    assert x.expand_dims(1).shape == (2, 1, 3, 4)
    assert x.expand_dims(-1).shape == (2, 3, 4, 1)
    assert nd.squeeze(nd.zeros((1, 3, 1))).shape == (3,)
    assert nd.squeeze(nd.zeros((1, 1))).shape == (1,)
    assert x.flatten().shape == (2, 12)
    np.testing.assert_array_equal(nd.flip(x, axis=1).asnumpy(), X[:, ::-1])
    np.testing.assert_array_equal(nd.reverse(x, axis=(0, 2)).asnumpy(), X[::-1, :, ::-1])
    assert nd.tile(x, reps=(2,)).shape == (2, 3, 8)
    assert nd.tile(nd.zeros((3,)), reps=(2, 2)).shape == (2, 6)
    assert nd.repeat(x, repeats=2).shape == (48,)
    assert nd.broadcast_to(nd.zeros((1, 3)), shape=(4, 0)).shape == (4, 3)
    assert nd.broadcast_axis(nd.zeros((1, 3, 1)), axis=(0, 2), size=(2, 5)).shape == (2, 3, 5)
    assert nd.broadcast_axes(nd.zeros((1, 3)), axis=0, size=4).shape == (4, 3)
    assert nd.broadcast_like(nd.zeros((1, 3)), nd.zeros((5, 2)), lhs_axes=(0,), rhs_axes=(0,)).shape == (5, 3)
    sa = nd.shape_array(x)
    assert sa.dtype == np.int64 and sa.asnumpy().tolist() == [2, 3, 4]
    assert nd.size_array(x).asnumpy().tolist() == [24]
    y = _a((1, 8, 2, 3))
    np.testing.assert_array_equal(nd.space_to_depth(nd.depth_to_space(y, 2), 2).asnumpy(), y.asnumpy())
    assert nd.depth_to_space(y, 2).shape == (1, 2, 4, 6)
    np.testing.assert_array_equal(nd.diag(nd.array([1.0, 2.0])).asnumpy(), np.diag([1.0, 2.0]))
    np.testing.assert_array_equal(nd.diag(x, k=1).asnumpy(), np.diagonal(X, 1, 0, 1))
    np.testing.assert_array_equal(nd.contrib.arange_like(nd.zeros((2, 3)), axis=1).asnumpy(), [0, 1, 2])


def test_fluent_methods_on_symbol():
    x = sym.var("x")
    y = x.expand_dims(1).sum(axis=1).transpose().flatten().clip(0, 6).astype("int32").slice_axis(
        axis=0, begin=0, end=2)
    assert _ops(y) == ["expand_dims", "sum", "transpose", "Flatten", "clip", "Cast", "slice_axis"]
    assert y.infer_shape(x=(3, 4))[1] == [(2, 3)]
    assert y.infer_type(x=np.float32)[1] == [np.int32]
    out = y.eval(x=_a((3, 4)))[0]
    assert out.dtype == np.int32 and out.shape == (2, 3)
    parts = x.split(num_outputs=2, axis=1)
    assert len(parts) == 2


# -- creation and random ------------------------------------------------------------------------------------
def test_creation_ops_one_source():
    assert nd.zeros((2, 3)).dtype == np.float32
    assert nd.ones(3, dtype="int32").asnumpy().tolist() == [1, 1, 1]
    assert nd.full((2,), 7).asnumpy().tolist() == [7, 7]
    assert nd.arange(3).asnumpy().tolist() == [0, 1, 2]
    assert nd.arange(1, 3, 0.5, repeat=2).shape == (8,)
    assert nd.eye(3, k=1).asnumpy()[0, 1] == 1
    z = sym.zeros((2, 3))
    assert _ops(z) == ["_zeros"] and z.infer_shape()[1] == [(2, 3)]
    assert _ops(sym.arange(5)) == ["_arange"]
    np.testing.assert_array_equal(sym.full((2,), 3.0).eval()[0].asnumpy(), [3, 3])


def test_random_seeded_and_shaped():
    nd.random.seed(7)
    a = nd.random.uniform(0, 1, shape=(3, 2))
    nd.random.seed(7)
    b = nd.random.uniform(low=0, high=1, shape=(3, 2))
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert a.dtype == np.float32 and ((a.asnumpy() >= 0) & (a.asnumpy() < 1)).all()
    assert nd.random.normal(0, 1, (4,)).shape == (4,)
    assert nd.random.normal(nd.zeros((2,)), nd.ones((2,)), shape=(3,)).shape == (2, 3)
    r = nd.random.randint(0, 5, shape=(10,))
    assert r.dtype == np.int32 and r.asnumpy().max() < 5
    assert nd.random_normal(shape=(2,), dtype="float64").dtype == np.float64
    s = sym.random.uniform(shape=(2, 2))
    assert _ops(s) == ["_random_uniform"] and s.infer_shape()[1] == [(2, 2)]


def test_registry_has_no_duplicate_meanings():
    names = {op.name for op in all_ops()}
    for n in ("elemwise_add", "broadcast_add", "_plus_scalar", "Reshape", "SliceChannel", "Concat", "add_n",
              "_copy", "BlockGrad", "Cast", "reverse", "broadcast_axis", "_zeros", "_random_uniform", "dot"):
        assert n in names
    assert get_op("split") is get_op("SliceChannel") and get_op("flip") is get_op("reverse")


def test_python_level_functions():
    x = nd.array([1.0, -2.0, 3.0])
    np.testing.assert_array_equal(nd.maximum(x, 0).asnumpy(), [1, 0, 3])
    np.testing.assert_array_equal(nd.minimum(0, x).asnumpy(), [0, -2, 0])
    np.testing.assert_array_equal(nd.power(2, x).asnumpy(), [2, 0.25, 8])
    np.testing.assert_array_equal(nd.greater(0, x).asnumpy(), [0, 1, 0])  # reversed: lesser_scalar
    np.testing.assert_array_equal(nd.subtract(1, x).asnumpy(), [0, 3, -2])
    assert nd.maximum(1, 2) == 2
    assert [p.shape for p in nd.split_v2(nd.zeros((2, 6)), (2, 3), axis=1)] == [(2, 2), (2, 1), (2, 3)]
    assert [p.shape for p in x.split_v2(3)] == [(1,)] * 3
    a, b = sym.var("a"), sym.var("b")
    assert sym.maximum(a, b).name.startswith("_maximum") and _ops(sym.maximum(a, b)) == ["_maximum"]
    assert _ops(sym.maximum(a, 1)) == ["_maximum_scalar"] and sym.maximum(a, 1).name.startswith("_maximumscalar")
    assert _ops(sym.pow(2, a)) == ["_rpower_scalar"]
    assert len(sym.split_v2(a, 2)) == 2


def test_ndarray_fluent_methods():
    x = _a((2, 3))
    X = x.asnumpy()
    np.testing.assert_array_equal(x.sum(axis=1).asnumpy(), X.sum(axis=1))
    np.testing.assert_array_equal(x.max().asnumpy(), [5])
    np.testing.assert_array_equal(x.argmax(axis=1).asnumpy(), [2, 2])
    np.testing.assert_array_equal(x.one_hot(6).asnumpy()[1, 1], np.eye(6)[4])
    np.testing.assert_array_equal(x.square().asnumpy(), X ** 2)
    np.testing.assert_array_equal(x.swapaxes(0, 1).asnumpy(), X.T)
    np.testing.assert_array_equal(x.tile((1, 2)).asnumpy(), np.tile(X, (1, 2)))
    np.testing.assert_array_equal(x.zeros_like().asnumpy(), np.zeros_like(X))
    np.testing.assert_array_equal(x.expand_dims(0).broadcast_to((2, 2, 3)).asnumpy(), np.broadcast_to(X, (2, 2, 3)))
    assert x.astype("int32").dtype == np.int32
    assert x.T.shape == (3, 2)
    assert [p.shape for p in x.split(3, axis=1)] == [(2, 1)] * 3


def test_misc_tensor_ops():
    x = nd.array([[1.0, 2.0], [3.0, 5.0]])
    mean, var = nd.moments(x, axes=(1,))
    np.testing.assert_allclose(mean.asnumpy(), [1.5, 4.0])
    np.testing.assert_allclose(var.asnumpy(), [0.25, 1.0])
    np.testing.assert_allclose(nd.log_sigmoid(x).asnumpy(), -np.log1p(np.exp(-x.asnumpy())), rtol=1e-6)
    np.testing.assert_allclose(nd.smooth_l1(nd.array([0.5, -2.0]), scalar=1.0).asnumpy(), [0.125, 1.5])
    a, b = nd.amp_multicast(x, x.astype("float16"), num_outputs=2)
    assert a.dtype == np.float32 and b.dtype == np.float32
    np.testing.assert_array_equal(nd.contrib.boolean_mask(x, nd.array([0, 1])).asnumpy(), [[3, 5]])
    np.testing.assert_array_equal(nd.ravel_multi_index(nd.array([[1, 0], [1, 1]]), shape=(2, 3)).asnumpy(), [4, 1])
    np.testing.assert_array_equal(nd.unravel_index(nd.array([4, 1]), shape=(2, 3)).asnumpy(), [[1, 0], [1, 1]])
    assert nd.contrib.index_array(x).dtype == np.int64
    assert _ops(abs(sym.var("x"))) == ["abs"]


def test_imperative_results_own_their_memory():
    x = nd.array([[1.0, 2.0], [3.0, 4.0]])
    y = x.T
    y += 1  # MXNet's transpose returns a new array
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2], [3, 4]])
    z = nd.broadcast_to(nd.array([[1.0, 2.0]]), shape=(2, 2))
    z += 1  # not a read-only broadcast view
    np.testing.assert_array_equal(z.asnumpy(), [[2, 3], [2, 3]])
    first, _ = x.split(2, axis=0)
    first[:] = 0
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2], [3, 4]])
    r = x.reshape((4,))  # NDArray.reshape is a view in MXNet
    r[0] = 100
    assert x.asnumpy()[0, 0] == 100


def test_linspace_moveaxis():
    np.testing.assert_allclose(nd.linspace(0, 1, 5).asnumpy(), np.linspace(0, 1, 5))
    np.testing.assert_allclose(sym.linspace(0, 1, 3, endpoint=False).eval()[0].asnumpy(), [0, 1 / 3, 2 / 3],
                               rtol=1e-6)
    assert nd.moveaxis(nd.zeros((2, 3, 4)), [0, 1], [-1, -2]).shape == (4, 3, 2)


def test_partial_shape_inference():
    # unknown dimensions (0) propagate; Reshape fills one unknown input dim from a known output (as MXNet)
    x = sym.var("x", shape=(0, 3))
    assert sym.reshape(x, shape=(4, 6)).infer_shape() == ([(8, 3)], [(4, 6)], [])
    a, b = sym.var("a"), sym.var("b")
    args, outs, _ = (a + b).infer_shape(a=(2, 3))
    assert args == [(2, 3), (2, 3)] and outs == [(2, 3)]
    assert sym.Flatten(sym.var("d", shape=(0, 3, 4))).infer_shape_partial()[1] == [(0, 12)]
    c = sym.concat(sym.var("p"), sym.var("q"), dim=1)
    assert c.infer_shape(p=(2, 3), q=(2, 5))[1] == [(2, 8)]
