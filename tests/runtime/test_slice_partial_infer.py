"""Partial shape inference through ``slice`` and ``slice_axis``: an unknown input dimension (0 in
legacy shapes, -1 with numpy shape semantics) stays unknown, the known ones are sliced, as in MXNet
1.9.1 (``data/slice_partial_cases.json``, recorded by ``data/make_slice_partial_cases.py``)."""
from __future__ import annotations

import json
import os

import pytest

import hybridize.runtime as mx

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = json.load(open(os.path.join(HERE, "data", "slice_partial_cases.json")))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{'np' if c['np_shape'] else 'legacy'}-{c['op']}-"
                                                     f"{c['shape']}-{c['kwargs']}")
def test_partial_shape_through_slicing_as_mxnet(case):
    with mx.np_shape(case["np_shape"]):
        data = mx.sym.var("data", shape=tuple(case["shape"]))
        kwargs = {k: tuple(v) if isinstance(v, list) else v for k, v in case["kwargs"].items()}
        out = getattr(mx.sym, case["op"])(data, **kwargs)
        assert list(out.infer_shape_partial()[1][0]) == case["out"]
