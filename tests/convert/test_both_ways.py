"""Every conversion example of every rule, run both ways (see ``both_ways.py``).

A rule's ``fix_examples`` and ``unsafe_fix_examples`` are (before, after) pairs: the original module
run imperatively and the converted module run hybridized must give equal outputs from the same
parameters and inputs, and the converted module must carry no finding of that rule any more. Where
MXNet 1.9.1 is installed, the same holds on MXNet (the original imperatively, the fix hybridized).
"""
from __future__ import annotations

import pytest

from both_ways import BothWays, both_ways, mxnet_python, on_mxnet, assert_same

from hybridize.transpile.rules import ALL_RULES

CASES = [pytest.param(code, before, after, id=f"{code}-{kind}-{i}")
         for code, rule in ALL_RULES.items()
         for kind in ("fix", "unsafe")
         for i, (before, after) in enumerate(rule.fix_examples if kind == "fix" else rule.unsafe_fix_examples)]

_RESULTS: dict[str, BothWays] = {}


@pytest.mark.parametrize("code,before,after", CASES)
def test_conversion_example_computes_the_same_both_ways(request, code, before, after):
    _RESULTS[request.node.callspec.id] = both_ways(before, after, code=code)


def test_every_conversion_example_runs_both_ways_on_mxnet():
    """Optional: only where an MXNet 1.9.1 interpreter exists (never in CI)."""
    python = mxnet_python()
    if python is None:
        pytest.skip("no MXNet 1.9.1 interpreter (HYBRIDIZE_MXNET_PYTHON)")
    results = {case.id: _RESULTS.get(case.id) or both_ways(case.values[1], case.values[2], code=case.values[0])
               for case in CASES}
    for key, got in on_mxnet(results, python).items():
        assert "error" not in got, f"{key} fails on MXNet 1.9.1:\n{got['error']}"
        assert_same(results[key].original, got["original"], f"{key}: original on MXNet vs ours")
        assert_same(results[key].original, got["hybridized"], f"{key}: fix hybridized on MXNet")


def test_the_harness_catches_a_wrong_conversion():
    """A 'conversion' that changes the result must fail (the harness is not vacuous)."""
    from hybridize.transpile.rules.base import example

    before = example("y = F.relu(x)\ny += 1\nreturn y")
    wrong = example("y = F.relu(x)\ny = y + 2\nreturn y")
    with pytest.raises(AssertionError, match="converted, imperative"):
        both_ways(before, converted=wrong)


def test_examples_declare_their_input_shapes():
    from hybridize.transpile.rules.base import example

    before = example("y = x.reshape(4, -1)\nreturn y", inputs={"x": (4, 5)})
    result = both_ways(before, code="HY011")
    assert result.inputs[0].shape == (4, 5) and result.original[0].shape == (4, 5)


def test_parameters_are_shared_and_list_inputs_supported():
    from hybridize.transpile.rules.base import example

    before = example("y = self.fc(x) + states[0]\ny += states[1]\nreturn y", init="self.fc = nn.Dense(3)",
                     signature="self, F, x, states", inputs={"x": (2, 5), "states": [(2, 3), (2, 3)]})
    result = both_ways(before, code="HY002")
    assert sorted(result.params) == ["fc.bias", "fc.weight"]
    assert result.params["fc.weight"].shape == (3, 5)
