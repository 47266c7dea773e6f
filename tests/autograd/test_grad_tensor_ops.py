"""Gradient rules of the indexing, sequence, cumsum and smaller tensor operators agree with finite
differences of their kernels, and follow MXNet's conventions where those differ from the calculus."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp, vjp


def _x(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


CASES = [
    ("pick", [_x(3, 4), np.array([0, 3, 1], np.float32)], {"axis": 1}),
    ("pick", [_x(3, 4), np.array([[0], [2], [5]], np.float32)], {"axis": -1, "keepdims": True, "mode": "wrap"}),
    ("pick", [_x(2, 3), np.array([0, 2, 2], np.float32)], {"axis": 0}),
    ("gather_nd", [_x(3, 4), np.array([[0, 2, 2], [1, 3, 3]], np.float32)], {}),
    ("gather_nd", [_x(3, 4, 2), np.array([[2, 0]], np.float32)], {}),
    ("scatter_nd", [_x(3), np.array([[0, 2, 1], [1, 3, 0]], np.float32)], {"shape": (3, 4)}),
    ("_contrib_index_copy", [_x(4, 3), np.array([2, 0], np.float32), _x(2, 3, seed=1)], {}),
    ("log_sigmoid", [_x(5)], {}),
    ("mish", [_x(5)], {}),
    ("smooth_l1", [np.array([-2.0, -0.3, 0.2, 0.9, 3.0], np.float32)], {"scalar": 1.5}),
    ("moments", [_x(2, 3, 4)], {"axes": (0, 2)}),
    ("moments", [_x(2, 3)], {"keepdims": True}),
    ("amp_cast", [_x(2, 3)], {"dtype": "float64"}),
    ("amp_multicast", [_x(2, 3), _x(2, 3, dtype=np.float64)], {"num_outputs": 2}),
    ("_identity_with_attr_like_rhs", [_x(2, 3), _x(2, 3, seed=1)], {}),
    ("_contrib_div_sqrt_dim", [_x(2, 4)], {}),
    ("_contrib_quadratic", [_x(2, 3)], {"a": 1.5, "b": -2.0, "c": 0.5}),
    ("_contrib_boolean_mask", [_x(4, 2), np.array([1, 0, 1, 1], np.float32)], {}),
    ("_contrib_boolean_mask", [_x(2, 3), np.array([0, 1, 1], np.float32)], {"axis": 1}),
    ("_np_cumsum", [_x(3, 4)], {"axis": 1}),
    ("_np_cumsum", [_x(2, 3)], {}),
    ("SequenceMask", [_x(4, 2, 3), np.array([2, 4], np.float32)], {"use_sequence_length": True, "value": -1.0}),
    ("SequenceMask", [_x(2, 4, 3), np.array([1, 3], np.float32)], {"use_sequence_length": True, "axis": 1}),
    ("SequenceReverse", [_x(4, 2, 3), np.array([2, 4], np.float32)], {"use_sequence_length": True}),
    ("SequenceReverse", [_x(3, 2)], {}),
    ("SequenceLast", [_x(4, 2, 3), np.array([2, 4], np.float32)], {"use_sequence_length": True}),
    ("SequenceLast", [_x(2, 4, 3), np.array([1, 3], np.float32)], {"use_sequence_length": True, "axis": 1}),
    ("SequenceLast", [_x(4, 2)], {}),
]


@pytest.mark.parametrize("name,inputs,attrs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_matches_finite_differences(name, inputs, attrs):
    # index inputs (pick's index, gather_nd's indices, lengths) hold integers in a float array: their
    # gradient is zero (or none) by MXNet's rule, and a finite difference across a truncation is not
    wrt = [i for i, x in enumerate(inputs) if not _holds_integers(x)]
    check_vjp(name, inputs, attrs, rtol=1e-3, atol=1e-3, wrt=wrt)


def _holds_integers(x):
    return bool(np.all(x == np.round(x)))


def test_gather_nd_accumulates_repeated_indices():
    grads, _, _ = vjp("gather_nd", [_x(3), np.array([[1, 1, 1]], np.float32)], out_grads=[np.ones(3, np.float32)])
    np.testing.assert_array_equal(grads[0], [0, 3, 0])


def test_gradientmultiplier_scales_the_gradient_only():
    grads, outs, _ = vjp("_contrib_gradientmultiplier", [_x(3)], {"scalar": -0.5},
                         out_grads=[np.ones(3, np.float32)])
    np.testing.assert_array_equal(grads[0], np.full(3, -0.5, np.float32))
    np.testing.assert_array_equal(outs[0], _x(3))


@pytest.mark.parametrize("name", ["_contrib_round_ste", "_contrib_sign_ste"])
def test_straight_through_estimators_pass_the_gradient_unchanged(name):
    og = _x(4, seed=3)
    grads, _, _ = vjp(name, [_x(4)], out_grads=[og])
    np.testing.assert_array_equal(grads[0], og)


@pytest.mark.parametrize("name,inputs", [
    ("one_hot", [np.array([0.0, 2.0], np.float32)]), ("_contrib_index_array", [_x(2, 3)]),
    ("_ravel_multi_index", [np.array([[0.0, 1.0], [1.0, 2.0]], np.float32)]),
    ("_unravel_index", [np.array([3.0, 5.0], np.float32)]),
])
def test_index_producing_ops_have_zero_gradient(name, inputs):
    attrs = {"one_hot": {"depth": 3}, "_ravel_multi_index": {"shape": (2, 3)},
             "_unravel_index": {"shape": (2, 3)}}.get(name, {})
    grads, _, _ = vjp(name, inputs, attrs)
    assert all(not g.any() for g in grads)
