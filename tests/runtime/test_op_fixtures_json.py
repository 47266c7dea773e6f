"""Every operator case recorded from real MXNet 1.9.1 matches as a one-op graph imported from
symbol JSON (the case's ``json_op``/``json_attrs``, variables in0..inN), and exporting that graph
writes the attributes exactly as MXNet serialized them."""
from __future__ import annotations

import json

import numpy as np
import pytest

from support import FIXTURES, assert_close, one_op_graph_json, op_cases

CASES = op_cases()


def _graph_json(case: dict) -> str:
    return one_op_graph_json(case["json_op"], case["case"], case["num_inputs"], case["num_outputs"], case["json_attrs"])


def _load(case: dict) -> tuple[list[np.ndarray], list[np.ndarray]]:
    data = np.load(FIXTURES / "ops" / f"{case['case']}.npz")
    ins = [data[f"in{i}"] for i in range(case["num_inputs"])]
    outs = [data[f"out{i}"] for i in range(case["num_outputs"])]
    return ins, outs


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_one_op_graph_matches_mxnet(case: dict) -> None:
    from hybridize.runtime.graph import mxnet_json
    from hybridize.runtime.graph.interpret import evaluate

    graph = mxnet_json.loads(_graph_json(case), path=f"{case['case']}.json")
    ins, outs = _load(case)
    res = evaluate(graph, {f"in{i}": a for i, a in enumerate(ins)})
    assert len(res) == len(outs)
    for ours, theirs, dtype in zip(res, outs, case["output_dtypes"]):
        ours = np.asarray(ours)
        assert ours.shape == theirs.shape
        assert ours.dtype.name == dtype
        assert_close(ours, theirs)


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_one_op_graph_exports_mxnet_attrs(case: dict) -> None:
    from hybridize.runtime.graph import mxnet_json

    graph = mxnet_json.loads(_graph_json(case))
    doc = json.loads(mxnet_json.dumps(graph))
    node = doc["nodes"][-1]
    assert node["op"] == case["json_op"]
    assert node.get("attrs", {}) == case["json_attrs"]
    assert doc["heads"] == [[case["num_inputs"], k, 0] for k in range(case["num_outputs"])]
