"""Compile cost grows linearly with graph length: measured in operation counts, never in seconds."""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opcount import count  # noqa: E402

from hybridize.runtime.graph.codegen import _Names  # noqa: E402
from hybridize.runtime.graph.passes import PassContext  # noqa: E402
from hybridize.runtime.graph.pipeline import PIPELINE  # noqa: E402


class _CountingSet(set):
    """A set that counts membership probes, the unit of work of the naming stage."""

    probes = 0

    def __contains__(self, item) -> bool:
        type(self).probes += 1
        return super().__contains__(item)


def _probes_for(n: int, hint: str) -> int:
    names = _Names()
    _CountingSet.probes = 0
    names.used = _CountingSet()
    made = [names.make(hint) for _ in range(n)]
    assert len(set(made)) == n
    return _CountingSet.probes


def test_naming_repeated_hints_is_linear() -> None:
    # 48+ characters: every node of a long chain truncates to the same base name
    hint = "stage_" + "x" * 60
    small, big = _probes_for(1000, hint), _probes_for(4000, hint)
    assert big <= 4 * small + 8, (small, big)
    assert big <= 3 * 4000


def test_naming_sequence_is_unchanged() -> None:
    names = _Names()
    got = [names.make(h) for h in ("a", "a", "a_2", "a", "for", "for", "_x", "9z")]
    assert got == ["a", "a_2", "a_2_2", "a_3", "v_for", "v_for_2", "v_x", "v_9z"]


@pytest.fixture(scope="module")
def chains():
    """Operation counts of compiling a chain of 8 and of 32 blocks (~110 and ~450 nodes)."""
    return count(8), count(32)


def test_every_compiler_stage_is_counted(chains) -> None:
    # every pass of the stages an inference compile runs (differentiate is for training programs)
    small, _ = chains
    inference = PassContext(input_names=["data"], input_shapes={"data": (2, 4)}, input_dtypes={})
    stages = {"load", "setup", "infer", "pack buffers"} | {p.name for s in PIPELINE if s.when(inference)
                                                           for p in s.passes}
    assert stages <= set(small.totals())


def test_every_compiler_stage_grows_linearly(chains) -> None:
    small, big = (c.totals() for c in chains)
    ratios = {stage: big[stage] / small[stage] for stage in small if small[stage]}
    assert all(r <= 4.5 for r in ratios.values()), ratios


def test_no_compiler_function_grows_faster_than_n_log_n(chains) -> None:
    # per function, so that a quadratic helper is caught even when its stage hides it: 4x the nodes
    # is 4x the lines for a linear one, ~5.3x at these sizes for n log n, 16x for a quadratic one
    small, big = (c.functions() for c in chains)
    worst = {k: (small.get(k, 0), n) for k, n in big.items() if n > 6 * small.get(k, 0) + 100}
    assert not worst, worst
