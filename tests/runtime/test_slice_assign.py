"""``_slice_assign`` / ``_slice_assign_scalar`` (the functional item assignment the HY003 conversion emits)
against MXNet 1.9.1's recorded outputs (``data/make_slice_assign_cases.py``; no MXNet needed here):
imperatively, as a one-op graph (interpreter and compiler), and the attributes written to symbol JSON."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from recorded_cases import kwargs as _kwargs
from support import one_op_graph_json

from hybridize.runtime.base import ShapeError

_DOC = json.loads((Path(__file__).resolve().parent / "data" / "slice_assign_cases.json").read_text())
CASES = _DOC["cases"]
IDS = [c["case"] for c in CASES]


def _inputs(case: dict) -> list[np.ndarray]:
    return [np.asarray(x, dtype=np.float32) for x in case["inputs"]]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_imperative_matches_mxnet_and_leaves_the_input_alone(case):
    from hybridize.runtime import nd

    ins = _inputs(case)
    arrays = [nd.array(x) for x in ins]
    out = getattr(nd._internal, case["func"])(*arrays, **_kwargs(case))
    np.testing.assert_array_equal(out.asnumpy(), np.asarray(case["output"], dtype=np.float32))
    np.testing.assert_array_equal(arrays[0].asnumpy(), ins[0])   # a new array: the input is unchanged


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_graph_matches_mxnet_and_writes_its_attributes(case):
    from hybridize.runtime import sym
    from hybridize.runtime.graph import mxnet_json
    from hybridize.runtime.graph.codegen import compile_graph
    from hybridize.runtime.graph.interpret import evaluate

    ins = _inputs(case)
    node = json.loads(getattr(sym._internal, case["func"])(*[sym.var(f"in{i}") for i in range(len(ins))],
                                                            **_kwargs(case)).tojson())["nodes"][-1]
    assert node["op"] == case["func"] and node.get("attrs", {}) == case["json_attrs"]
    graph = mxnet_json.loads(one_op_graph_json(case["func"], case["case"], len(ins), 1, case["json_attrs"]))
    feed = {f"in{i}": a for i, a in enumerate(ins)}
    expected = np.asarray(case["output"], dtype=np.float32)
    np.testing.assert_array_equal(evaluate(graph, feed)[0], expected)
    prog = compile_graph(graph, input_names=list(feed), shapes={k: v.shape for k, v in feed.items()},
                         dtypes={k: v.dtype for k, v in feed.items()})
    np.testing.assert_array_equal(prog(*ins)[0], expected)


def test_rhs_must_have_the_slice_shape_as_in_mxnet():
    from hybridize.runtime import nd

    with pytest.raises(ShapeError, match="the slice of"):
        nd._internal._slice_assign(nd.zeros((2, 3)), nd.ones((3,)), begin=(0,), end=(1,))


def test_recorded_with_mxnet_1_9_1():
    assert _DOC["mxnet_version"] == "1.9.1"
    assert {c["func"] for c in CASES} == {"_slice_assign", "_slice_assign_scalar"}
