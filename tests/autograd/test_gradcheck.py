"""The rule checker itself (``tests/gradcheck.py``): it accepts a correct rule and catches wrong ones."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp, numeric_vjp, vjp
from hybridize.runtime.ops.registry import get_op


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_a_correct_rule_passes_and_its_gradients_are_returned():
    grads = check_vjp("tile", [_x(2, 3)], {"reps": (2, 1)}, rtol=1e-3, atol=1e-4)
    assert grads[0].shape == (2, 3) and grads[0].dtype == np.float32


def test_a_wrong_rule_is_caught(monkeypatch):
    op = get_op("reverse")
    monkeypatch.setattr(op, "gradient", lambda F, attrs, inputs, outputs, out_grads: [out_grads[0]])
    with pytest.raises(AssertionError, match="finite differences"):
        check_vjp("reverse", [_x(4)], {"axis": (0,)})


def test_a_gradient_of_the_wrong_shape_is_caught(monkeypatch):
    op = get_op("tile")
    monkeypatch.setattr(op, "gradient", lambda F, attrs, inputs, outputs, out_grads: [out_grads[0]])
    with pytest.raises(AssertionError, match="shape"):
        check_vjp("tile", [_x(2, 3)], {"reps": (2, 1)})


def test_finite_differences_run_in_float64_on_the_kernel():
    x = _x(3)
    og = [np.ones(6)]
    np.testing.assert_allclose(numeric_vjp("tile", [x], {"reps": (2,)}, og, 0), np.full(3, 2.0), rtol=1e-8)


def test_given_out_grads_are_used():
    grads, _, _ = vjp("reverse", [_x(3)], {"axis": (0,)}, out_grads=[np.array([1, 2, 3], np.float32)])
    np.testing.assert_array_equal(grads[0], [3, 2, 1])
