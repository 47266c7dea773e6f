"""Errors as MXNet 1.9.1 raises them: ``MXNetError`` where MXNet raises one (zero-size
arrays, ``diag`` beyond the matrix, ``space_to_depth(block_size=0)``, Pooling's 'same' convention
with a pad, LayerNorm widths, shape checks of common ops, exceptions inside ``CustomOp.forward``)
and the builtin exception where MXNet's Python code raises that (``moveaxis``: ValueError).

The runtime's errors stay typed: each is an ``MXNetError`` (a RuntimeError, as MXNet's) and a
subclass that says what went wrong (``ShapeError``, ``OperatorError``, ``CustomOpError`` ...).
Expected outcomes: ``data/interop_cases.json``, recorded from MXNet 1.9.1 (``data/make_interop_cases.py``).
"""
from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import base, nd

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = json.load(open(os.path.join(HERE, "data", "interop_cases.json")))
_spec = importlib.util.spec_from_file_location("interop_calls", os.path.join(HERE, "data", "interop_calls.py"))
calls = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calls)

ERROR_CALLS = calls.error_calls(mx, nd, np)
CUSTOM_CALLS = calls.custom_calls(mx, nd)
# numpy shape semantics (mx.np_shape) are decided by mx.np's own tests (tests/numpy)
OUT_OF_SCOPE = {name for name in ERROR_CALLS if name.startswith("np_shape_")}


@pytest.mark.filterwarnings("ignore:Mean of empty slice:RuntimeWarning")
@pytest.mark.parametrize("name", sorted(set(ERROR_CALLS) - OUT_OF_SCOPE))
def test_outcome_as_mxnet(name):
    calls.check_outcome(name, CASES["errors"][name], ERROR_CALLS[name], mx.MXNetError)


@pytest.mark.parametrize("name", sorted(CUSTOM_CALLS))
def test_custom_op_outcome_as_mxnet(name):
    calls.check_outcome(name, CASES["custom_errors"][name], CUSTOM_CALLS[name], mx.MXNetError)


def test_custom_op_error_keeps_the_original():
    with pytest.raises(base.CustomOpError) as info:
        CUSTOM_CALLS["value_error"]()
    assert isinstance(info.value.__cause__, ValueError)
    assert "ic_value" in str(info.value) and "value error inside forward" in str(info.value)


def test_error_hierarchy_is_mxnets():
    """MXNetError is a RuntimeError (as MXNet's); every typed error of the runtime is an MXNetError;
    several are also the builtin error that describes them, so existing ``except`` clauses work."""
    assert issubclass(mx.MXNetError, RuntimeError) and mx.MXNetError is base.HybridizeError
    for cls, builtin in [(base.ShapeError, ValueError), (base.OperatorError, ValueError),
                         (base.OperatorArgumentError, TypeError), (base.UnknownOpError, KeyError),
                         (base.NoGradientError, NotImplementedError), (base.LoadError, None),
                         (base.CustomOpError, None), (base.NotImplementedForSymbol, None)]:
        assert issubclass(cls, mx.MXNetError), cls
        if builtin is not None:
            assert issubclass(cls, builtin), cls


def test_kernel_failures_name_the_operator_and_shapes():
    with pytest.raises(base.OperatorError, match=r"FullyConnected.*\(2, 3\), \(4, 5\)"):
        nd.FullyConnected(nd.ones((2, 3)), nd.ones((4, 5)), nd.ones((4,)), num_hidden=4)
    with pytest.raises(mx.MXNetError, match="block"):
        nd.space_to_depth(nd.ones((1, 4, 4, 4)), block_size=0)


def test_bad_attributes_are_mxnet_errors_and_type_errors():
    """MXNet's parameter parser raises MXNetError for an unknown attribute, a value of the wrong form
    or a missing input; the runtime's error is also a TypeError, as it was before."""
    for call in (lambda: nd.take(nd.ones((2, 3)), nd.array([0]), mode="nope"),
                 lambda: nd.Convolution(nd.ones((1, 1, 3, 3)), nd.ones((1, 1, 1, 1)), kernel=(1, 1), num_filter=1,
                                        no_bias=True, nonsense=3),
                 lambda: nd.reshape(nd.ones(2), shape="abc"),
                 lambda: nd.FullyConnected(nd.ones((2, 3)), num_hidden=3)):
        with pytest.raises(mx.MXNetError):
            call()
        with pytest.raises(TypeError):
            call()


def test_hybridized_shape_mismatch_is_an_mxnet_error():
    from hybridize.runtime.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3))
    net.initialize()
    net.hybridize()
    net(nd.ones((2, 3)))
    with pytest.raises(mx.MXNetError):
        net(nd.ones((2, 5)))


def test_cli_prints_one_line_for_an_operator_error(tmp_path):
    """An MXNetError from an operator reaches the command line as one line, exit status non-zero."""
    import subprocess
    import sys
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    sym.save(str(tmp_path / "m-symbol.json"))
    nd.save(str(tmp_path / "m-0000.params"), {"arg:fc_weight": nd.ones((4, 3)), "arg:fc_bias": nd.zeros((4,))})
    np.save(tmp_path / "x.npy", np.ones((2, 5), dtype=np.float32))
    proc = subprocess.run([sys.executable, "-m", "hybridize.cli", "run", str(tmp_path / "m-symbol.json"),
                           "--params", str(tmp_path / "m-0000.params"), "--input", str(tmp_path / "x.npy")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
