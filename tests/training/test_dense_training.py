"""A dense layer's gradient in a compiled training program: one GEMM per gradient the program reads
(the first layer's data gradient is nobody's and is not computed), written into its buffer, with
the registry kernel's numbers (``_backward_FullyConnected``) bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd
from hybridize.runtime.gluon import nn
from hybridize.runtime.ops.registry import find_op

BACKWARD_FC = find_op("_backward_FullyConnected")


def _mlp(in_units: int) -> nn.HybridSequential:
    net = nn.HybridSequential()
    net.add(nn.Dense(12, activation="relu", in_units=in_units), nn.Dense(7, activation="relu", in_units=12),
            nn.Dense(3, in_units=7))
    net.initialize(mx.init.Xavier())
    return net


def _backward(net, x: mx.nd.NDArray, head: np.ndarray) -> list[np.ndarray]:
    with autograd.record():
        out = net(x)
    out.backward(mx.nd.array(head))
    return [p.grad().asnumpy().copy() for p in net.collect_params().values()]


def _registry_chain(params: list[np.ndarray], x: np.ndarray, head: np.ndarray) -> list[np.ndarray]:
    """The three layers' gradients through the registry kernel, on the forward's activations."""
    acts = [x]
    for i in range(3):
        y = np.dot(acts[-1].reshape(len(x), -1), params[2 * i].T)
        y += params[2 * i + 1]
        acts.append(np.maximum(y, np.float32(0)) if i < 2 else y)
    g, grads = head, []
    for i in reversed(range(3)):
        w = params[2 * i]
        attrs = BACKWARD_FC.resolve({"num_hidden": w.shape[0]})
        dx, dw, db = BACKWARD_FC.kernel(attrs, [g.shape, acts[i].shape, w.shape], [np.float32] * 3)(g, acts[i], w)
        grads = [dw, db] + grads
        g = dx * (acts[i] > 0) if i else None
    return grads


@pytest.mark.parametrize("shape", [(5, 10), (5, 2, 1, 5)])
def test_the_compiled_gradients_are_the_registry_kernels_bit_for_bit(shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    head = rng.standard_normal((shape[0], 3)).astype(np.float32)
    net = _mlp(10)
    net.hybridize()
    got = _backward(net, mx.nd.array(x), head)
    want = _registry_chain([p.data().asnumpy() for p in net.collect_params().values()], x, head)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_the_first_layers_data_gradient_is_not_computed():
    net = _mlp(10)
    net.hybridize()
    _backward(net, mx.nd.ones((4, 10)), np.ones((4, 3), np.float32))
    [(tp, _)] = net._cached_op.training_programs.values()
    code = tp.backward.code
    assert code.count("_dot(") == 5                 # 3 weight gradients, 2 data gradients
    assert ".copy()" not in code                    # the gradients are the program's own arrays


def test_an_input_with_a_gradient_gets_it_as_the_tape_computes_it():
    x = mx.nd.array(np.random.default_rng(2).standard_normal((4, 10)).astype(np.float32))
    ref, net = _mlp(10), _mlp(10)
    for p, q in zip(net.collect_params().values(), ref.collect_params().values()):
        p.set_data(q.data())
    net.hybridize()
    grads = []
    for block in (ref, net):
        xi = x.copy()
        xi.attach_grad()
        _backward(block, xi, np.ones((4, 3), np.float32))
        grads.append(xi.grad.asnumpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-7)


def _step(net, x, y, trainer=None):
    from hybridize.runtime import gluon
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward()
    if trainer is not None:
        trainer.step(x.shape[0])


def test_the_backward_writes_the_gradients_into_the_parameters_buffers():
    import tracemalloc

    def build():
        net = nn.HybridSequential()
        net.add(nn.Dense(128, activation="relu", in_units=256), nn.Dense(3, in_units=128))
        net.initialize(mx.init.Xavier())
        return net
    net = build()
    net.hybridize()
    x, y = mx.nd.ones((8, 256)), mx.nd.array([0, 1, 2, 0, 1, 2, 0, 1])
    _step(net, x, y)
    buffers = [p.grad()._data for p in net.collect_params().values()]
    with autograd.record():
        loss = mx.gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
    tracemalloc.start()
    loss.backward()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert all(p.grad()._data is b for p, b in zip(net.collect_params().values(), buffers))
    assert peak < net[0].weight.grad()._data.nbytes / 2      # no weight-sized array allocated
    ref = build()
    for p, q in zip(ref.collect_params().values(), net.collect_params().values()):
        p.set_data(q.data())
    _step(ref, x, y)
    for p, q in zip(ref.collect_params().values(), net.collect_params().values()):
        np.testing.assert_allclose(q.grad().asnumpy(), p.grad().asnumpy(), rtol=1e-5, atol=1e-7)


def test_a_parameter_also_used_outside_the_block_gets_both_gradients():
    net = _mlp(10)
    net.hybridize()
    x = mx.nd.ones((4, 10))
    w = net[2].weight
    with autograd.record():
        total = net(x).sum() + (w.data() * w.data()).sum()
    total.backward()
    ref = _mlp(10)
    for p, q in zip(ref.collect_params().values(), net.collect_params().values()):
        p.set_data(q.data())
    with autograd.record():
        total = ref(x).sum() + (ref[2].weight.data() * ref[2].weight.data()).sum()
    total.backward()
    np.testing.assert_allclose(w.grad().asnumpy(), ref[2].weight.grad().asnumpy(), rtol=1e-5, atol=1e-7)


def test_forward_and_backward_share_one_arena():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3, in_channels=1), nn.Activation("relu"), nn.Flatten(), nn.Dense(3))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    _step(net, mx.nd.ones((2, 1, 6, 6)), mx.nd.array([0, 2]))
    [(tp, _)] = net._cached_op.training_programs.values()
    memory = tp.memory()
    assert memory["arena_bytes"] == max(tp.forward.arena_bytes, tp.backward.arena_bytes) > 0
    bases = set()
    for prog in (tp.forward, tp.backward):
        bufs = prog._forward.__globals__["_tls"].bufs
        base = bufs[0]
        while base.base is not None:
            base = base.base
        bases.add(id(base))
    assert len(bases) == 1


def test_a_large_gemm_of_a_training_step_runs_in_column_chunks_on_the_pool(monkeypatch):
    """32x512 by 512x256 (4.2M multiply-adds, with the split threshold lowered to it: this size
    runs faster on one thread on 2 idle cores): the forward's GEMM and the weight gradient's split
    into one column chunk per thread; the same numbers as the tape up to float32 rounding."""
    from hybridize.runtime.graph.kernels import dense
    monkeypatch.setenv("HYBRIDIZE_THREADS", "2")
    monkeypatch.setattr(dense, "SPLIT_MIN_WORK", 4e6)

    def build():
        net = nn.HybridSequential()
        net.add(nn.Dense(256, activation="relu", in_units=512), nn.Dense(3, in_units=256))
        net.initialize(mx.init.Xavier())
        return net
    x = mx.nd.array(np.random.default_rng(3).standard_normal((32, 512)).astype(np.float32))
    y = mx.nd.array(np.arange(32) % 3)
    ref, net = build(), build()
    for p, q in zip(ref.collect_params().values(), net.collect_params().values()):
        q.set_data(p.data())
    net.hybridize()
    for block in (ref, net):
        _step(block, x, y)
    [(tp, _)] = net._cached_op.training_programs.values()
    assert "split_matmul" in tp.forward.code and "split_matmul" in tp.backward.code
    for p, q in zip(ref.collect_params().values(), net.collect_params().values()):
        want = p.grad().asnumpy()
        np.testing.assert_allclose(q.grad().asnumpy(), want, rtol=1e-4, atol=1e-5 * float(np.abs(want).max()))
