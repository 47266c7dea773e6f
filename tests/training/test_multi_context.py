"""Parameters on several contexts, as MXNet 1.9.1's: one copy (and one gradient) per context, a Block
uses the copy of its input's context, and the Trainer sums the copies' gradients through its store.

Recorded from MXNet by tools/record_multi_context.py: a Dense layer on ``[cpu(0), cpu(1)]``, each
context given half of a batch, two SGD-with-momentum steps, imperative and hybridized, updating on the
store (the default) or per copy after ``allreduce_grads``."""
from __future__ import annotations

import json
import re
from pathlib import Path

import hybridize.runtime as mx
import numpy as np
import pytest
from hybridize.runtime import autograd, gluon

RECORD = json.loads((Path(__file__).parent / "fixtures" / "multi_context.json").read_text())
CTX = [mx.cpu(0), mx.cpu(1)]


def test_a_parameter_keeps_one_copy_and_one_gradient_per_context() -> None:
    x = gluon.Parameter("x", shape=(3,))
    x.initialize(ctx=CTX, init="zeros")
    assert x.list_ctx() == CTX
    assert [d.context for d in x.list_data()] == CTX
    assert [g.context for g in x.list_grad()] == CTX
    assert x.list_data()[0] is not x.list_data()[1]
    assert x.data(mx.cpu(1)) is x.list_data()[1] and x.grad(mx.cpu(1)) is x.list_grad()[1]
    x.set_data(mx.nd.array([1, 2, 3]))  # every copy
    assert all((d.asnumpy() == [1, 2, 3]).all() for d in x.list_data())


def test_a_context_the_parameter_is_not_on_fails_as_mxnet() -> None:
    x = gluon.Parameter("p", shape=(2,))
    x.initialize(ctx=CTX)
    with pytest.raises(RuntimeError, match="^" + re.escape(RECORD["missing_context_error"]) + "$"):
        x.data(mx.cpu(2))


def test_saving_reduces_the_copies_to_their_mean_and_reset_ctx_moves_it() -> None:
    p = gluon.Parameter("p", shape=(2,))
    p.initialize(ctx=CTX, init="zeros")
    p.list_data()[1][:] = 1.0
    np.testing.assert_array_equal(p._reduce().asnumpy(), RECORD["reduce_of_0_and_1"])
    p.reset_ctx(mx.cpu(0))
    assert p.list_ctx() == [mx.cpu(0)] and len(p.list_grad()) == 1
    np.testing.assert_array_equal(p.data().asnumpy(), RECORD["reduce_of_0_and_1"])


def test_each_copy_gets_its_own_gradient_and_the_trainer_sums_them() -> None:
    x = gluon.Parameter("x", shape=(4,))
    x.initialize(ctx=CTX, init="zeros")
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0})
    with autograd.record():
        for i, w in enumerate(x.list_data()):
            ((i + 1) * w).backward()
    assert [g.asnumpy()[0] for g in x.list_grad()] == [1.0, 2.0]
    trainer.step(1)
    assert all((d.asnumpy() == -3).all() for d in x.list_data())


@pytest.mark.parametrize("case", sorted(RECORD["cases"]))
def test_data_parallel_steps_equal_mxnet(case: str) -> None:
    spec = RECORD["cases"][case]
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize(ctx=CTX)
    net.weight.set_data(mx.nd.array(RECORD["W0"]))
    net.bias.set_data(mx.nd.array(RECORD["B0"]))
    if case.startswith("hybrid"):
        net.hybridize()
    upd = spec["update_on_kvstore"]
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01},
                            update_on_kvstore=None if upd else False)
    loss_fn = gluon.loss.L2Loss()
    for step in spec["steps"]:
        xs = gluon.utils.split_and_load(mx.nd.array(RECORD["DATA"]), CTX)
        ys = gluon.utils.split_and_load(mx.nd.array(RECORD["LABEL"]), CTX)
        with autograd.record():
            losses = [loss_fn(net(x), y) for x, y in zip(xs, ys)]
        for loss in losses:
            loss.backward()
        for got, want in zip(losses, step["losses"]):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-7)
        for got, want in zip(net.weight.list_grad(), step["weight_grads"]):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-7)
        if upd:
            trainer.step(6)
        else:
            trainer.allreduce_grads()
            trainer.update(6)
        assert trainer._update_on_kvstore == upd and trainer._kvstore.type == spec["kvstore"]
        for got, want in zip(net.weight.list_data(), step["weights"]):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-7)
        for got, want in zip(net.bias.list_data(), step["biases"]):
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-7)
    assert [net(x).context for x in xs] == CTX


def test_a_trainer_over_parameters_on_no_context_fails_in_one_line() -> None:
    w = gluon.Parameter("w", shape=(2,))
    with pytest.raises(RuntimeError, match=r"^Parameter 'w' has not been initialized$"):
        gluon.Trainer([w], "sgd")
    deferred = gluon.Parameter("d", shape=(0,), allow_deferred_init=True)
    deferred.initialize(ctx=CTX)  # contexts known before the shape: a Trainer can be made
    assert gluon.Trainer([deferred], "sgd")._contexts == CTX


def test_a_hybridized_block_refuses_inputs_on_several_contexts_as_mxnet() -> None:
    class Add(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return a + b

    net = Add()
    assert net(mx.nd.ones((2,), ctx=mx.cpu(1)), mx.nd.ones((2,), ctx=mx.cpu(2))).shape == (2,)  # imperative: fine
    net.hybridize()
    with pytest.raises(ValueError, match=r"^Find multiple contexts in the input, After hybridized"):
        net(mx.nd.ones((2,), ctx=mx.cpu(1)), mx.nd.ones((2,), ctx=mx.cpu(2)))
    assert net(mx.nd.ones((2,), ctx=mx.cpu(1)), mx.nd.ones((2,), ctx=mx.cpu(1))).context == mx.cpu(1)
