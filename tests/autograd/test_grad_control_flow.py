"""Gradients through MXNet's control-flow operators: ``_foreach``, ``_while_loop`` and ``_cond``
back-propagate through their subgraphs with the rules of the operators inside (checked against
finite differences of the whole loop)."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp
from hybridize.runtime import symbol as sym


def _node(outputs, op_name):
    graph = sym.Group(outputs).graph()
    return next(n for n in graph.nodes if n.op is not None and n.op.name == op_name)


def _values(node, **vals):
    return [vals[e.node.name] for e in node.inputs]


def _r(*shape, seed=0):
    return 0.5 * np.random.default_rng(seed).standard_normal(shape)


def test_foreach_back_propagates_through_steps_states_and_captured_inputs():
    data, s0, w = sym.var("data"), sym.var("s0"), sym.var("w")

    def body(x, states):
        h = sym.log_sigmoid(sym.linalg.gemm(x, states[0], w))       # x @ state + w, read from outside
        return sym.contrib.quadratic(h, a=0.5, b=1.0), [h]

    outs, states = sym.contrib.foreach(body, data, [s0])
    node = _node([outs, *states], "_foreach")
    check_vjp("_foreach", _values(node, data=_r(3, 2, 2), s0=_r(2, 2, seed=1), w=_r(2, 2, seed=2)), node.attrs,
              rtol=1e-5, atol=1e-7)


def test_while_loop_back_propagates_through_the_steps_it_ran():
    i0, x0, w = sym.var("i0"), sym.var("x0"), sym.var("w")

    def cond(i, x):
        return i < 3

    def func(i, x):
        y = sym.log_sigmoid(sym.linalg.gemm2(x, w))
        return y, [sym.contrib.quadratic(i, b=1.0, c=1.0), y]

    outs, loop_vars = sym.contrib.while_loop(cond, func, [i0, x0], max_iterations=5)
    node = _node([outs, *loop_vars], "_while_loop")
    ins = _values(node, i0=np.zeros(1), x0=_r(2, 2), w=_r(2, 2, seed=1))
    grads = check_vjp("_while_loop", ins, node.attrs, rtol=1e-5, atol=1e-7,
                      wrt=[k for k, e in enumerate(node.inputs) if e.node.name != "i0"])
    assert grads[0].shape == ins[0].shape


@pytest.mark.parametrize("flag", [1.0, 0.0])
def test_cond_back_propagates_through_the_branch_taken(flag):
    p, x, y = sym.var("p"), sym.var("x"), sym.var("y")
    out = sym.contrib.cond(p, lambda: sym.linalg.gemm2(x, y), lambda: sym.contrib.quadratic(x, a=2.0))
    node = _node([out], "_cond")
    ins = _values(node, p=np.array([flag]), x=_r(2, 2), y=_r(2, 2, seed=1))
    check_vjp("_cond", ins, node.attrs, rtol=1e-5, atol=1e-7,
              wrt=[k for k, e in enumerate(node.inputs) if e.node.name != "p"])
