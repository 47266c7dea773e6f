"""Gradient rules of the shape and layout operators agree with finite differences of their kernels."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp, vjp


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


CASES = [
    ("SwapAxis", [_x(2, 3, 4)], {"dim1": 0, "dim2": 2}),
    ("squeeze", [_x(2, 1, 3)], {"axis": 1}),
    ("squeeze", [_x(1, 1)], {}),
    ("reshape_like", [_x(2, 3), _x(3, 2)], {}),
    ("stack", [_x(2, 3), _x(2, 3, seed=1)], {"num_args": 2, "axis": 1}),
    ("stack", [_x(3), _x(3, seed=1), _x(3, seed=2)], {"num_args": 3, "axis": -1}),
    ("SliceChannel", [_x(2, 4)], {"num_outputs": 2, "axis": 1}),
    ("SliceChannel", [_x(3, 2)], {"num_outputs": 3, "axis": 0, "squeeze_axis": True}),
    ("SliceChannel", [_x(2)], {"num_outputs": 2, "axis": 0, "squeeze_axis": True}),
    ("_split_v2", [_x(5, 2)], {"indices": (0, 2), "axis": 0}),
    ("_split_v2", [_x(2, 6)], {"indices": (), "sections": 3, "axis": -1}),
    ("tile", [_x(2, 3)], {"reps": (2, 1)}),
    ("tile", [_x(3)], {"reps": (2, 2)}),
    ("tile", [_x(2, 3)], {"reps": (2,)}),
    ("repeat", [_x(2, 3)], {"repeats": 2, "axis": 1}),
    ("repeat", [_x(2, 3)], {"repeats": 3}),
    ("reverse", [_x(2, 3)], {"axis": (0, 1)}),
    ("broadcast_to", [_x(2, 1, 3)], {"shape": (2, 4, 3)}),
    ("broadcast_axis", [_x(1, 3, 1)], {"axis": (0, 2), "size": (2, 4)}),
    ("broadcast_like", [_x(1, 3), _x(4, 3)], {}),
    ("broadcast_like", [_x(1, 3), _x(3, 5)], {"lhs_axes": (0,), "rhs_axes": (1,)}),
    ("depth_to_space", [_x(1, 8, 2, 3)], {"block_size": 2}),
    ("space_to_depth", [_x(1, 2, 4, 6)], {"block_size": 2}),
    ("diag", [_x(3, 4)], {"k": 1}),
    ("diag", [_x(4, 3)], {"k": -2}),
    ("diag", [_x(2, 3, 4)], {"axis1": 2, "axis2": 0}),
    ("diag", [_x(3)], {"k": -1}),
]


@pytest.mark.parametrize("name,inputs,attrs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_matches_finite_differences(name, inputs, attrs):
    check_vjp(name, inputs, attrs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["shape_array", "size_array", "_contrib_arange_like"])
def test_shape_queries_have_zero_gradient(name):
    grads, _, _ = vjp(name, [_x(2, 3)])
    np.testing.assert_array_equal(grads[0], np.zeros((2, 3), np.float32))


def test_broadcast_like_gives_its_shape_argument_a_zero_gradient():
    grads = check_vjp("broadcast_like", [_x(1, 3), _x(4, 3)])
    np.testing.assert_array_equal(grads[1], np.zeros((4, 3), np.float32))
