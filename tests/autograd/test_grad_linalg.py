"""Gradients of the linear-algebra operators agree with finite differences where the calculus and
MXNet agree; the factorizations (potrf, potri, gelqf, syevd), whose MXNet gradients are symmetric
or use one triangle by convention, are held to MXNet's recorded numbers (test_grad_vs_mxnet.py)."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float64)


def _spd(n, seed=0):
    a = _x(n, n, seed=seed)
    return a @ a.T + n * np.eye(n)


def _lower(n, seed=0):
    return np.tril(_x(n, n, seed=seed)) + 3 * np.eye(n)


CASES = [
    ("_linalg_gemm", [_x(2, 3), _x(3, 4, seed=1), _x(2, 4, seed=2)], {"alpha": 1.5, "beta": 0.5}),
    ("_linalg_gemm2", [_x(2, 3, 2), _x(2, 4, 3, seed=1)], {"transpose_a": True, "transpose_b": True}),
    ("_linalg_gemm2", [_x(3, 2, 4), _x(4, 2, 5, seed=1)], {"axis": 0}),
    ("_linalg_trmm", [_lower(3), _x(3, 2, seed=1)], {"alpha": 0.5}),
    ("_linalg_trmm", [_lower(2), _x(3, 2, seed=1)], {"rightside": True, "transpose": True}),
    ("_linalg_trsm", [_lower(3), _x(3, 2, seed=1)], {"alpha": 2.0, "transpose": True}),
    ("_linalg_trsm", [_lower(2).T.copy(), _x(3, 2, seed=1)], {"rightside": True, "lower": False}),
    ("_linalg_sumlogdiag", [_spd(3)], {}),
    ("_linalg_syrk", [_x(2, 3)], {"alpha": 0.5}),
    ("_linalg_syrk", [_x(2, 3)], {"transpose": True}),
    ("_linalg_inverse", [_spd(3)], {}),
    ("_linalg_det", [np.stack([_spd(3), _x(3, 3, seed=4)])], {}),
    ("_linalg_slogdet", [_x(3, 3)], {}),
    ("_linalg_extractdiag", [_x(3, 3)], {"offset": 1}),
    ("_linalg_makediag", [_x(2, 3)], {"offset": -1}),
    ("_linalg_extracttrian", [_x(3, 3)], {"offset": -1, "lower": True}),
    ("_linalg_maketrian", [_x(6)], {"lower": False}),
]


@pytest.mark.parametrize("name,inputs,attrs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_matches_finite_differences(name, inputs, attrs):
    check_vjp(name, inputs, attrs, rtol=1e-5, atol=1e-6)
