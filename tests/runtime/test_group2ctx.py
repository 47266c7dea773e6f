"""``group2ctx``: the contexts of an executor's arrays are MXNet 1.9.1's (``fixtures/group2ctx.json``,
recorded by ``tools/record_group2ctx.py``): each variable, gradient and output on its
``ctx_group``'s context, an ungrouped operator on its input's, the rest on the executor's."""
from __future__ import annotations

import json
import os

import pytest

import hybridize.runtime as mx

from .group2ctx_cases import cases

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = json.load(open(os.path.join(HERE, "fixtures", "group2ctx.json")))


@pytest.fixture(scope="module")
def measured() -> dict:
    return cases(mx)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_contexts_as_mxnet(case: str, measured: dict) -> None:
    assert measured[case] == EXPECTED[case]
