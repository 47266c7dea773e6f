"""The seed chapter's exercises (``samples/exercises``) that are data conversions: exercise 1's
``x.asnumpy()`` and the chapter's in-place ``a += b`` / ``a[:] = a + b`` convert into code that
hybridizes and computes what the original computes imperatively (on MXNet 1.9.1 too, when present).
The control-flow exercise (HY004/HY005) is convert-flow's."""
from __future__ import annotations

import pytest

from both_ways import assert_same, both_ways, mxnet_python, on_mxnet

from hybridize.transpile.check.checker import check_source, fix_source

from support import REPO

EXERCISES = REPO / "samples" / "exercises" / "hybrid_net_exercises.py"
BLOCKS = ("AsNumpyNet", "InPlaceNet")


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
