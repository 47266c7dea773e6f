"""Every gradient rule with a case recorded from MXNet 1.9.1 (``tools/record_gradients.py``) reproduces
MXNet's input gradients, conventions included (straight-through image gradients, zero gradients of
index inputs, accumulation at repeated indices)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from gradcheck import check_vjp_against

FIXTURES = Path(__file__).resolve().parent / "fixtures"
MANIFEST = json.loads((FIXTURES / "manifest.json").read_text())

# float32 kernels against MXNet's float32 kernels: a few ulps apart where the order of sums differs
_TOLERANCE = {"linalg_potri": 1e-3, "linalg_inverse": 1e-3, "linalg_syevd": 1e-3, "linalg_gelqf": 1e-3}


@pytest.mark.parametrize("case", MANIFEST, ids=[c["case"] for c in MANIFEST])
def test_rule_reproduces_mxnet(case):
    tol = _TOLERANCE.get(case["case"], 1e-4)
    check_vjp_against(FIXTURES / case["file"], rtol=tol, atol=tol)
