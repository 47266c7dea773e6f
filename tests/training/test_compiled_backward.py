"""A hybridized block under ``autograd.record()`` trains through two compiled programs: the pipeline's
differentiate stage builds the backward graph from the operators' gradient rules, the forward
program keeps the activations the backward reads, and the pair is one tape node. Its gradients,
BatchNorm running statistics and losses equal the op-by-op tape's; graphs the stage refuses
(random draws the backward needs) run op by op."""
from __future__ import annotations

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd, gluon
from hybridize.runtime import symbol as sym
from hybridize.runtime.base import HybridizeError
from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.differentiate import TrainingProgram
from hybridize.runtime.gluon import nn


def _convnet(dropout: bool = False) -> nn.HybridSequential:
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, kernel_size=3, in_channels=2), nn.BatchNorm(in_channels=4), nn.Activation("relu"),
            nn.MaxPool2D(2), nn.Flatten())
    if dropout:
        net.add(nn.Dropout(0.5))
    net.add(nn.Dense(3, in_units=36))
    net.initialize(mx.init.Xavier())
    rng = np.random.default_rng(3)
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape)))
    return net


def _data():
    rng = np.random.default_rng(4)
    return mx.nd.array(rng.standard_normal((4, 2, 8, 8)).astype(np.float32)), mx.nd.array([0, 2, 1, 2])


def _steps(net, steps: int = 3, seed: int = 0):
    x, y = _data()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    mx.random.seed(seed)
    losses = []
    for _ in range(steps):
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        losses.append(loss.asnumpy())
        grads = [p.grad().asnumpy().copy() for p in net.collect_params().values() if p.grad_req != "null"]
        trainer.step(4)
    return losses, grads, [p.data().asnumpy() for p in net.collect_params().values()]


def _programs(net) -> list:
    return [tp for tp, _ in net._cached_op.training_programs.values()]


def test_a_training_step_is_two_compiled_calls_with_the_tapes_numbers():
    imperative = _steps(_convnet())
    net = _convnet()
    net.hybridize()
    hybrid = _steps(net)
    [tp] = _programs(net)
    assert isinstance(tp, TrainingProgram)
    for a, b in zip(imperative[0], hybrid[0]):
        np.testing.assert_allclose(b, a, rtol=1e-5)
    for a, b in zip(imperative[1] + imperative[2], hybrid[1] + hybrid[2]):   # last gradients, parameters
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6)               # running statistics included


def test_the_recorded_block_is_one_tape_node_and_the_input_gets_its_gradient():
    x, y = _data()
    ref = _convnet()
    xr = x.copy()
    xr.attach_grad()
    with autograd.record():
        ref(xr).sum().backward()
    net = _convnet()
    net.hybridize()
    x.attach_grad()
    with autograd.record():
        out = net(x)
        total = out.sum()
    node = out._ag[0]
    assert node.op is None and node.rule is not None        # one node, the backward program its rule
    total.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), xr.grad.asnumpy(), rtol=1e-4, atol=1e-6)


def test_retain_graph_and_grad_req_add_are_the_tapes():
    x, _ = _data()
    net = _convnet()
    net.hybridize()
    for p in net.collect_params().values():
        if p.grad_req != "null":
            p.grad_req = "add"
    net.collect_params().zero_grad()
    with autograd.record():
        out = net(x).sum()
    out.backward(retain_graph=True)
    once = net[-1].weight.grad().asnumpy().copy()
    out.backward()
    np.testing.assert_allclose(net[-1].weight.grad().asnumpy(), 2 * once, rtol=1e-5)
    with pytest.raises(HybridizeError, match="not in a computational graph"):
        out.backward()


def test_create_graph_through_the_compiled_backward_is_refused_in_one_line():
    x, _ = _data()
    net = _convnet()
    net.hybridize()
    with autograd.record():
        out = net(x).sum()
    with pytest.raises(HybridizeError, match="create_graph"):
        autograd.grad(out, [net[-1].weight.data()], create_graph=True)


def test_a_graph_with_dropout_runs_op_by_op_with_the_same_masks():
    imperative = _steps(_convnet(dropout=True), steps=2, seed=7)
    net = _convnet(dropout=True)
    net.hybridize()
    hybrid = _steps(net, steps=2, seed=7)
    assert _programs(net) == [None]                          # refused: the backward needs the draw
    for a, b in zip(imperative[0] + imperative[1], hybrid[0] + hybrid[1]):
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-6)


def test_the_forward_program_keeps_only_what_the_backward_reads():
    x = sym.var("data")
    w = sym.var("w")
    h = sym.FullyConnected(x, w, num_hidden=3, no_bias=True, name="fc")
    g = sym.sum(sym.exp(h) + sym.tanh(h)).graph()          # exp and tanh keep their outputs
    prog = compile_graph(g, input_names=["data"], shapes={"data": (2, 4)},
                         params={"w": np.ones((3, 4), np.float32)}, wrt=["w"], training=True)
    spec = prog.backward
    assert [kind for kind, _ in spec.saved_from].count("input") == 1      # the data, for the weight's gradient
    assert prog.stats["differentiate"]["saved"] == len(spec.saved_names)
    outs = prog(np.ones((2, 4), np.float32))
    assert len(outs) == 1 + len({ref for kind, ref in spec.saved_from if kind == "output"} - {0})
    assert spec.params == ["w"]                     # read as a bound parameter, never saved


def test_convolution_gradients_split_into_weight_and_data_programs():
    def build():
        net = nn.HybridSequential()
        net.add(nn.Conv2D(4, 3, padding=1, in_channels=2), nn.Activation("relu"),
                nn.Conv2D(4, 3, strides=2, padding=1, in_channels=4, use_bias=False),
                nn.Conv2D(3, 1, in_channels=4), nn.Flatten(), nn.Dense(2, in_units=48))
        net.initialize(mx.init.Xavier())
        rng = np.random.default_rng(5)
        for p in net.collect_params().values():
            p.set_data(mx.nd.array(rng.uniform(-0.5, 0.5, p.shape)))
        return net
    grads = []
    for hybrid in (False, True):
        net = build()
        if hybrid:
            net.hybridize()
        x, _ = _data()
        x.attach_grad()
        with autograd.record():
            total = (net(x) ** 2).sum()
        total.backward()
        grads.append([x.grad.asnumpy()] + [p.grad().asnumpy() for p in net.collect_params().values()])
    [tp] = _programs(net)
    # every convolution's weight gradient on its own; the stride-1 data gradients as convolutions,
    # the strided one's by _hy_conv_dgrad (col2im)
    assert tp.forward.stats["differentiate"]["conv_grads_split"] == 3
    assert tp.forward.stats["differentiate"]["conv_dgrad_as_conv"] == 2
    for a, b in zip(*grads):                        # float32 rounding, other summation orders
        np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5 * float(np.abs(a).max()))


def test_a_kernel_as_large_as_the_image_takes_its_data_gradient_by_col2im():
    """A 12x12 kernel over a 12x12 image (MXNet's test_conv2d_16c runs 224 over 224): the flipped
    convolution would build every input position's 12x12 window of a 1x1 output gradient (224^4
    values there), so the data gradient is scattered back from the output instead."""
    def build():
        net = nn.HybridSequential()
        net.add(nn.Conv2D(3, 12, in_channels=2))
        net.initialize(mx.init.Xavier())
        return net
    x = mx.nd.array(np.random.default_rng(2).uniform(-1, 1, (2, 2, 12, 12)))
    grads = []
    for hybrid in (False, True):
        net = build()
        net[0].weight.set_data(mx.nd.array(np.random.default_rng(3).uniform(-1, 1, (3, 2, 12, 12))))
        if hybrid:
            net.hybridize(inline_limit=0)  # one operator: inlined (op by op) by default, as in MXNet
        xi = x.copy()
        xi.attach_grad()
        with autograd.record():
            total = (net(xi) ** 2).sum()
        total.backward()
        grads.append(xi.grad.asnumpy())
    [tp] = _programs(net)
    assert tp.forward.stats["differentiate"]["conv_dgrad_as_conv"] == 0
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-4, atol=1e-5 * float(np.abs(grads[0]).max()))
