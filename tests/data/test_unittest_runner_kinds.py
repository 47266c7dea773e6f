"""The MXNet unit-test runner tells gradient tests from forward tests by their source: a test is a
gradient test when it, or a helper of its file it calls, runs a backward pass, records with
autograd, uses a gradient check of test_utils or takes a training step."""
from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "mxnet_unittests" / "run.py"

SOURCE = '''
import mxnet as mx

def check_helper(x):
    y = mx.nd.relu(x)
    y.backward()

def shape_helper(x):
    return x.shape

def test_forward_only():
    assert shape_helper(mx.nd.ones((2,))) == (2,)
    exe = mx.sym.Variable('x').simple_bind(mx.cpu(), x=(2,), grad_req='null')
    exe.forward()

def test_through_a_helper():
    check_helper(mx.nd.ones((2,)))

def test_numeric():
    check_numeric_gradient(mx.sym.Variable('x'), [mx.nd.ones((2,))])

def test_module():
    mod = mx.mod.Module(None)
    mod.forward_backward(None)
    mod.update()

def test_trainer():
    trainer = mx.gluon.Trainer({}, 'sgd')
    trainer.step(1)

def test_recording():
    with mx.autograd.record():
        pass

@unittest.skip("MXNet skips it")
def test_skipped():
    x.backward()
'''


@pytest.fixture(scope="module")
def run_py():
    spec = importlib.util.spec_from_file_location("mxut_run", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_kinds_from_the_source(run_py, tmp_path):
    path = tmp_path / "test_sample.py"
    path.write_text(textwrap.dedent(SOURCE))
    assert run_py.kinds(str(path)) == {
        "test_forward_only": "forward", "test_through_a_helper": "gradient", "test_numeric": "gradient",
        "test_module": "gradient", "test_trainer": "gradient", "test_recording": "gradient",
        "test_skipped": "forward"}
    # the scope is decided apart: every test here is in scope but the skipped one
    assert run_py.classify(str(path))["test_skipped"] == "skipped"
    assert run_py.classify(str(path))["test_through_a_helper"] == "in"
