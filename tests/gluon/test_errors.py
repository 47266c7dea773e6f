"""Bad input: a clear error naming the block and the parameter, the file entry, or the source line."""
from __future__ import annotations

import numpy as np
import pytest

from hybridize.runtime import nd
from hybridize.runtime.base import HybridizeError, LoadError, NotImplementedForSymbol
from hybridize.runtime.gluon import ParameterNotInitializedError, TraceError, nn


@pytest.mark.parametrize("hybridize", [False, True])
def test_call_before_initialize_names_block_and_parameter(hybridize):
    net = nn.HybridSequential()
    net.add(nn.Dense(3), nn.Dense(2))
    if hybridize:
        net.hybridize()
    first = net[0]
    with pytest.raises(ParameterNotInitializedError) as ei:
        net(nd.ones((2, 4)))
    msg = str(ei.value)
    assert f"Parameter '{first.name}_weight' of block '{first.name}' has not been initialized" in msg
    assert "initialize()" in msg
    assert isinstance(ei.value, RuntimeError) and isinstance(ei.value, HybridizeError)


def test_call_before_initialize_known_shapes():
    d = nn.Dense(3, in_units=4)
    with pytest.raises(ParameterNotInitializedError, match=f"'{d.name}_weight' of block '{d.name}'"):
        d(nd.ones((2, 4)))


@pytest.fixture
def saved(tmp_path):
    net = nn.HybridSequential()
    net.add(nn.Dense(3), nn.Dense(2))
    net.initialize()
    net(nd.ones((2, 4)))
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    return net, path


def _net(*layers):
    n = nn.HybridSequential()
    n.add(*layers)
    return n


def test_load_missing_entry_is_named(saved):
    _, path = saved
    net = _net(nn.Dense(3), nn.Dense(2), nn.Dense(5))
    with pytest.raises(LoadError) as ei:
        net.load_parameters(path)
    assert "'2.weight' is missing" in str(ei.value) and path in str(ei.value)
    assert "allow_missing=True" in str(ei.value)
    net.load_parameters(path, allow_missing=True)
    np.testing.assert_array_equal(net[0].weight.data().asnumpy(), saved[0][0].weight.data().asnumpy())


def test_load_extra_entry_is_named(saved):
    _, path = saved
    net = _net(nn.Dense(3))
    with pytest.raises(LoadError) as ei:
        net.load_parameters(path)
    assert "'1.weight'" in str(ei.value) and "ignore_extra=True" in str(ei.value)
    net.load_parameters(path, ignore_extra=True)
    np.testing.assert_array_equal(net[0].bias.data().asnumpy(), saved[0][0].bias.data().asnumpy())


def test_load_misshaped_entry_is_named(saved):
    _, path = saved
    net = _net(nn.Dense(3, in_units=5), nn.Dense(2))
    with pytest.raises(LoadError) as ei:
        net.load_parameters(path)
    msg = str(ei.value)
    assert f"'{net[0].name}_weight'" in msg and "(3, 5)" in msg and "(3, 4)" in msg and "0.weight" in msg
    assert isinstance(ei.value, ValueError)


def test_load_garbled_file(tmp_path):
    p = tmp_path / "bad.params"
    p.write_bytes(b"not a params file at all")
    with pytest.raises(LoadError):
        _net(nn.Dense(2)).load_parameters(str(p))
    with pytest.raises(LoadError, match="no such file"):
        _net(nn.Dense(2)).load_parameters(str(tmp_path / "missing.params"))


def test_legacy_full_names_missing_and_extra(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, in_units=4))
    net.initialize()
    path = str(tmp_path / "legacy.params")
    net.collect_params().save(path, strip_prefix=net.prefix)   # keys 'dense0_weight', 'dense0_bias'
    other = nn.HybridSequential(prefix=net.prefix)
    with other.name_scope():
        other.add(nn.Dense(3, in_units=4), nn.Dense(2, in_units=3))
    with pytest.raises(LoadError, match="'dense1_weight' is missing"):
        other.load_parameters(path)
    other.load_parameters(path, allow_missing=True)
    np.testing.assert_array_equal(other[0].weight.data().asnumpy(), net[0].weight.data().asnumpy())


class AsNumpyNet(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(AsNumpyNet, self).__init__(**kwargs)
        self.dense = nn.Dense(2)

    def hybrid_forward(self, F, x):
        x.asnumpy()  # the chapter's first exercise
        return self.dense(x)


class BranchNet(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if x.sum() > 0:
            return x
        return -x


class BadChild(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.FullyConnected(x, num_hidden=2, no_such_attribute=3)


def test_trace_failure_names_block_and_line():
    net = AsNumpyNet()
    net.initialize()
    net(nd.ones((1, 3)))  # fine imperatively
    net.hybridize()
    with pytest.raises(TraceError) as ei:
        net(nd.ones((1, 3)))
    e = ei.value
    msg = str(e)
    assert f"AsNumpyNet '{net.name}'" in msg and "x.asnumpy()" in msg and __file__ in msg
    assert e.filename == __file__ and e.lineno is not None
    # as MXNet 1.9.1: Symbol.asnumpy raises NotImplementedForSymbol (an MXNetError)
    assert "NotImplementedForSymbol" in msg and isinstance(e.original, NotImplementedForSymbol)
    assert "cannot be hybridized" in msg


def test_trace_failure_on_python_condition():
    net = BranchNet()
    net.hybridize()
    with pytest.raises(TraceError, match=r"BranchNet .*if x.sum\(\) > 0"):
        net(nd.ones((1, 3)))


def test_trace_failure_in_nested_child_names_the_child():
    outer = nn.HybridSequential()
    child = BadChild()
    outer.add(nn.Dense(3), child)
    outer.initialize()
    outer.hybridize()
    with pytest.raises(TraceError) as ei:
        outer(nd.ones((1, 3)))
    assert f"BadChild '{child.name}'" in str(ei.value) and "no_such_attribute" in str(ei.value)


def test_mixed_ndarray_and_symbol_inputs():
    from hybridize.runtime import sym

    class Two(nn.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return a + b
    with pytest.raises(ValueError, match="mixed NDArrays and Symbols"):
        Two()(nd.ones((1,)), sym.var("b"))


def test_export_before_forward():
    net = nn.Dense(2)
    net.hybridize()
    with pytest.raises(RuntimeError, match="run forward"):
        net.export("/nonexistent/x")


def test_wrong_input_shape_after_hybridize_is_a_shape_error():
    net = nn.Dense(2, in_units=4)
    net.initialize()
    net.hybridize()
    net(nd.ones((1, 4)))
    with pytest.raises((HybridizeError, ValueError)):
        net(nd.ones((1, 5)))


def test_imperative_and_compiled_errors_note_the_block():
    net = _net(nn.Dense(2, in_units=4))
    net.initialize()
    with pytest.raises(Exception) as ei:
        net(nd.ones((1, 5)))
    assert any(f"Dense '{net[0].name}'" in n for n in getattr(ei.value, "__notes__", []))
    net.hybridize()
    net(nd.ones((1, 4)))
    with pytest.raises((HybridizeError, ValueError)) as ei:
        net(nd.ones((1, 5)))
    assert "(1, 4)" in str(ei.value) or "(2, 5)" in str(ei.value) or "5" in str(ei.value)
    assert any(f"'{net.name}' hybridized" in n for n in getattr(ei.value, "__notes__", []))
