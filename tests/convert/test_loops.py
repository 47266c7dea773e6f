"""HY005 / HY006 loop conversions (``transpile/convert/loops.py``): what becomes
``F.contrib.foreach``, how safely, and what is left alone. Every rule example also runs both ways
(``test_both_ways.py``); here: the edges, and child blocks shared between the loop and the rest."""
from __future__ import annotations

import pytest

from both_ways import assert_same, both_ways, mxnet_python, on_mxnet

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.diagnostics import Applicability
from hybridize.transpile.rules.base import example

_CELL = "self.cell = nn.Dense(4, flatten=False)"


def _loop_findings(text: str):
    found = [f for f in check_source(text, "m.py") if f.code in ("HY005", "HY006")]
    assert found, "a loop finding expected"
    return found


@pytest.mark.parametrize("body", [
    # leaving the loop early, or an else clause: foreach always runs every row
    "h = F.relu(x)\nouts = []\nfor r in h:\n    if r.sum() > 0:\n        break\n    outs.append(r)\nreturn F.stack(*outs)",
    "h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(r)\nelse:\n    h = h * 2\nreturn F.stack(*outs) + h",
    # Python side effects in the body would run once while tracing
    "h = F.relu(x)\nouts = []\nfor r in h:\n    print(r)\n    outs.append(r * 2)\nreturn F.stack(*outs)",
    "h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(F.Dropout(r, p=0.5))\nreturn F.stack(*outs)",
    # the counter used as a number
    "h = F.relu(x)\nouts = []\nfor i, r in enumerate(h):\n    outs.append(r * i)\nreturn F.stack(*outs)",
    # a row the body never reads (foreach demands its data be used)
    "h = F.relu(x)\nc = F.sigmoid(F.sum(h, axis=0))\nfor r in h:\n    c = F.tanh(c)\nreturn c",
    # a state that is a number before the loop
    "h = F.relu(x)\nacc = 0\nfor r in h:\n    acc = acc + r\nreturn acc",
    # the loop variable, or a name only assigned in the body, read after the loop
    "h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(r * 2)\nreturn F.stack(*outs) + r",
    "h = F.relu(x)\nouts = []\nfor r in h:\n    y = r * 2\n    outs.append(y)\nreturn F.stack(*outs) + y",
    # the list used in a way that has no equivalent on the stacked tensor
    "h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(r * 2)\nreturn outs",
    "h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(r * 2)\nreturn F.stack(*outs) / len(outs)",
    "h = F.relu(x)\nouts = [h]\nfor r in h:\n    outs.append(r * 2)\nreturn F.concat(*outs, dim=0)",
    "h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(r * 2)\nreturn F.concat(*outs, dim=2)",
    # zip with something that is not a tensor, nested loops
    "h = F.relu(x)\nfor r, layer in zip(h, self.layers):\n    h = layer(r)\nreturn h",
    "h = F.relu(x)\nouts = []\nfor r in h:\n    for layer in self.layers:\n        r = layer(r)\n    outs.append(r)\nreturn F.stack(*outs)",
    # a range loop whose counter selects rows of a tensor that does not set the length
    "h = F.relu(x)\ng = F.sigmoid(x)\nouts = []\nfor i in range(len(h)):\n    outs.append(g[i])\nreturn F.stack(*outs)",
])
def test_no_conversion_where_equivalence_is_not_shown(body):
    text = example(body, init="self.layers = []")
    fixed, _, left = fix_source(text, "m.py", unsafe=True)
    assert "foreach" not in fixed
    assert any(f.code in ("HY005", "HY006") for f in left)


def test_a_helper_method_in_the_body_is_not_moved_into_the_graph():
    text = example("h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(self.helper(r))\nreturn F.stack(*outs)",
                   extra="def helper(self, r):\n    self.calls = getattr(self, 'calls', 0) + 1\n    return r * 2")
    assert all(f.fix is None for f in _loop_findings(text))


def test_one_list_and_one_tensor_is_safe_zip_and_states_only_are_not():
    safe = _loop_findings(example("h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(r * 2)\nreturn F.stack(*outs)"))
    assert safe[0].fix.applicability is Applicability.SAFE and "foreach" in safe[0].fix.message
    zipped = _loop_findings(example("h = F.relu(x)\ng = F.sigmoid(x)\nouts = []\nfor a, b in zip(h, g):\n"
                                    "    outs.append(a * b)\nreturn F.stack(*outs)"))
    assert zipped[0].fix.applicability is Applicability.UNSAFE and "same number of rows" in zipped[0].fix.message
    states = _loop_findings(example("h = F.relu(x)\nc = F.sum(h, axis=0)\nfor r in h:\n    c = c * r\nreturn c"))
    assert states[0].fix.applicability is Applicability.UNSAFE and "zero rows" in states[0].fix.message


def test_writing_in_place_elsewhere_makes_it_unsafe():
    """A row of an NDArray is a view: with in-place updates around, the copy foreach makes could differ."""
    found = _loop_findings(example("h = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(r * 2)\ny = F.stack(*outs)\n"
                                   "y += 1\nreturn y"))
    assert found[0].fix.applicability is Applicability.UNSAFE and "view" in found[0].fix.message
    assert found[0].fix.changes_results  # transpile never applies it


def test_unpacking_with_a_starred_name_is_left_alone():
    text = example("y = F.relu(x)\nfirst, *rest = y\nreturn first")
    assert all(f.fix is None for f in _loop_findings(text))


def test_an_if_in_the_body_converts_first_then_the_loop():
    """The ``if`` (HY004, F.where) is fixed in the first round; the loop, pure now, in the next."""
    before = example("h = F.relu(x) - 0.5\nouts = []\nfor r in h:\n    if r.sum() > 0:\n        r = r * 2\n"
                     "    outs.append(r + 1)\nreturn F.stack(*outs)")
    fixed, _, left = fix_source(before, "m.py", unsafe=True)
    assert "F.contrib.foreach" in fixed and "F.where" in fixed and not left
    for seed in range(3):
        both_ways(before, converted=fixed, seed=seed)


def test_generated_names_do_not_clash():
    before = example("loop_body = 2\nh = F.relu(x)\nouts = []\nfor r in h:\n    outs.append(r * loop_body)\n"
                     "return F.stack(*outs)")
    fixed, _, _ = fix_source(before, "m.py", unsafe=True)
    assert "def loop_body2(r, states):" in fixed
    both_ways(before, converted=fixed)


def test_the_same_tensor_twice_is_copied():
    """foreach names its inputs after the outer symbols: ``zip(h, h)`` needs a copy to build."""
    before = example("h = F.relu(x)\nouts = []\nfor a, b in zip(h, h):\n    outs.append(a * b)\nreturn F.stack(*outs)")
    fixed, _, _ = fix_source(before, "m.py", unsafe=True)
    assert "[h, F.identity(h)]" in fixed
    both_ways(before, converted=fixed)


# child blocks: parameters shared by the loop body and the code around it
SHARED = {
    "inside-and-outside": example(
        "h = self.cell(x)\nouts = []\nfor r in h:\n    outs.append(self.cell(r) + r)\nreturn F.stack(*outs), self.cell(h)",
        init=_CELL, inputs={"x": (3, 2, 4)}),
    "state-through-a-layer": example(
        "s = F.zeros_like(F.sum(x, axis=0))\nouts = []\nfor r in x:\n    s = self.cell(F.concat(r, s, dim=-1))\n"
        "    outs.append(F.relu(s))\nreturn F.concat(*outs, dim=0)",
        init="self.cell = nn.Dense(2, flatten=False)", inputs={"x": (3, 2, 2)}),
    "range-two-tensors": example(
        "h = self.cell(x)\ng = F.sigmoid(x)\nouts = []\nfor i in range(h.shape[0]):\n    outs.append(self.cell(g[i]) * h[i])\n"
        "return F.add_n(*outs)", init=_CELL),
}
_RESULTS: dict = {}


@pytest.mark.parametrize("name", sorted(SHARED))
def test_child_blocks_in_the_body_share_their_parameters(name):
    before = SHARED[name]
    fixed, _, left = fix_source(before, "m.py", unsafe=True)
    assert "F.contrib.foreach" in fixed and not [f for f in left if f.code in ("HY005", "HY006")]
    _RESULTS[name] = both_ways(before, converted=fixed)


def test_child_blocks_in_the_body_on_mxnet():
    python = mxnet_python()
    if python is None:
        pytest.skip("no MXNet 1.9.1 interpreter (HYBRIDIZE_MXNET_PYTHON)")
    results = {name: _RESULTS.get(name) or both_ways(text, converted=fix_source(text, "m.py", unsafe=True)[0])
               for name, text in SHARED.items()}
    for key, got in on_mxnet(results, python).items():
        assert "error" not in got, f"{key} fails on MXNet 1.9.1:\n{got['error']}"
        assert_same(results[key].original, got["original"], f"{key}: original on MXNet vs ours")
        assert_same(results[key].original, got["hybridized"], f"{key}: fix hybridized on MXNet")


@pytest.mark.parametrize("body", [
    # no static bound
    "h = F.relu(x)\nwhile F.norm(h) > 1:\n    h = h / 2\nreturn h",
    # the counter's final value (the number of iterations) is used
    "h = F.relu(x)\ni = 0\nwhile i < 5 and F.norm(h) > 1:\n    h = h / 2\n    i += 1\nreturn h * i",
    "h = F.relu(x)\ni = 0\nwhile i < 5 and F.norm(h) > 1:\n    h = h / (i + 2)\n    i += 1\nreturn h",
    # the bound changes in the loop, or the counter does not start at a literal
    "h = F.relu(x)\ni = 0\nn = 5\nwhile i < n and F.norm(h) > 1:\n    h = h / 2\n    n = 4\n    i += 1\nreturn h",
    "h = F.relu(x)\ni = self.start\nwhile i < 5 and F.norm(h) > 1:\n    h = h / 2\n    i += 1\nreturn h",
    # a loop that never runs, a step of 2, lists or side effects in the body
    "h = F.relu(x)\ni = 5\nwhile i < 5 and F.norm(h) > 1:\n    h = h / 2\n    i += 1\nreturn h",
    "h = F.relu(x)\ni = 0\nwhile i < 5 and F.norm(h) > 1:\n    h = h / 2\n    i += 2\nreturn h",
    "h = F.relu(x)\nouts = []\ni = 0\nwhile i < 5 and F.norm(h) > 1:\n    h = h / 2\n    outs.append(h)\n    i += 1\n"
    "return F.stack(*outs)",
    "h = F.relu(x)\ni = 0\nwhile i < 5 and F.norm(h) > 1:\n    print(h)\n    h = h / 2\n    i += 1\nreturn h",
    # the condition reads a name the body only overwrites (no value to start the loop from)
    "h = F.relu(x)\ng = h\ni = 0\nwhile i < 5 and F.norm(g) > 1:\n    g = h / 2\n    h = g\n    i += 1\nreturn h",
    # `if c: break` not first, or doing more than breaking
    "h = F.relu(x)\nfor _ in range(4):\n    h = h / 2\n    if F.norm(h) <= 1:\n        break\nreturn h",
    "h = F.relu(x)\nfor k in range(4):\n    if F.norm(h) <= 1:\n        break\n    h = h / (k + 1)\nreturn h",
])
def test_no_while_loop_where_no_bound_is_shown(body):
    text = example(body, init="self.start = 0")
    fixed, _, left = fix_source(text, "m.py", unsafe=True)
    assert "while_loop" not in fixed
    assert any(f.code == "HY004" for f in left)


def test_an_unbounded_while_says_how_to_bound_it():
    found = [f for f in check_source(example("h = F.relu(x)\nwhile F.norm(h) > 1:\n    h = h / 2\nreturn h"), "m.py")
             if f.code == "HY004"]
    assert found and found[0].fix is None and "`while i < n and <condition>:`" in found[0].message


def test_the_bound_or_the_condition_ends_the_while_loop():
    """Both ways with a bound that stops the loop first, and with a condition that does."""
    for bound in (1, 8):
        before = example(f"h = F.relu(x)\ni = 0\nwhile i < {bound} and F.norm(h) > 0.5:\n    h = h * 0.7\n    i += 1\nreturn h")
        fixed, _, left = fix_source(before, "m.py")
        assert f"max_iterations={bound}" in fixed and not left
        both_ways(before, converted=fixed)


@pytest.mark.parametrize("body", [
    "h = F.relu(x)\nreturn F.stack(*[r * 2 for r in h if r.sum() > 0])",          # a filter: a data-dependent length
    "h = F.relu(x)\nreturn F.stack(*[r * k for r in h for k in (1, 2)])",          # two generators
    "h = F.relu(x)\nouts = [r * 2 for r in h]\nreturn outs",                          # the list itself returned
    "h = F.relu(x)\nouts = [r * 2 for r in h]\nreturn F.stack(*outs) / len(outs)",
    "h = F.relu(x)\nreturn F.stack(*[F.Dropout(r, p=0.5) for r in h])",            # randomness
    "h = F.relu(x)\nreturn F.stack(*[h * 2 for r in h])",                           # the row unused
])
def test_no_comprehension_conversion_where_equivalence_is_not_shown(body):
    fixed, _, left = fix_source(example(body), "m.py", unsafe=True)
    assert "foreach" not in fixed and any(f.code == "HY005" for f in left)
