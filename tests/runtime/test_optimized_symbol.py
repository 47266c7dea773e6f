"""``Executor.get_optimized_symbol()``: equal pure operator calls merged when
``MXNET_ELIMINATE_COMMON_EXPR`` is on at bind time (MXNet's default), an output listed twice then
copied, random operators never merged; the sizes MXNet 1.9.1 reports
(``data/optimized_symbol_cases.json``, recorded by ``data/make_optimized_symbol_cases.py``)."""
from __future__ import annotations

import json
import os

import pytest

import hybridize.runtime as mx

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = json.load(open(os.path.join(HERE, "data", "optimized_symbol_cases.json")))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["symbol"])
def test_optimized_symbol_size_as_mxnet(case, monkeypatch):
    a, b, c = mx.sym.var("a"), mx.sym.var("b"), mx.sym.var("c")  # noqa: F841  (used by the expressions)
    sym = eval(case["symbol"])  # noqa: S307  (recorded expressions)
    for flag, key in (("0", "internals_without_cse"), ("1", "internals_with_cse")):
        monkeypatch.setenv("MXNET_ELIMINATE_COMMON_EXPR", flag)
        ex = sym.simple_bind(mx.cpu(), **{n: (2, 3) for n in sym.list_inputs()})
        assert len(ex.get_optimized_symbol().get_internals()) == case[key], flag
