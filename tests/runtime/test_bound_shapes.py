"""The shapes an executor is bound at win over a variable's declared ``shape=`` (``simple_bind``,
``reshape``, a Module fed another shape by ``test_utils.DummyIter``), as in MXNet 1.9.1
(``fixtures/bound_shapes.json``, recorded by ``tools/record_bound_shapes.py``)."""
from __future__ import annotations

import json
import os

import hybridize.runtime as mx

from .bound_shapes_cases import cases

HERE = os.path.dirname(os.path.abspath(__file__))


def test_bound_shapes_as_mxnet() -> None:
    assert cases(mx) == json.load(open(os.path.join(HERE, "fixtures", "bound_shapes.json")))
