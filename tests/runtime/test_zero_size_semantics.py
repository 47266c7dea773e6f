"""MXNet 1.9.1's default (legacy) shape semantics read a 0 dimension, and ndim 0, as unknown: creating
such an array, or an operator whose result would have one, fails shape inference; numpy shape
semantics make them real zero-size and 0-d shapes. Reductions without an identity (min, max) refuse
an empty input in both. ``nd.load`` requires the shape semantics the arrays were saved in.

Expected outcomes: ``data/zero_size_cases.json``, recorded from MXNet 1.9.1 by
``data/make_zero_size_cases.py``.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import hybridize.runtime as mx

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = json.load(open(os.path.join(HERE, "data", "zero_size_cases.json")))


@pytest.mark.parametrize("case", CASES["calls"], ids=lambda c: f"{'np' if c['np_shape'] else 'legacy'}-{c['call']}")
def test_calls_raise_or_run_as_in_mxnet(case):
    assert np is not None   # the expressions may use np
    with mx.np_shape(case["np_shape"]):
        if case["raises"]:
            with pytest.raises(mx.MXNetError):
                eval(case["call"])  # noqa: S307  (recorded expressions)
        else:
            assert list(eval(case["call"]).shape) == case["shape"]  # noqa: S307


@pytest.mark.parametrize("case", CASES["save_load"],
                         ids=lambda c: f"save_np{c['save_np_shape']:d}-load_np{c['load_np_shape']:d}")
def test_load_requires_the_shape_semantics_of_the_save(case, tmp_path):
    fname = str(tmp_path / "arrays")
    with mx.np_shape(case["save_np_shape"]):
        mx.nd.save(fname, [mx.nd.array(np.ones((2, 0, 1))), mx.nd.array(np.ones((2, 1)))])
    with mx.np_shape(case["load_np_shape"]):
        if case["raises"]:
            with pytest.raises(mx.MXNetError, match="np shape semantics"):
                mx.nd.load(fname)
            with pytest.raises(mx.MXNetError, match="np shape semantics"):
                mx.nd.load_frombuffer(open(fname, "rb").read())
        else:
            assert [list(a.shape) for a in mx.nd.load(fname)] == case["shapes"]
