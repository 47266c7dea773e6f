"""A steady training step skips work that repeats: the compiled programs keep their binding when
the parameters were only written in place (their constants are views of the weights), the in-place
SGD update keeps its checks of the same arrays. The numbers are those of the general path (every
step rebinding, every update checking), and a parameter whose array is replaced is bound again."""
from __future__ import annotations

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd, gluon, nd
from hybridize.runtime.gluon import nn
from hybridize.runtime.graph.emit.program import CompiledProgram
from hybridize.runtime.optimizer import optimizer as O


def _train(steps: int, x: np.ndarray, y: np.ndarray, replace_at: int | None = None) -> list[np.ndarray]:
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation="relu", in_units=6), nn.Dense(3, in_units=8))
    net.initialize(mx.init.Xavier(rnd_type="gaussian"))
    net.hybridize(static_alloc=True, static_shape=True)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    X, Y = nd.array(x), nd.array(y)
    for i in range(steps):
        if i == replace_at:     # a new array behind the first weight (as a reshaping set_data makes)
            w = net[0].weight.data()
            w._data = w._data * 0.5
        with autograd.record():
            loss = loss_fn(net(X), Y)
        loss.backward()
        trainer.step(x.shape[0])
    return [p.data().asnumpy() for p in net.collect_params().values()] + [net(X).asnumpy()]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((5, 6)).astype(np.float32), rng.integers(0, 3, 5).astype(np.float32)


def _seeded(fn):
    mx.random.seed(7)
    np.random.seed(7)
    return fn()


@pytest.mark.parametrize("replace_at", [None, 2], ids=["in place", "array replaced"])
def test_kept_bindings_and_update_plans_give_the_general_paths_numbers(monkeypatch, data, replace_at):
    fast = _seeded(lambda: _train(4, *data, replace_at=replace_at))
    with monkeypatch.context() as m:        # every step rebinds, every update checks its arrays again
        m.setattr(CompiledProgram, "_same_arrays", lambda self, params: False)
        m.setattr(O, "_IN_PLACE_PLANS_MAX", 0)
        m.setattr(O, "_IN_PLACE_PLANS", {})
        general = _seeded(lambda: _train(4, *data, replace_at=replace_at))
    for a, b in zip(fast, general):
        np.testing.assert_array_equal(a, b)


def test_a_program_of_weight_views_keeps_its_binding_and_a_copied_one_rebinds():
    net = nn.Dense(3, in_units=4)
    net.initialize()
    net.hybridize(static_alloc=True)        # one compiled node (not inlined op by op)
    x = nd.ones((2, 4))
    with autograd.record():
        net(x).sum().backward()
    tp = next(iter(net._cached_op.training_programs.values()))[0]
    params = {p.name: p.data()._data for p in net.collect_params().values()}
    consts = tp.forward._consts
    assert tp.forward._views_only and tp.backward._views_only      # W^T (a view), the bias, W
    tp.bind_params(params)
    assert tp.forward._consts is consts                             # nothing recomputed
    tp.bind_params({k: v.copy() for k, v in params.items()})
    assert tp.forward._consts is not consts
    net(x)                                                          # inference: W^T copied, not a view
    prog = next(iter(net._cached_op.programs.values()))[0]
    assert not prog._views_only


def test_the_update_plan_follows_new_rates_and_new_arrays():
    rng = np.random.default_rng(1)
    W, G, M = ([rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (5,))] for _ in range(3))
    a_w, a_g, a_m = [nd.array(w) for w in W], [nd.array(g) for g in G], [nd.array(m) for m in M]
    b_w, b_g, b_m = [nd.array(w) for w in W], [nd.array(g) for g in G], [nd.array(m) for m in M]
    for step, lrs in enumerate(([0.1, 0.2], [0.1, 0.2], [0.05, 0.2])):
        if step == 2:       # a new gradient array (same values): the update reads it
            a_g[0]._data = a_g[0]._data.copy()
        assert O._sgd_mom_in_place(a_w, a_g, a_m, lrs, [1e-3, 0.0], 0.9, 0.5)
        flat = [x for t in zip(b_w, b_g, b_m) for x in t]
        nd.multi_sgd_mom_update(*flat, out=b_w, num_weights=2, lrs=lrs, wds=[1e-3, 0.0], momentum=0.9,
                                rescale_grad=0.5)
        for x, y in zip(a_w + a_m, b_w + b_m):
            np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())
    a_w[1]._data.flags.writeable = False    # read-only now: the operator's path, nothing written
    assert not O._sgd_mom_in_place(a_w, a_g, a_m, [0.1, 0.2], [0.0, 0.0], 0.9, 0.5)


def _recorded_run(x: np.ndarray, y: np.ndarray, monkeypatch) -> tuple[list[np.ndarray], int]:
    """Steps of a hybridized net while what a recorded call depends on changes between them: the
    input joins the graph, a parameter leaves it, a hook, the compiled backward turned off."""
    from hybridize.runtime.gluon.block import HybridBlock
    taken = [0]
    fast = HybridBlock._call_recorded_fast

    def counted(self, rec, arg):
        out = fast(self, rec, arg)
        taken[0] += out is not None
        return out
    monkeypatch.setattr(HybridBlock, "_call_recorded_fast", counted)
    net = nn.HybridSequential()
    net.add(nn.Dense(5, activation="relu", in_units=4), nn.Dense(3, in_units=5))
    net.initialize(mx.init.Xavier(rnd_type="gaussian"))
    net.hybridize(static_alloc=True, static_shape=True)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    X, Y, seen = nd.array(x), nd.array(y), []
    for i in range(9):
        if i == 3:
            X.attach_grad()
        elif i == 4:
            X = nd.array(x)
            net[0].bias.grad_req = "null"
        elif i == 6:
            net.register_forward_hook(lambda block, inputs, out: seen.append(out.shape))
        elif i == 7:
            monkeypatch.setenv("HYBRIDIZE_COMPILED_BACKWARD", "0")
        with autograd.record():
            out = net(X)
            loss = gluon.loss.SoftmaxCrossEntropyLoss()(out, Y)
        loss.backward()
        trainer.step(x.shape[0], ignore_stale_grad=True)
        if i == 3:
            seen.append(X.grad.asnumpy())
    monkeypatch.delenv("HYBRIDIZE_COMPILED_BACKWARD")
    return [p.data().asnumpy() for p in net.collect_params().values()] + seen[:1], taken[0]


def test_recorded_calls_repeat_the_general_paths_decisions(monkeypatch, data):
    x, y = data[0][:, :4], data[1]
    fast, taken = _seeded(lambda: _recorded_run(x, y, monkeypatch))
    from hybridize.runtime.gluon.block import HybridBlock
    monkeypatch.setattr(HybridBlock, "_call_recorded_fast", lambda self, rec, arg: None)
    general, _ = _seeded(lambda: _recorded_run(x, y, monkeypatch))
    assert taken == 3      # steps 1, 2 and 5 (after the general path's step 4)
    for a, b in zip(fast, general):
        np.testing.assert_array_equal(a, b)
