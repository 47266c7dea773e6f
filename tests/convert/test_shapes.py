"""HY006 conversions (transpile/convert/shapes.py): what converts, what provably must not.

The rule's own fix examples run both ways in ``test_both_ways.py``; here are the cases where a
rewrite would be *wrong* (the finding must stay, the text must not change) and a few more
conversions checked both ways on our runtime.
"""
from __future__ import annotations

import pytest

from both_ways import both_ways

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.rules.base import example


def _convert(before: str) -> tuple[str, list[str]]:
    fixed, _, left = fix_source(before, "example.py", unsafe=True)
    return fixed, [f.code for f in left]


@pytest.mark.parametrize("body,why", [
    ("n = x.shape[0]\nx = F.concat(x, x, dim=0)\nreturn x.reshape((n, -1))", "x is rebound after the read"),
    ("n = x.shape[0]\nfor i in range(2):\n    y = x.reshape((n, -1))\n    x = F.concat(x, x, dim=0)\nreturn y",
     "x changes between loop iterations"),
    ("n = x.shape[0]\nif self.flag:\n    x = F.concat(x, x, dim=0)\nreturn x.reshape((n, -1))",
     "x may be rebound on one path"),
    ("n = x.shape[0] if self.flag else 2\nreturn x.reshape((n, -1))", "n is a shape on one path only"),
    ("n = x.shape[0]\ny = x.reshape((n, -1))\nprint(n)\nreturn y", "n is printed"),
    ("n = x.shape[0]\nn = n + 1\nreturn x.reshape((n - 1, -1))", "arithmetic the codes cannot express"),
    ("y = self.fc(x)\nreturn y.reshape((x.shape[0], -1))", "another tensor's axis"),
    ("return x.reshape((x.shape[1], -1))", "axis 1 read at position 0"),
    ("k = 2\nn = x.shape[1] // k\nreturn x.reshape((0, k, n, -1))", "a local moved into the reshape"),
    ("b, c = x.shape[:2]\nreturn x.reshape((b, 2, c // 2, -1))",
     "a -1 after -4 (MXNet 1.9.1 writes it at the code index)"),
    ("return self._r(F, x, x.shape[0])", "the number goes into a helper"),
    ("y = F.relu(x)\nif y.shape[1] > 2:\n    y = y * 2\nreturn y", "a Python decision"),
    ("y = F.relu(x)\nreturn x.astype(y.dtype)", "no cast-like operator in MXNet 1.9.1"),
    ("return F.zeros((x.shape[0], x.shape[0]))", "one axis twice"),
    ("return x / (x.shape[0] // 2)", "floor division of a graph number"),
    ("return F.ones(self.shape, ctx=x.context)", "a static shape that may be a tuple"),
])
def test_not_converted_where_equivalence_cannot_be_shown(body, why):
    before = example(body, init="self.flag = True\nself.fc = nn.Dense(4)\nself.shape = (2, 3)",
                     extra="def _r(self, F, t, n):\n    return t.reshape((n, -1))")
    assert [f.code for f in check_source(before, "example.py")].count("HY006") >= 1
    fixed, left = _convert(before)
    assert fixed == before, why
    assert "HY006" in left


@pytest.mark.parametrize("body,expected", [
    ("for i in range(2):\n    n = x.shape[0]\n    y = x.reshape((n, -1))\n    x = F.concat(x, x, dim=0)\nreturn y",
     "y = x.reshape((0, -1))"),
    ("s = x.shape\nreturn x.reshape((s[0], -1))", "return x.reshape((0, -1))"),
    ("b, c, h, w = x.shape\nreturn x.reshape((b * c, h * w))", "return x.reshape((-3, -3))"),
    ("b, c, h, w = x.shape\nreturn x.reshape((b, -1, h, w))", "return x.reshape((0, -1, 0, 0))"),
    ("return x.reshape((self.k, x.shape[1], -1))", "return x.reshape((self.k, 0, -1))"),
    ("b, c, h, w = x.shape\nreturn x.reshape((-1, h, w))", "return x.reshape((-3, 0, 0))"),
    ("b, c, h, w = x.shape\nreturn x.reshape((b, -1, w))", "return x.reshape((0, -3, 0))"),
    ("return F.zeros((x.shape[-1], x.shape[-2]))",
     "return F.cast(F.zeros_like(F.transpose(F.sum(x, axis=(-2, -1), exclude=True), axes=(1, 0))), "
     "dtype='float32')"),
    ("y = F.relu(x)\nreturn y * y.size", "F.broadcast_mul(y, F.cast(F.size_array(y), dtype='float32'))"),
    ("return F.ones((2, 3 * self.k), dtype=x.dtype, ctx=x.context)",
     "return F.ones_like(F.tile(F.reshape(F.sum(x), shape=(1, 1)), reps=(2, 3 * self.k)))"),
])
def test_converted_and_equal_both_ways(body, expected):
    before = example(body, init="self.k = 2", inputs={"x": (2, 3, 4, 5)})
    fixed, left = _convert(before)
    assert expected in fixed
    assert "HY006" not in left
    both_ways(before, converted=fixed)


def test_a_shape_binding_stays_when_one_read_leaves_the_graph():
    before = example("b, c, h, w = x.shape\ny = x.reshape((b, c, h * w))\nreturn y * w",
                     inputs={"x": (2, 3, 4, 5)})
    fixed, left = _convert(before)
    # the reshape and the arithmetic convert; nothing reads the binding any more, so it goes too
    assert "x.reshape((0, 0, -3))" in fixed and "b, c, h, w" not in fixed and "HY006" not in left
    both_ways(before, converted=fixed)


def test_static_moved_into_a_split_is_unsafe():
    before = example("return x.reshape((-1, self.k) + x.shape[1:])", init="self.k = 2", inputs={"x": (4, 3)})
    assert fix_source(before, "example.py")[0] == before  # safe fixes only: unchanged
    fixed, left = _convert(before)
    assert "x.reshape((-4, -1, self.k, -2))" in fixed and "HY006" not in left
    both_ways(before, converted=fixed)


def test_only_the_statement_goes_and_an_emptied_block_keeps_pass():
    before = example("if self.flag:\n    n = x.shape[0]\n    x = x.reshape((n, -1))\nreturn x",
                     init="self.flag = True")
    fixed, _ = _convert(before)
    assert "    x = x.reshape((0, -1))\n" in fixed and "n = " not in fixed
    before = example("if self.flag:\n    n = x.shape[0]\nreturn x.reshape((n, -1))", init="self.flag = True")
    fixed, _ = _convert(before)
    assert "if self.flag:\n            pass\n" in fixed
    both_ways(before, converted=fixed)


@pytest.mark.parametrize("body,expected", [
    ("y = F.relu(x)\nreturn y.reshape((x.shape[0], -1))", "return y.reshape((0, -1))"),
    ("n = x.shape[0]\nx = F.Dropout(F.relu(x * 2), p=0.0)\nreturn x.reshape((n, -1))", "return x.reshape((0, -1))"),
    ("y = F.sigmoid(x) + x\nreturn y.reshape((x.shape[0], -1))", "return y.reshape((0, -1))"),
])
def test_operators_that_keep_the_shape_carry_the_measured_axes(body, expected):
    before = example(body)
    fixed, left = _convert(before)
    assert expected in fixed and "HY006" not in left
    both_ways(before, converted=fixed)


@pytest.mark.parametrize("body", [
    "y = x + F.sum(x, axis=0, keepdims=True)\nreturn y.reshape((F.sum(x).shape[0], -1))",
    "y = self.fc(x)\nreturn y.reshape((x.shape[0], -1))",
    "y = F.sum(x, axis=1)\nreturn y.reshape((x.shape[0], -1))",
])
def test_operators_that_may_change_the_shape_do_not(body):
    before = example(body, init="self.fc = nn.Dense(4)")
    last = before.rstrip("\n").splitlines()[-1]  # (HY013 may convert a broadcasting ``+`` above)
    fixed, left = _convert(before)
    assert last in fixed and "HY006" in left


def test_a_number_read_from_a_tensor_stays_a_tensor_through_a_name():
    """HY001 through a binding: every read next to a tensor, nested arithmetic included."""
    before = example("y = self.fc(x)\nm = F.max(y)\ns = m.asscalar()\nreturn y * s - s", init="self.fc = nn.Dense(3)")
    fixed, left = _convert(before)
    assert "s = " not in fixed and "HY001" not in left
    both_ways(before, converted=fixed)
    for body in ("m = F.mean(x)\nc = m.asscalar()\nprint(c)\nreturn x - c",   # leaves the graph
                 "c = F.mean(x).asscalar()\nreturn x - c",                       # no name holds the tensor
                 "m = F.mean(x)\nc = m.asscalar()\nreturn x - c * 2"):          # numpy scalar arithmetic
        before = example(body)
        assert _convert(before)[0] == before


def test_reshape_like_replaces_a_range_of_axes():
    before = example("y = F.reshape(x, (6, 4, 5))\nreturn y.reshape(x.shape[:2] + y.shape[1:])",
                     inputs={"x": (2, 3, 4, 5)})
    fixed, left = _convert(before)
    assert "return F.reshape_like(y, x, lhs_end=1, rhs_end=2)" in fixed and "HY006" not in left
    both_ways(before, converted=fixed)
    # y's axes counted from both ends: which ones the range replaces is unknown without y's rank
    before = example("y = F.reshape(x, (2, 4, 15))\nreturn y.reshape(y.shape[:1] + x.shape[1:2] + y.shape[-2:])",
                     inputs={"x": (2, 3, 4, 5)})
    assert _convert(before)[0] == before


def test_shape_keeping_names_are_operators_or_methods_the_runtime_has():
    # a name here that F does not have would make the converter trust a call that fails anyway
    import hybridize.runtime as mx
    from hybridize.runtime.ops.registry import find_op
    from hybridize.transpile.convert.shapes import SHAPE_KEEPING
    assert sorted(n for n in SHAPE_KEEPING if find_op(n) is None and not hasattr(mx.nd.NDArray, n)) == []
