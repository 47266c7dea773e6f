"""Gradients of the NumPy-interface operators beyond the arithmetic core agree with finite differences
(shape family, extended binary math, products, solve) or follow MXNet's zero-gradient declarations."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp, vjp


def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _u(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.5, 2.0, shape)


CASES = [
    ("_np_atleast_2d", [_r(3), _r(2, 2, seed=1)], {"num_args": 2}, None),
    ("_np_moveaxis", [_r(2, 3, 4)], {"source": (0,), "destination": (2,)}, None),
    ("_npi_flip", [_r(2, 3)], {"axis": (1,)}, None),
    ("_np_roll", [_r(2, 5)], {"shift": (2,), "axis": (1,)}, None),
    ("_npi_broadcast_to", [_r(1, 3)], {"shape": (4, 3)}, None),
    ("_npi_tril", [_r(3, 4)], {"k": 1}, None),
    ("_npi_rot90", [_r(2, 3)], {"k": 1}, None),
    ("_np_diag", [_r(3, 4)], {"k": 1}, None),
    ("_np_diag", [_r(3)], {"k": -1}, None),
    ("_np_diagflat", [_r(2, 2)], {"k": 1}, None),
    ("_np_diagonal", [_r(2, 3, 4)], {"offset": 1, "axis1": 1, "axis2": 2}, None),
    ("_np_trace", [_r(2, 3, 4)], {"offset": -1, "axis1": 1, "axis2": 2}, None),
    ("_npi_diff", [_r(2, 6)], {"n": 2, "axis": 1}, None),
    ("_npi_pad", [_r(2, 3)], {"pad_width": "((1, 0), (2, 1))", "mode": "reflect"}, None),
    ("_npi_pad", [_r(2, 3)], {"pad_width": "((1, 0), (2, 1))", "mode": "constant", "constant_value": 2.0}, None),
    ("_npi_concatenate", [_r(2, 3), _r(1, 3, seed=1)], {"num_args": 2, "axis": 0}, None),
    ("_npi_concatenate", [_r(2, 3), _r(4, seed=1)], {"num_args": 2, "axis": None}, None),
    ("_npi_stack", [_r(2, 3), _r(2, 3, seed=1)], {"num_args": 2, "axis": -1}, None),
    ("_npi_vstack", [_r(3), _r(2, 3, seed=1)], {"num_args": 2}, None),
    ("_npi_hstack", [_r(2, 1), _r(2, 3, seed=1)], {"num_args": 2}, None),
    ("_npi_dstack", [_r(2, 3), _r(2, 3, seed=1)], {"num_args": 2}, None),
    ("_npi_column_stack", [_r(3), _r(3, 2, seed=1)], {"num_args": 2}, None),
    ("_npi_arctan2", [_r(2, 3), _r(1, 3, seed=1)], {}, None),
    ("_npi_hypot", [_r(2, 3), _r(2, 1, seed=1)], {}, None),
    ("_npi_copysign", [_r(2, 3), _r(2, 3, seed=1)], {}, [0]),
    ("_npi_ldexp", [_r(2, 3), _r(2, 3, seed=1)], {}, None),
    ("_npi_mod", [_u(2, 3) * 3, _u(2, 3, seed=1)], {}, [0]),
    ("_npi_arctan2_scalar", [_r(4)], {"scalar": 0.7}, None),
    ("_npi_rarctan2_scalar", [_r(4)], {"scalar": 0.7}, None),
    ("_npi_ldexp_scalar", [_r(4)], {"scalar": 1.5}, None),
    ("_npi_rldexp_scalar", [_r(4)], {"scalar": 1.5}, None),
    ("_npi_tensordot", [_r(2, 3, 4), _r(4, 3, 5, seed=1)], {"a_axes_summed": (1, 2), "b_axes_summed": (1, 0)}, None),
    ("_npi_tensordot_int_axes", [_r(2, 3, 4), _r(3, 4, 5, seed=1)], {"axes": 2}, None),
    ("_npi_einsum", [_r(2, 3), _r(3, 4, seed=1)], {"num_args": 2, "subscripts": "ij,jk->ik"}, None),
    ("_npi_einsum", [_r(2, 3), _r(2, 3, seed=1)], {"num_args": 2, "subscripts": "ij,ij->i"}, None),
    ("_npi_solve", [_r(3, 3) + 3 * np.eye(3), _r(3, 2, seed=1)], {}, None),
    ("_npi_solve", [_r(3, 3) + 3 * np.eye(3), _r(3, seed=1)], {}, None),
    ("_np_prod", [_u(2, 3, 4)], {"axis": (0, 2)}, None),
    ("_np_prod", [_u(2, 3)], {"keepdims": True}, None),
]


@pytest.mark.parametrize("name,inputs,attrs,wrt", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_matches_finite_differences(name, inputs, attrs, wrt):
    check_vjp(name, inputs, attrs, rtol=1e-5, atol=1e-6, wrt=wrt)


def test_location_scale_samplers_reparameterize():
    loc, scale = np.array([0.5, -1.0], np.float32), np.array([2.0, 0.5], np.float32)
    grads, outs, _ = vjp("_npi_normal", [loc, scale], {"loc": None, "scale": None, "size": (3, 2)},
                         out_grads=[np.ones((3, 2), np.float32)])
    np.testing.assert_allclose(grads[0], [3.0, 3.0])
    np.testing.assert_allclose(grads[1], ((outs[0] - loc) / scale).sum(axis=0), rtol=1e-5)


@pytest.mark.parametrize("name,inputs,attrs", [
    ("_npi_bitwise_and", [np.array([1, 2], np.int32), np.array([3, 3], np.int32)], {}),
    ("_npi_std", [_r(2, 3)], {}), ("_npi_eigvalsh", [_r(2, 2) + _r(2, 2).T], {}),
])
def test_declared_zero_gradients(name, inputs, attrs):
    grads, _, _ = vjp(name, inputs, attrs)
    assert all(not g.any() for g in grads)
