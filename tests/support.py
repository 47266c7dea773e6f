"""Shared test helpers (importable as `support`: pytest puts tests/ on sys.path): where ``../shared`` lives, MXNet tolerance."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("HYBRIDIZE_SHARED", REPO.parent / "shared"))
FIXTURES = SHARED / "fixtures" / "mxnet"
CORPUS = SHARED / "corpus"


def require_shared() -> None:
    if not FIXTURES.is_dir():
        pytest.skip(f"MXNet fixtures not found at {FIXTURES} (set HYBRIDIZE_SHARED)")


def op_cases() -> list[dict]:
    manifest = FIXTURES / "ops" / "manifest.json"
    if not manifest.is_file():
        return []
    return json.loads(manifest.read_text())["cases"]


def model_names() -> list[str]:
    d = FIXTURES / "models"
    return sorted(p.name for p in d.iterdir()) if d.is_dir() else []


def assert_close(ours, theirs, rtol: float = 1e-4, atol: float = 1e-5) -> None:
    np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=rtol, atol=atol)
