"""``where`` checks its shapes when it runs, as MXNet 1.9.1's (MXNetError where numpy would broadcast):
a 1-D condition selects rows and must have one entry per row; otherwise all three shapes are equal."""
from __future__ import annotations

import hybridize.runtime as mx
import pytest
from hybridize.runtime.base import ShapeError

X, Y = mx.nd.array([[2, 3], [4, 5], [6, 7]]), mx.nd.array([[8, 9], [10, 11], [12, 13]])


def test_a_row_condition_of_the_wrong_length_is_refused_imperatively_and_by_eval() -> None:
    with pytest.raises(ShapeError, match=r"condition of shape \(2,\) does not match x of shape \(3, 2\)"):
        mx.nd.where(condition=mx.nd.array([1, 0]), x=X, y=Y)
    s = mx.sym.where(mx.sym.var("condition"), mx.sym.var("x"), mx.sym.var("y"))
    with pytest.raises(ShapeError):
        s.eval(condition=mx.nd.array([1, 0]), x=X, y=Y)
    with pytest.raises(ShapeError, match="need one shape"):
        mx.nd.where(mx.nd.ones((3, 1)), X, Y)


def test_a_row_condition_selects_rows() -> None:
    assert mx.nd.where(mx.nd.array([1, 0, 1]), X, Y).asnumpy().tolist() == [[2, 3], [10, 11], [6, 7]]
