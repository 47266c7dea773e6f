"""The runtime's stand-ins for NumPy functions newer than MXNet 1.9.1's CI NumPy (numpy<1.20) give what
NumPy's own give, so MXNet's unit tests can run against the runtime in MXNet's own environment; the
stand-ins are exercised here on any NumPy by calling them directly."""
import gc

import numpy as np
import pytest

from hybridize.runtime import _ctypes_dlpack, _interop
from hybridize.runtime import ndarray as nd
from hybridize.runtime.ops import _npcompat
from hybridize.runtime.ops.registry import get_op


@pytest.mark.parametrize("shapes, out", [
    ([(2, 1, 3), (4, 1)], (2, 4, 3)),
    ([(), (5,)], (5,)),
    ([(0, 1), (1, 3)], (0, 3)),
    ([3, (2, 1)], (2, 3)),
    ([], ()),
])
def test_broadcast_shapes_follows_numpys_rule(shapes, out):
    assert _npcompat._broadcast_shapes(*shapes) == out


def test_broadcast_shapes_refuses_mismatched_dimensions():
    with pytest.raises(ValueError, match="cannot be broadcast"):
        _npcompat._broadcast_shapes((2, 3), (4, 3))


def test_stacked_qr_factors_each_matrix(monkeypatch):
    a = np.random.RandomState(0).randn(2, 3, 5, 4).astype(np.float32)
    monkeypatch.setattr(_npcompat, "_NP122", False)     # the one-matrix-at-a-time path
    q, r = _npcompat.qr(a)
    assert q.shape == (2, 3, 5, 4) and r.shape == (2, 3, 4, 4) and q.dtype == np.float32
    np.testing.assert_allclose(q @ r, a, rtol=1e-5, atol=1e-5)
    q1, r1 = np.linalg.qr(a[1, 2])
    np.testing.assert_array_equal(q[1, 2], q1)
    np.testing.assert_array_equal(r[1, 2], r1)


def test_percentile_takes_the_method_by_either_keyword_name():
    x = np.arange(10.0)
    assert _npcompat.percentile(x, 40, method="lower") == 3.0
    assert _npcompat.percentile(x, 40, method="higher") == 4.0


def test_argmax_keepdims_keeps_the_reduced_axis():
    op = get_op("_npi_argmax")
    attrs = op.resolve(op.parse_attrs({"axis": "1", "keepdims": "True"}))
    x = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32)
    assert op.kernel(attrs, [x.shape], [x.dtype])(x).tolist() == [[1], [0]]


@pytest.fixture
def numpy_without_dlpack(monkeypatch):
    """The runtime's DLPack as on numpy<1.22, which has none of its own."""
    monkeypatch.setattr(_interop, "NUMPY_DLPACK", False)


@pytest.mark.usefixtures("numpy_without_dlpack")
def test_dlpack_without_numpys_shares_memory_and_consumes_once():
    x = nd.array([[1, 2], [3, 4]])
    cap = x.to_dlpack_for_write()
    u = nd.from_dlpack(cap)
    u += 1
    assert x.asnumpy().tolist() == [[2, 3], [4, 5]]
    with pytest.raises(ValueError, match="consumed only once"):
        nd.from_dlpack(cap)
    r = nd.from_dlpack(nd.array([[-3, -2]], dtype="int32"))       # through NDArray.__dlpack__
    assert r.dtype == np.int32 and r.asnumpy().tolist() == [[-3, -2]]


@pytest.mark.skipif(not hasattr(np, "from_dlpack"), reason="compares with numpy's own DLPack (numpy>=1.22)")
@pytest.mark.usefixtures("numpy_without_dlpack")
def test_dlpack_without_numpys_speaks_numpys_abi():
    """Capsules of the runtime's own DLPack and numpy's are the same ABI, both ways, strides included."""
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    view = np.from_dlpack(_interop._Capsule(_ctypes_dlpack.export(a.T)))
    assert np.shares_memory(view, a) and (view == a.T).all()
    for dt in (np.int64, np.uint8, np.float16, np.bool_):
        b = (np.arange(6) % 3).astype(dt).reshape(2, 3)[:, ::2]
        got = _ctypes_dlpack.consume(b.__dlpack__())
        assert got.dtype == dt and got.tolist() == b.tolist()


@pytest.mark.usefixtures("numpy_without_dlpack")
def test_dlpack_without_numpys_releases_what_it_exported():
    a = np.ones(3, np.float32)
    gc.collect()
    before = len(_ctypes_dlpack._LIVE)
    view = _interop.from_dlpack(_ctypes_dlpack.export(a))
    assert len(_ctypes_dlpack._LIVE) == before + 1      # the consumer's view holds the tensor
    del view
    _ctypes_dlpack.export(a)                             # a capsule nobody consumed frees it itself
    gc.collect()
    assert len(_ctypes_dlpack._LIVE) == before
