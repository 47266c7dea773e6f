"""Inputs of ``hybrid_forward`` are tensors (MXNet 1.9.1 documents ``x`` as "the first input
tensor" and ``*args`` as "additional input tensors"), unless the code itself says that one is a
list, a tuple or ``None``.

Each reported construct is checked on MXNet 1.9.1 (``fixtures/input_contract/record.py`` ->
``mxnet.json``): hybridized, it computes something else or fails.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hybridize.transpile.check.checker import check_source
from hybridize.transpile.rules.base import example

FIXTURE = Path(__file__).parent / "fixtures" / "input_contract"
RECORD = json.loads((FIXTURE / "mxnet.json").read_text())
_EXPECT = re.compile(r"#\s*expect:\s*(HY\d+)")


def _codes(source: str) -> list[tuple[int, str]]:
    return sorted((f.start.row, f.code) for f in check_source(source, "m.py"))


def test_every_marked_construct_is_reported_and_nothing_else():
    text = (FIXTURE / "cases.py").read_text()
    expected = sorted((n, m.group(1)) for n, line in enumerate(text.splitlines(), 1) if (m := _EXPECT.search(line)))
    assert len(expected) == 5
    assert _codes(text) == expected


@pytest.mark.parametrize("block", ["Rows", "First", "Labels"])
def test_each_reported_construct_changes_the_result_on_mxnet(block):
    entry = RECORD[block]
    assert RECORD["mxnet_version"] == "1.9.1"
    assert entry["differs"]
    assert entry["imperative"][0] == entry["imperative"][1] and "error" not in entry["imperative"][0]
    # a loop over the input runs once (the Dense then meets the whole batch); x[0] is x; the
    # comprehension sees one "row", the whole target
    hybrid = entry["hybridized"][0]
    assert "error" in hybrid if block == "Rows" else hybrid["shape"] != entry["imperative"][0]["shape"]


def test_repeated_stores_on_self_each_keep_a_symbol_on_mxnet():
    entry = RECORD["Features"]
    assert entry["features_after_imperative"] == [4, ["NDArray"]]  # two calls, two stores each
    assert entry["features_after_hybridized"] == [2, ["Symbol"]]  # traced once: both stores, Symbols


def test_a_loop_over_an_input_is_reported_with_the_contract_as_the_reason():
    findings = check_source(example("out = []\nfor row in x:\n    out.append(self.fc(row))\nreturn F.stack(*out)",
                                    init="self.fc = nn.Dense(3)"), "m.py")
    assert [f.code for f in findings] == ["HY005"]
    assert findings[0].message.endswith("`x` is a tensor: it is an input of `hybrid_forward`")


@pytest.mark.parametrize("body,signature", [
    ("return x[0]", "self, F, x"),
    ("return F.concat(*[F.relu(t) for t in target], dim=0)", "self, F, x, target"),
    ("return F.add_n(*[r * 2 for r in x])", "self, F, x"),
], ids=["index", "comprehension", "star-comprehension"])
def test_rows_of_an_input_without_other_use_are_reported(body, signature):
    assert [code for _, code in _codes(example(body, signature=signature))] in (["HY010"], ["HY005"])


@pytest.mark.parametrize("body,signature", [
    ("if states is None:\n    return x\nreturn x + states[0]", "self, F, x, states"),
    ("if isinstance(feats, (list, tuple)):\n    feats = feats[0]\nreturn feats * 2", "self, F, feats"),
    ("n = len(feats)\nreturn F.add_n(*[feats[i] for i in range(n)])", "self, F, feats"),
    ("h, c = states\nreturn x + h + c", "self, F, x, states"),
    ("return F.concat(x, *extra, dim=1)", "self, F, x, extra"),
    ("return states[0] + states[1]", "self, F, x, states"),
    ("y = self.up(feats[-1])\nfor i in range(3):\n    y = y + feats[i]\nreturn y", "self, F, feats"),
    ("for i in range(2):\n    x[i] = self.up(x[i])\nreturn x", "self, F, x"),
    ("outs = [blk(xi) for blk, xi in zip(self._children.values(), x)]\nreturn F.concat(*outs, dim=1)",
     "self, F, x"),
    ("if self.split:\n    lens = lens[0]\nreturn F.relu(x), lens", "self, F, x, lens"),
    ("return F.concat(*[f[-1] for f in feats], dim=1)", "self, F, feats"),
    ("return F.stack(*[r for r in rows])", "self, F, rows: List[Tensor]"),
], ids=["is-None", "isinstance", "len", "unpacking", "star-args", "two-positions", "last-and-loop-position",
        "item-assignment", "zip-with-children", "element-replaces-it", "last-of-each-element", "annotated-list"])
def test_inputs_the_code_treats_as_lists_are_not_reported(body, signature):
    init = "self.up = nn.Conv2D(4, 1)\nself.split = True"
    head = "from typing import List\nfrom mxnet.ndarray import NDArray as Tensor\n" if "List" in signature else ""
    assert _codes(head + example(body, init=init, signature=signature)) == []


def test_a_recurrent_cells_states_are_a_list_by_its_contract():
    cell = ("from mxnet.gluon import rnn\n\n\nclass Cell(rnn.HybridRecurrentCell):\n"
            "    def hybrid_forward(self, F, inputs, states):\n"
            "        h = F.tanh(inputs + states[0])\n        return h, [h]\n")
    assert _codes(cell) == []
    plain = cell.replace("rnn.HybridRecurrentCell", "rnn.HybridBlock")
    assert _codes(plain) == [(6, "HY010")]  # the same code in a plain block: states is a tensor


def _module(text: str, name: str):
    import types

    module = types.ModuleType(name)
    exec(compile(text, f"{name}.py", "exec"), module.__dict__)  # noqa: S102 - the test's own fixture
    return module


def test_transpile_converts_each_construct_and_the_graph_equals_the_imperative_original(tmp_path):
    """What transpile writes (``F.contrib.foreach`` for the loop and the comprehension, ``F.slice_axis``
    for ``x[0]``) computes, as one graph, what the original computes imperatively (the runtime's
    imperative results equal MXNet's: the runtime's own tests)."""
    import numpy as np
    from click.testing import CliRunner

    import hybridize.runtime as mx
    from hybridize.transpile.emit.cli import transpile

    src = tmp_path / "src"
    src.mkdir()
    (src / "cases.py").write_text((FIXTURE / "cases.py").read_text())
    res = CliRunner().invoke(transpile, [str(src), "-o", str(tmp_path / "out")], catch_exceptions=False)
    assert res.exit_code == 0 and "3 conversions applied" in res.stderr, res.output
    converted = _module((tmp_path / "out" / "src" / "cases.py").read_text(), "converted_cases")
    original = _module((FIXTURE / "cases.py").read_text().replace("from mxnet.gluon", "from hybridize.runtime.gluon"),
                       "original_cases")
    for name in ("Rows", "First", "Labels"):
        shape, dtype = original.INPUTS[name]
        rng = np.random.RandomState(0)
        x = mx.nd.array((rng.randint(0, 4, shape) if name == "Labels" else rng.uniform(-1, 1, shape)).astype(dtype))
        before, after = getattr(original, name)(), getattr(converted, name)()
        before.initialize()
        after.initialize()
        expected = before(x)
        for p, q in zip(before.collect_params().values(), after.collect_params().values()):
            q.set_data(p.data())
        assert list(expected.shape) == RECORD[name]["imperative"][0]["shape"]  # as on MXNet
        np.testing.assert_allclose(after(x).asnumpy(), expected.asnumpy(), rtol=1e-5, atol=1e-6)
