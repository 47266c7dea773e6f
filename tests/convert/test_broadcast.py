"""HY013 (tensor arithmetic that broadcasts on NDArray, not on Symbol) and its conversion
(transpile/convert/broadcast.py): what the analysis can tell, severities, what is not rewritten,
and the conversion both ways. The rule's own examples run in ``test_rule_examples.py`` /
``test_both_ways.py`` (there also on MXNet 1.9.1)."""
from __future__ import annotations

import pytest

from both_ways import both_ways

from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.diagnostics import Severity
from hybridize.transpile.emit.output import convert_module
from hybridize.transpile.emit.rewrite import blocking
from hybridize.transpile.rules.base import example


def _hy013(body: str, **kwargs) -> list:
    return [f for f in check_source(example(body, **kwargs), "example.py") if f.code == "HY013"]


@pytest.mark.parametrize("body", [
    "return x - F.mean(x, axis=1, keepdims=True)",
    "return F.relu(x) * x.sum(axis=(1, 2), keepdims=True)",
    "return x + x.max(axis=-1)",                        # ranks differ
    "return x / F.sum(x)",                              # (1,) against x
    "y = F.relu(x)\nreturn y[0:1] * y",
    "return F.expand_dims(x, axis=0) * F.expand_dims(x, axis=1)",
    "m = F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), axis=1)\nreturn x - F.expand_dims(m, axis=1)",
    "y = x.reshape((2, 1, 3))\nreturn y * x.reshape((3,))",
])
def test_shapes_that_differ_for_every_real_input_are_errors(body):
    [finding] = _hy013(body)
    assert finding.severity is Severity.ERROR and "shapes differ" in finding.message


@pytest.mark.parametrize("body,signature", [
    ("return x * w.reshape((1, -1, 1))", "self, F, x, w"),
    ("return x - F.expand_dims(w, axis=1)", "self, F, x, w"),
    ("return x * F.mean(w, axis=0, keepdims=True)", "self, F, x, w"),
])
def test_a_broadcasting_shape_against_an_unknown_one_is_a_warning(body, signature):
    [finding] = _hy013(body, signature=signature)
    assert finding.severity is Severity.WARNING and "may differ" in finding.message


@pytest.mark.parametrize("body,signature", [
    ("y = F.relu(x)\nreturn y * x + F.sigmoid(x) / F.tanh(y) - (x > 0) * 2", "self, F, x"),
    ("m = F.mean(x, axis=1, keepdims=True)\nreturn m * F.exp(m) - m", "self, F, x"),
    ("return F.expand_dims(x, axis=1) * F.expand_dims(w, axis=1)", "self, F, x, w"),
    ("return x.sum(axis=0) * x.sum(axis=1)", "self, F, x"),    # equal on square tensors
    ("return x.reshape((-1, 1)) * w.reshape((-1, 1))", "self, F, x, w"),
    ("return F.broadcast_mul(x, F.mean(x, axis=1, keepdims=True))", "self, F, x"),
    ("m = F.mean(x, axis=1, keepdims=True)\nif self.flag:\n    y = F.relu(x)\nelse:\n    y = F.tanh(x)\n"
     "return F.broadcast_sub(y, m) + y", "self, F, x"),
    ("return x * w", "self, F, x, w"),                          # nothing known: not reported
])
def test_nothing_is_reported_without_evidence(body, signature):
    assert _hy013(body, signature=signature) == []


@pytest.mark.parametrize("body,signature", [
    # both operands are full reductions: MXNet's legacy shape (1,) on both sides
    ("reg = F.sum(w) * 0.5 if self.flag else 0.0\nreturn F.sum(x) + reg", "self, F, x, w"),
    ("reg = 0.0\nif self.flag:\n    reg = F.sum(w) * 0.5\nreturn F.sum(x) + reg", "self, F, x, w"),
    # a literal F.array has a known shape: (1,) here, like a full reduction
    ("acc = F.array([0.])\nreturn acc + 2 / F.sum(x)", "self, F, x"),
])
def test_full_reductions_against_scalars_and_1_element_literals_are_equal_shapes(body, signature):
    assert _hy013(body, signature=signature) == []


@pytest.mark.parametrize("body,signature", [
    ("reg = F.sum(w, axis=1) if self.flag else 0.0\nreturn F.sum(x) + reg", "self, F, x, w"),
    ("acc = F.array([[0., 1.]])\nreturn acc + F.sum(x)", "self, F, x"),
])
def test_a_scalar_path_or_a_literal_array_keeps_the_other_shape_facts(body, signature):
    [finding] = _hy013(body, signature=signature)
    assert "shapes" in finding.message


def test_both_findings_of_a_nested_expression_are_reported():
    # ``y * g + b``: the product and the sum start at the same column
    found = _hy013("y = x.reshape((0, 0, -1))\nreturn y * g.reshape((1, -1, 1)) + b.reshape((1, -1, 1))",
                   signature="self, F, x, g, b")
    assert sorted(f.message.split("`")[1] for f in found) == ["*", "+"]


def test_a_helper_result_keeps_only_its_literal_shape():
    # a memoised helper result may stand for a call with other tensors: no relation survives it
    text = example("a = self._mean(F, x)\nb = self._mean(F, F.relu(x))\nreturn x - b + a",
                   extra="def _mean(self, F, t):\n    return F.mean(t, axis=1, keepdims=True)")
    found = [f for f in check_source(text, "example.py") if f.code == "HY013"]
    assert all(f.severity is Severity.WARNING for f in found)


def test_numpy_mode_branches_are_not_reported():
    text = example("m = F.mean(x, axis=1, keepdims=True)\nif is_np_array():\n    return x - m\n"
                   "return F.broadcast_sub(x, m)",
                   extra="")
    text = "from mxnet.util import is_np_array\n" + text
    assert [f for f in check_source(text, "example.py") if f.code == "HY013"] == []


def test_the_conversion_keeps_comments_and_drops_needless_parentheses():
    before = example("m = F.mean(x, axis=1, keepdims=True)\nreturn (x - m) * (  # centred\n    m)")
    fixed, _, left = fix_source(before, "example.py")
    assert "F.broadcast_mul(F.broadcast_sub(x, m), (  # centred\n" in fixed
    assert not [f for f in left if f.code == "HY013"]
    both_ways(before, converted=fixed)


def test_a_comparison_chain_is_not_rewritten():
    # ``a < b < c`` is ``a < b and b < c`` (a truth-value test), not one broadcasting comparison
    fixed, _, left = fix_source(example("m = F.mean(x, axis=1, keepdims=True)\nreturn (x - 1 < m < x)"),
                                "example.py", unsafe=True)
    assert "m < x" in fixed and "broadcast" not in fixed


def test_without_F_the_finding_stays_and_transpile_refuses_the_module():
    text = ("from mxnet.gluon import nn\n\n\ndef center(x, m):\n    return x - m\n\n\n"
            "class Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        return center(x, F.mean(x, axis=1, keepdims=True))\n")
    [finding] = [f for f in check_source(text, "net.py") if f.code == "HY013"]
    assert finding.fix is None and blocking([finding])


def test_transpile_emits_the_converted_graph_of_a_groupnorm_like_block():
    body = ("y = x.reshape((0, 0, -1))\n"
            "y = F.broadcast_div(F.broadcast_sub(y, y.mean(axis=2, keepdims=True)), 1 + y.max(axis=2, keepdims=True))\n"
            "return (y * gamma.reshape((1, -1, 1)) + beta.reshape((1, -1, 1))).reshape_like(x)")
    text = example(body, signature="self, F, x, gamma, beta", inputs={"x": (2, 4, 3), "gamma": (4,), "beta": (4,)})
    import os
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "gn.py")
        with open(path, "w") as handle:
            handle.write(text)
        from hybridize.transpile.emit.imports import Tree

        result = convert_module(text, path, Tree.for_path(path), "gn.py")
    assert result.code is not None and result.converted_codes.count("HY013") == 2
    both_ways(text)
