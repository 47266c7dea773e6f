"""``autograd.get_symbol`` of a hybridized block's call and of an ``autograd.Function``: the nodes
MXNet 1.9.1 shows (``fixtures/get_symbol.json``, recorded by ``tools/record_get_symbol.py``): a
CachedOp inlines its operators when it has at most ``inline_limit`` of them and no
``static_alloc``, otherwise it is one ``_CachedOp`` node over the data and every parameter."""
from __future__ import annotations

import json
import os

import pytest

import hybridize.runtime as mx

from .get_symbol_cases import cases

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = json.load(open(os.path.join(HERE, "fixtures", "get_symbol.json")))


@pytest.fixture(scope="module")
def measured() -> dict:
    return cases(mx)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_get_symbol_nodes_as_mxnet(case: str, measured: dict) -> None:
    assert measured[case] == EXPECTED[case]


def test_cached_op_node_cannot_run() -> None:
    net = mx.gluon.nn.HybridSequential()
    for _ in range(3):
        net.add(mx.gluon.nn.Dense(2))
    net.initialize()
    net.hybridize(inline_limit=0)
    with mx.autograd.record():
        y = net(mx.nd.ones((1, 2)))
    s = mx.autograd.get_symbol(y)
    with pytest.raises(mx.base.MXNetError, match="_CachedOp"):
        s.eval(ctx=mx.cpu(), **{n: mx.nd.ones((2, 2)) for n in s.list_arguments()})


def test_inlined_block_runs_the_imperative_kernels() -> None:
    # MXNet records an inlined CachedOp's operators one by one (its imperative kernels): the
    # gradient of a hybridized one-convolution block is the imperative one, bit for bit
    net = mx.gluon.nn.Conv2D(4, (3, 3))
    net.initialize()
    x = mx.nd.random.uniform(-1, 1, shape=(2, 3, 9, 9))
    grads = []
    for hybrid in (False, True):
        net.hybridize(hybrid)
        xi = x.copy()
        xi.attach_grad()
        with mx.autograd.record():
            y = net(xi)
        y.backward()
        grads.append(xi.grad.asnumpy())
    assert (grads[0] == grads[1]).all()
