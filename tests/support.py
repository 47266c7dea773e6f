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


def one_op_graph_json(op: str, name: str, num_inputs: int, num_outputs: int, json_attrs: dict | None) -> str:
    """MXNet symbol JSON of a single ``op`` node fed by ``in0..inN`` variables, every output a head."""
    nodes = [{"op": "null", "name": f"in{i}", "inputs": []} for i in range(num_inputs)]
    node = {"op": op, "name": name, "inputs": [[i, 0, 0] for i in range(num_inputs)]}
    if json_attrs:
        node["attrs"] = json_attrs
    nodes.append(node)
    return json.dumps({"nodes": nodes, "arg_nodes": list(range(num_inputs)),
                       "heads": [[num_inputs, k, 0] for k in range(num_outputs)],
                       "attrs": {"mxnet_version": ["int", 10901]}})


def package_search_path() -> list[str]:
    """The folder a child interpreter needs on ``PYTHONPATH`` to import the ``hybridize`` this
    process imported: the folder holding a ``hybridize`` entry (a checkout named so, or a folder
    with a ``hybridize`` link to one), or nothing when it is an installed package. Only that
    folder: the checkout's siblings would shadow modules of the standard library (a folder named
    ``bisect`` next to the clone breaks ``import random``)."""
    import hybridize
    root = Path(hybridize.__file__).parent.parent   # unresolved: a link's folder, not its target's
    return [str(root)] if (root / "hybridize").exists() else []
