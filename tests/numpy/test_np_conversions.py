"""The conversions of np-mode findings emit ``F.np``/``F.npx`` code that computes what the imperative
np-mode code computes, on MXNet 1.9.1 and on the runtime.

``fixtures/conversions.json`` (``tools/numpy_sym/record.py``) holds, for every case of
``np_cases.CONVERSIONS``, MXNet 1.9.1's output of the original body run imperatively and of the
converted body hybridized (with the input's gradient), and MXNet's refusals of what the legacy
conversions would emit on np-mode arrays (``np_cases.UNAVAILABLE``).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as onp
import pytest
from hybridize.runtime import autograd, npx
from hybridize.runtime import np as mnp
from hybridize.transpile.check.checker import check_source, fix_source
from np_cases import CONVERSIONS, UNAVAILABLE, module_text

RECORD = json.loads((Path(__file__).parent / "fixtures" / "conversions.json").read_text())


def _runtime_block(body: str):
    text = module_text(body).replace("from mxnet import np, npx", "from hybridize.runtime import np, npx") \
        .replace("from mxnet.gluon import nn", "from hybridize.runtime.gluon import nn")
    scope: dict = {}
    exec(compile(text, "<case>", "exec"), scope)  # noqa: S102 - the case is the program
    net = scope["Net"]()
    net.initialize()
    return net


def _input():
    return mnp.array(onp.arange(24, dtype="float32").reshape(2, 3, 4) / 10)


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def test_every_conversion_was_recorded_on_mxnet_as_written():
    assert set(RECORD["conversions"]) == set(CONVERSIONS)
    assert set(RECORD["unavailable"]) == set(UNAVAILABLE)
    for name, (body, converted, unsafe) in CONVERSIONS.items():
        got = RECORD["conversions"][name]
        assert (got["body"], got["converted"], got["unsafe"]) == (body, converted, unsafe), \
            f"{name}: re-run tools/numpy_sym/record.py conversions"


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_the_checker_writes_the_recorded_conversion(name):
    body, converted, unsafe = CONVERSIONS[name]
    text, fixed, rest = fix_source(module_text(body), "case.py", unsafe=unsafe)
    assert fixed >= 1 and not rest
    assert text == module_text(converted)
    assert "F.np." in text or "F.npx." in text
    if unsafe:  # plain --fix leaves it
        assert fix_source(module_text(body), "case.py")[0] == module_text(body)


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_mxnet_hybridizes_the_conversion_to_the_imperative_result(name):
    case = RECORD["conversions"][name]
    original, hybridized = case["original"], case["hybridized"]
    assert original["ok"] and hybridized["ok"], hybridized
    assert original["shape"] == hybridized["shape"] and hybridized["dtype"] == "float32"
    onp.testing.assert_allclose(hybridized["value"], original["value"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CONVERSIONS))
def test_the_runtime_computes_both_sides_as_mxnet(name):
    body, converted, _ = CONVERSIONS[name]
    case = RECORD["conversions"][name]
    want = onp.asarray(case["original"]["value"], dtype="float32").reshape(case["original"]["shape"])
    imperative = _runtime_block(body)(_input())
    onp.testing.assert_allclose(imperative.asnumpy(), want, rtol=1e-5, atol=1e-6)
    net = _runtime_block(converted)
    net.hybridize()
    x = _input()
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward()
    assert isinstance(y, mnp.ndarray) and y.dtype == onp.float32
    onp.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(x.grad.asnumpy().ravel(), case["hybridized"]["grad"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(UNAVAILABLE))
def test_legacy_forms_are_refused_on_np_mode_arrays_by_mxnet(name):
    """Why ``cond``/``while_loop`` keep their finding, and loops over rows and gradient-free values
    bridge their arrays to ``F.contrib.foreach`` / ``F.BlockGrad``."""
    assert not RECORD["unavailable"][name]["hybridized"]["ok"]


def test_np_mode_findings_without_an_np_equivalent_keep_their_advice():
    loop = module_text("h = x * 2\nreturn F.np.stack([r for r in h if r.sum() > 0])")
    bounded = module_text("h = x * 2\ni = 0\nwhile i < 3 and h.sum() > 1:\n    h = h / 2\n    i += 1\nreturn h")
    value = module_text("print(float(x.sum()))\nreturn x")
    for text, code in ((loop, "HY005"), (bounded, "HY004"), (value, "HY009")):
        findings = [f for f in check_source(text, "case.py") if f.code == code]
        assert findings and all(f.fix is None for f in findings), code
    assert "no `while_loop` for np-mode arrays" in [f for f in check_source(bounded, "case.py")][0].message
