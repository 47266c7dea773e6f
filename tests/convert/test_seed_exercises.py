"""The seed chapter's exercises (``samples/exercises``): exercise 1's ``x.asnumpy()``, the chapter's
in-place ``a += b`` / ``a[:] = a + b`` and exercise 2's ``if`` and ``for`` on data (HY004 -> ``F.where``,
HY005 -> ``F.contrib.foreach``) convert into code that hybridizes and computes what the original
computes imperatively (on MXNet 1.9.1 too, when present)."""
from __future__ import annotations

import pytest

from both_ways import assert_same, both_ways, mxnet_python, on_mxnet

from hybridize.transpile.check.checker import check_source, fix_source

from support import REPO

EXERCISES = REPO / "samples" / "exercises" / "hybrid_net_exercises.py"
BLOCKS = ("AsNumpyNet", "InPlaceNet", "ControlFlowNet")


def _converted() -> tuple[str, str]:
    text = EXERCISES.read_text(encoding="utf-8")
    return text, fix_source(text, str(EXERCISES), unsafe=True)[0]


def _rows_of(text: str, cls: str) -> range:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines, 1) if line.startswith(f"class {cls}("))
    end = next((i for i, line in enumerate(lines[start:], start + 1) if line.startswith("class ")), len(lines) + 1)
    return range(start, end)


@pytest.mark.parametrize("block", BLOCKS)
def test_the_exercise_converts_and_runs_both_ways(block):
    text, fixed = _converted()
    assert [f for f in check_source(text, "ex.py") if f.start.row in _rows_of(text, block)]
    assert not [f for f in check_source(fixed, "ex.py") if f.start.row in _rows_of(fixed, block)]
    both_ways(text, converted=fixed, block=block)


def test_the_exercises_run_both_ways_on_mxnet():
    python = mxnet_python()
    if python is None:
        pytest.skip("no MXNet 1.9.1 interpreter (HYBRIDIZE_MXNET_PYTHON)")
    text, fixed = _converted()
    results = {block: both_ways(text, converted=fixed, block=block) for block in BLOCKS}
    for key, got in on_mxnet(results, python).items():
        assert "error" not in got, f"{key} fails on MXNet 1.9.1:\n{got['error']}"
        assert_same(results[key].original, got["original"], f"{key}: original on MXNet vs ours")
        assert_same(results[key].original, got["hybridized"], f"{key}: fix hybridized on MXNet")


def test_the_control_flow_exercise_becomes_graph_control_flow():
    _, fixed = _converted()
    rows = _rows_of(fixed, "ControlFlowNet")
    body = "\n".join(fixed.splitlines()[rows.start - 1:rows.stop - 1])
    assert "F.where(" in body and "F.contrib.foreach(loop_body, h, [])" in body
    assert "for r in h" not in body and "if h.sum() > 0" not in body


@pytest.mark.parametrize("seed", [0, 6])
def test_the_control_flow_exercise_takes_either_branch(seed):
    """``h.sum()`` is positive with seed 0 and negative with seed 6 (the harness's parameters and
    inputs): both sides of the converted ``if`` are compared."""
    text, fixed = _converted()
    result = both_ways(text, converted=fixed, block="ControlFlowNet", seed=seed)
    # the branch really taken: with ``F.relu`` applied the output is 2 * relu(h) >= 0; without it
    # h.sum() <= 0 and some rows are negative (else both seeds would test one side only)
    assert bool((result.original[0] >= 0).all()) == (seed == 0)
