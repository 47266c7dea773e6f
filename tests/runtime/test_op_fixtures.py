"""Every operator case recorded from real MXNet 1.9.1 matches, called imperatively as ``nd.<op>``."""
from __future__ import annotations

import numpy as np
import pytest

from support import FIXTURES, assert_close, op_cases

CASES = op_cases()


def _load(case: dict) -> tuple[list[np.ndarray], list[np.ndarray]]:
    data = np.load(FIXTURES / "ops" / f"{case['case']}.npz")
    ins = [data[f"in{i}"] for i in range(case["num_inputs"])]
    outs = [data[f"out{i}"] for i in range(case["num_outputs"])]
    return ins, outs


def _attrs(case: dict) -> dict:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in case["attrs"].items()}


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_imperative_matches_mxnet(case: dict) -> None:
    from hybridize.runtime import nd

    ins, outs = _load(case)
    fn = getattr(nd, case["op"], None) or getattr(nd._internal, case["op"])
    res = fn(*[nd.array(a) for a in ins], **_attrs(case))
    res = res if isinstance(res, (list, tuple)) else [res]
    assert len(res) == len(outs)
    for ours, theirs, dtype in zip(res, outs, case["output_dtypes"]):
        assert ours.shape == theirs.shape
        assert np.dtype(ours.dtype).name == dtype
        assert_close(ours.asnumpy(), theirs)
