"""The checker on np-mode code (``npx.set_np()``), held to MXNet 1.9.1's recorded behaviour.

``fixtures/semantics.json`` holds, for every case of ``np_cases.py``, what MXNet 1.9.1 did with
the block imperatively and hybridized (``tools/numpy_sym/record.py``).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hybridize.transpile.analysis import analyze_text
from hybridize.transpile.check.checker import check_source, fix_source
from hybridize.transpile.diagnostics import Severity
from np_cases import CASES, WARNINGS, module_text

RECORD = json.loads((Path(__file__).parent / "fixtures" / "semantics.json").read_text())["cases"]


def _codes(text: str) -> tuple[str, ...]:
    return tuple(sorted({f.code for f in check_source(text, "case.py")}))


def _mxnet_agrees(name: str) -> bool:
    imp, hyb = RECORD[name]["imperative"], RECORD[name]["hybridized"]
    return imp["ok"] and hyb["ok"] and imp["shape"] == hyb["shape"] and imp["value"] == hyb["value"]


def test_every_case_was_recorded_on_mxnet_as_written():
    assert set(RECORD) == set(CASES)
    for name, (body, _) in CASES.items():
        assert RECORD[name]["body"] == body, f"{name}: re-run tools/numpy_sym/record.py"


@pytest.mark.parametrize("name", sorted(CASES))
def test_np_mode_finding_matches_mxnet(name):
    body, expected = CASES[name]
    codes = _codes(module_text(body))
    assert codes == tuple(sorted(expected))
    errors = [c for c in codes if c not in WARNINGS]
    if _mxnet_agrees(name):
        assert not errors, f"MXNet 1.9.1 hybridizes `{body}` to the imperative result, yet {errors}"
    else:
        assert errors, f"MXNet 1.9.1 hybridized `{body}` differently: {RECORD[name]['hybridized']}"


@pytest.mark.parametrize("name,legacy", [
    ("slice", "HY010"), ("int_tuple", "HY010"), ("reshape_positional", "HY011"),
    ("broadcast_column", "HY013"),
])
def test_the_same_code_on_a_legacy_symbol_is_still_reported(name, legacy):
    text = module_text(CASES[name][0]).replace("from mxnet import np, npx\n", "from mxnet import nd\n") \
        .replace("npx.set_np()\n", "").replace("F.np.ones", "F.ones")
    assert legacy in _codes(text)


@pytest.mark.parametrize("head,np_mode", [
    ("from mxnet import np, npx\n", True),
    ("import mxnet as mx\nmx.npx.set_np()\n", True),
    ("from mxnet.util import use_np\n", False),
    ("import mxnet.numpy as mnp\n", True),
    ("from mxnet import numpy_extension as npx\n", True),
    ("import numpy as np\nfrom mxnet import nd\n", False),
    ("from mxnet import nd\n", False),
])
def test_np_mode_is_decided_by_imports_and_switches(head, np_mode):
    text = head + "from mxnet.gluon import nn\n\n\nclass Net(nn.HybridBlock):\n" \
                  "    def hybrid_forward(self, F, x):\n        return F.relu(x)\n"
    assert analyze_text(text).index.np_mode is np_mode


def test_use_np_decorator_and_F_np_switch_np_mode_on():
    base = "from mxnet.gluon import nn\n{head}\n\n{deco}class Net(nn.HybridBlock):\n" \
           "    def hybrid_forward(self, F, x):\n        return {call}\n"
    assert analyze_text(base.format(head="from mxnet.util import use_np", deco="@use_np\n", call="x")).index.np_mode
    assert analyze_text(base.format(head="", deco="", call="F.npx.relu(x)")).index.np_mode
    # Gluon's own layers ask is_np_array() and run in both modes: judged by the stricter legacy rules
    dual = base.format(head="from mxnet.util import is_np_array", deco="",
                       call="F.npx.relu(x) if is_np_array() else F.relu(x)")
    assert not analyze_text(dual).index.np_mode


def test_np_api_inside_hybrid_forward_becomes_F_np():
    text, fixed, rest = fix_source(module_text("h = npx.relu(x)\nreturn np.tanh(h) + np.ones((4,))"), "case.py")
    assert fixed == 3 and not rest
    assert "return F.np.tanh(h) + F.np.ones((4,))" in text and "h = F.npx.relu(x)" in text


def test_np_random_and_numpy_only_functions_keep_the_finding_without_fix():
    text = module_text("return x + np.random.normal(size=(4,)) + np.meshgrid(x)[0]")
    findings = [f for f in check_source(text, "case.py") if f.code == "HY007"]
    assert findings and all(f.fix is None for f in findings)


def test_np_mode_conversions_emit_only_the_np_interface():
    """A legacy operator applied to np-mode tensors is not what the code computed: every conversion
    in np-mode code writes ``F.np``/``F.npx``, but for ``F.contrib.foreach`` and ``F.BlockGrad`` (none in
    the np interface of MXNet 1.9.1), given and giving legacy arrays through ``as_nd_ndarray``/``as_np_ndarray``
    (``test_np_conversions.py`` runs them on MXNet)."""
    for body, _ in CASES.values():
        text, _, _ = fix_source(module_text(body), "case.py", unsafe=True)
        legacy = [f for f in re.findall(r"\bF\.(?!np\.|npx\.)\w+", text) if f not in ("F.contrib", "F.BlockGrad")]
        assert not legacy, (body, legacy)
        if "F.contrib.foreach" in text or "F.BlockGrad" in text:  # legacy operators: arrays bridged both ways
            assert ".as_nd_ndarray()" in text and ".as_np_ndarray()" in text
    # ``x.shape[0]`` as a number: F.npx.shape_array (unsafe: the number becomes a float32 array)
    findings = check_source(module_text(CASES["shape"][0]), "case.py")
    assert [f.code for f in findings] == ["HY006"] and findings[0].severity is Severity.ERROR
    assert "F.npx.shape_array" in findings[0].fix.edits[0].content
    # ``h += 1`` -> ``h = h + 1`` emits no operator: it stays
    text, fixed, _ = fix_source(module_text("h = x * 2\nh += 1\nreturn h"), "case.py")
    assert fixed == 1 and "h = h + 1" in text


def test_none_key_becomes_expand_dims_as_mxnet_computes_it():
    """``x[:, None]`` fails hybridized on MXNet 1.9.1; its conversion is the recorded
    ``F.np.expand_dims(x, 1)`` case, which MXNet hybridizes to the imperative ``x[:, None]``."""
    text, fixed, rest = fix_source(module_text(CASES["none_key_middle"][0]), "case.py")
    assert fixed == 1 and not rest and text == module_text(CASES["expand_dims"][0])
    assert RECORD["expand_dims"]["hybridized"]["value"] == RECORD["none_key_middle"]["imperative"]["value"]
    assert not _mxnet_agrees("none_key_middle") and _mxnet_agrees("expand_dims")
    text, fixed, _ = fix_source(module_text("return x[None] + x[..., 0].sum()"), "case.py")
    assert fixed == 2 and "F.np.expand_dims(x, 0)" in text and "F.np.moveaxis(x, -1, 0)[0].sum()" in text
