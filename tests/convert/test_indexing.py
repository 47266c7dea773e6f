"""HY010 conversions: what is rewritten into `F.slice`/`F.slice_axis`/`F.squeeze`, and what stays a finding."""
from __future__ import annotations

import pytest

from both_ways import both_ways

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.rules.base import example


def _fix(code: str) -> str:
    return [f for f in check_source(code, "m.py") if f.code == "HY010"][0].fix


@pytest.mark.parametrize("body", [
    "y = F.relu(x)\nreturn y[:, self.k]",          # a name: its value is not known here
    "y = F.relu(x)\nreturn y[None]",               # newaxis
    "y = F.relu(x)\nreturn y[..., 1:]",            # a slice counted from the end clamps by ndim
    "y = F.relu(x)\nreturn y[F.argmax(y, axis=0)]",  # advanced indexing with a tensor
    "y = F.relu(x)\nreturn y[0:2:0]",              # step 0 is an error, not a slice
])
def test_keys_whose_meaning_needs_data_are_left_as_findings(body):
    code = example(body, init="self.k = 1")
    assert _fix(code) is None
    fixed, count, remaining = fix_source(code, "m.py", unsafe=True)
    assert (fixed, count) == (code, 0) and any(f.code == "HY010" for f in remaining)


def test_a_view_that_is_updated_in_place_makes_both_fixes_unsafe():
    """Imperatively `z` is a view of `y`: it sees `y += 1`. Rewritten, it would not: never applied by --fix."""
    code = example("y = F.relu(x)\nz = y[0]\ny += 1\nreturn z")
    findings = {f.code: f for f in check_source(code, "m.py")}
    assert findings["HY010"].fix.applicability.value == "unsafe"
    assert findings["HY002"].fix.applicability.value == "unsafe"
    assert "`z` still refer(s) to it" in findings["HY002"].fix.message
    assert fix_source(code, "m.py")[0] == code


def test_an_update_of_a_view_of_the_input_is_unsafe():
    code = example("y = x.reshape((0, -1))\ny += 1\nreturn y")
    [finding] = check_source(code, "m.py")
    assert finding.code == "HY002" and "the caller still holds the input" in finding.fix.message


def test_the_converted_reads_match_ndarray_indexing_on_odd_shapes():
    """Clamped slices, negative steps and a 1-d tensor indexed down to shape (1,), both ways."""
    result = both_ways(example("y = F.relu(x)\nreturn y[::-2, 1:100], y[-1, -1, 0], y[1, 0]",
                               inputs={"x": (3, 2, 1)}), code="HY010")
    assert [a.shape for a in result.original] == [(2, 1, 1), (1,), (1,)]
