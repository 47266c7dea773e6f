"""The runtime's stand-ins for NumPy functions newer than MXNet 1.9.1's CI NumPy (numpy<1.20) give what
NumPy's own give, so MXNet's unit tests can run against the runtime in MXNet's own environment; the
stand-ins are exercised here on any NumPy by calling them directly."""
import numpy as np
import pytest

from hybridize.runtime import _interop
from hybridize.runtime.base import HybridizeError
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


def test_dlpack_on_a_numpy_without_it_is_one_clear_error(monkeypatch):
    monkeypatch.delattr(np, "from_dlpack", raising=False)
    with pytest.raises(HybridizeError, match=r"DLPack needs numpy>=1.22"):
        _interop.to_dlpack(np.zeros(3, np.float32))
