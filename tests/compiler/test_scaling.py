"""Compile cost grows linearly with graph length: measured in operation counts, never in seconds."""
from __future__ import annotations

from hybridize.runtime.graph.codegen import _Names


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
