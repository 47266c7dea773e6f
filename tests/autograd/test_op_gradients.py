"""Every operator case of the shared MXNet fixtures, differentiated through the imperative tape
(``attach_grad`` + ``autograd.record`` + ``backward`` with head gradients) gives MXNet 1.9.1's input
gradients (recorded by ``tools/record_manifest_gradients.py``).

A case whose operator has no gradient rule yet (another family's) is skipped, naming the op; a
case MXNet itself refuses is checked to be refused here too.
"""
import json
from pathlib import Path

import numpy as np
import pytest
from hybridize.runtime import autograd
from hybridize.runtime import ndarray as nd
from hybridize.runtime.ops.registry import get_op

FIXTURES = Path(__file__).resolve().parents[1] / "runtime" / "fixtures" / "gradients"
INDEX = json.loads((FIXTURES / "index.json").read_text())


def _recorded(name: str) -> dict:
    with np.load(FIXTURES / f"{name}.npz", allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        return {"meta": meta, "inputs": [z[f"input{i}"] for i in range(meta["num_inputs"])],
                "outputs": [z[f"output{k}"] for k in range(meta["num_outputs"])],
                "head_grads": [z[f"head_grad{k}"] for k in range(meta["num_outputs"])],
                "grads": {i: z[f"grad{i}"] for i in range(meta["num_inputs"]) if f"grad{i}" in z.files}}


def _run(case: dict) -> list:
    meta = case["meta"]
    op = get_op(meta["op"])
    attrs = op.parse_attrs(meta["attrs"])
    arrays = [nd.array(a, dtype=a.dtype) for a in case["inputs"]]
    for i in case["grads"]:
        arrays[i].attach_grad()
    fn = getattr(nd, meta["op"], None) or getattr(nd._internal, meta["op"])
    with autograd.record(train_mode=meta["train"]):
        out = fn(*arrays, **attrs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    autograd.backward(outs, [nd.array(h, dtype=h.dtype) for h in case["head_grads"]], train_mode=meta["train"])
    return [arrays[i].grad.asnumpy() for i in case["grads"]]


OK_CASES = sorted(k for k, v in INDEX.items() if "error" not in v)
# where MXNet 1.9.1's recorded gradient is not the derivative of its own forward, the runtime keeps the
# derivative (what a graph backward computes too); each case says what MXNet does
MXNET_INCONSISTENT = {
    "pool_avg_full": "MXNet's (oneDNN) backward divides a 'full'-convention window running past the input "
                     "by the whole kernel size, its forward by the clipped count",
    "softmaxoutput_out_grad": "MXNet's imperative SoftmaxOutput(out_grad=True) multiplies by its own output "
                              "instead of the head gradient (the two buffers are aliased)",
}


@pytest.mark.parametrize("name", OK_CASES)
def test_gradients_match_mxnet(name):
    case = _recorded(name)
    op = get_op(case["meta"]["op"])
    if op.gradient is None:
        pytest.skip(f"{op.name}: no gradient rule in this family yet")
    if name in MXNET_INCONSISTENT:
        pytest.xfail(MXNET_INCONSISTENT[name])
    got = _run(case)
    for (i, expected), g in zip(case["grads"].items(), got):
        scale = max(1.0, float(np.abs(expected).max()))
        np.testing.assert_allclose(g, expected, rtol=1e-4, atol=1e-5 * scale,
                                   err_msg=f"{name}: gradient of input {i}")


def test_every_manifest_case_was_recorded():
    assert len(INDEX) >= 112 and not [k for k, v in INDEX.items() if "error" in v]


def test_the_forward_values_of_recorded_training_cases_match_too():
    """The recording ran in training mode: BatchNorm's batch statistics are what both compute."""
    case = _recorded("batchnorm_axis_last")
    arrays = [nd.array(a) for a in case["inputs"]]
    with autograd.train_mode():
        out = nd.BatchNorm(*arrays, **get_op("BatchNorm").parse_attrs(case["meta"]["attrs"]))
    np.testing.assert_allclose(out.asnumpy(), case["outputs"][0], rtol=1e-4, atol=1e-5)
