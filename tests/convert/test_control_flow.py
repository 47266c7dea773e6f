"""HY004 conversions (``transpile/convert/control_flow.py``): what is converted, how safely, and what
is left alone. Every rule example also runs both ways (``test_both_ways.py``); here: the edges."""
from __future__ import annotations

import pytest

from both_ways import both_ways

from hybridize.transpile.diagnostics import Applicability
from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.rules.base import example


def _hy004(text: str):
    found = [f for f in check_source(text, "m.py") if f.code == "HY004"]
    assert found, "HY004 expected"
    return found


@pytest.mark.parametrize("body", [
    # Python side effects in a branch: computing both sides, or tracing once, would change them
    "y = F.relu(x)\nif y.sum() > 0:\n    print(y)\n    y = y * 2\nreturn y",
    "y = F.relu(x)\nif y.sum() > 0:\n    self.seen = 1\n    y = y * 2\nreturn y",
    "y = F.relu(x)\nouts = []\nif y.sum() > 0:\n    outs.append(y)\n    y = y * 2\nreturn y",
    # randomness: both sides computed would draw twice; a dropout is not a pure expression
    "y = F.relu(x)\nif y.sum() > 0:\n    y = F.Dropout(y, p=0.5)\nreturn y",
    # conditions on `and`/`or`/`not`: Python's short-circuit truth values
    "y = F.relu(x)\nif y.sum() > 0 and y.max() < 5:\n    y = y * 2\nreturn y",
    "y = F.relu(x)\nif not y.sum():\n    y = y * 2\nreturn y",
    # a name needed later has no tensor value on one path
    "y = F.relu(x)\nif y.sum() > 0:\n    z = y * 2\nreturn z",
    "y = F.relu(x)\nn = 1\nif y.sum() > 0:\n    n = 2\nreturn y * n",
    # a return in one branch only, not at the function's top level
    "y = F.relu(x)\nfor i in range(2):\n    if y.sum() > 0:\n        return y\n    y = y - 1\nreturn y",
    # while: no static bound for F.contrib.while_loop's max_iterations
    "y = F.relu(x)\nwhile F.norm(y) > 1:\n    y = y / 2\nreturn y",
])
def test_no_conversion_where_equivalence_is_not_shown(body, extra=""):
    text = example(body, extra=extra)
    assert all(f.fix is None for f in _hy004(text))
    fixed, count, left = fix_source(text, "m.py", unsafe=True)
    assert any(f.code == "HY004" for f in left)


def test_no_conversion_over_a_helper_method():
    """A method of the block may do anything (here: count calls); only child blocks go in branches."""
    test_no_conversion_where_equivalence_is_not_shown(
        "y = F.relu(x)\nif y.sum() > 0:\n    y = self.helper(y)\nreturn y",
        extra="def helper(self, y):\n    self.calls = getattr(self, 'calls', 0) + 1\n    return y * 2")


def test_an_elementwise_select_is_safe_and_a_layer_in_a_branch_is_not():
    safe = _hy004(example("y = F.relu(x)\nif y.sum() > 0:\n    y = F.sigmoid(y) * 2\nreturn y"))[0]
    assert safe.fix.applicability is Applicability.SAFE and "F.where" in safe.fix.message
    layer = _hy004(example("y = self.fc(x)\nif y.sum() > 0:\n    y = self.fc(y)\nreturn y",
                           init="self.fc = nn.Dense(4, flatten=False, in_units=4)"))[0]
    assert layer.fix.applicability is Applicability.UNSAFE and "F.contrib.cond" in layer.fix.message


def test_values_of_unknown_shapes_make_the_select_unsafe():
    finding = _hy004(example("y = F.relu(x)\nz = F.sigmoid(x)\nif y.sum() > 0:\n    y = y + z\nreturn y"))[0]
    assert finding.fix.applicability is Applicability.UNSAFE  # leaves {y, z} vs {y}: shapes not shown equal


def test_a_branch_reading_what_it_assigns_sees_the_value_before_the_if():
    before = example("h = self.fc(x)\nif h.mean() > 0:\n    h = self.fc(h)\n    h = h * 3\nelse:\n    g = h + 1\n"
                     "    h = g * g\nreturn h", init="self.fc = nn.Dense(4, flatten=False, in_units=4)")
    fixed, _, left = fix_source(before, "m.py", unsafe=True)
    assert "def then_branch(h=h):" in fixed and not [f for f in left if f.code == "HY004"]
    for seed in range(4):  # both branches taken across seeds
        both_ways(before, converted=fixed, seed=seed)


def test_names_of_generated_functions_do_not_clash():
    before = example("then_branch = 1\nh = self.fc(x)\nif h.mean() > 0:\n    h = self.fc(h)\nreturn h * then_branch",
                     init="self.fc = nn.Dense(4, flatten=False, in_units=4)")
    fixed, _, _ = fix_source(before, "m.py", unsafe=True)
    assert "def then_branch2(" in fixed
    both_ways(before, converted=fixed)


def test_only_safe_conversions_without_unsafe_fixes():
    text = example("y = self.fc(x)\nif y.sum() > 0:\n    y = self.fc(y)\nreturn y",
                   init="self.fc = nn.Dense(4, flatten=False, in_units=4)")
    fixed, count, _ = fix_source(text, "m.py", unsafe=False)
    assert count == 0 and fixed == text


@pytest.mark.parametrize("seed", range(4))
def test_the_seed_chapters_if_converts_and_takes_either_branch(seed):
    before = example("h = self.fc(x)\nif h.sum() > 0:\n    h = F.relu(h)\nreturn h",
                     init="self.fc = nn.Dense(4, flatten=False)")
    both_ways(before, seed=seed, code="HY004")
