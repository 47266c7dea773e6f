"""SGD with momentum updates float32 weights and momenta in place (as MXNet's kernel writes its
outputs), bit for bit what ``multi_sgd_mom_update`` returns, and tells compiled programs bound to
the weights; other cases take the operator."""
from __future__ import annotations

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd, gluon, nd
from hybridize.runtime.gluon import nn
from hybridize.runtime.optimizer import optimizer as O


def _arrays(seed: int = 0, shapes=((5, 3), (7,), (2, 3, 4))):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(np.float32) for s in shapes] for _ in range(3)]


@pytest.mark.parametrize("shapes", [((5, 3), (7,), (2, 3, 4)), ((300, 257), (257,), (3, 5))],
                         ids=["one thread", "split over the pool"])
def test_the_in_place_update_equals_the_operator_bit_for_bit(monkeypatch, shapes):
    monkeypatch.setenv("HYBRIDIZE_THREADS", "2")
    monkeypatch.setattr(O, "_UPDATE_PARALLEL_MIN", 1 << 16)   # 300 x 257 splits at this threshold
    W, G, M = _arrays(0, shapes)
    lrs, wds = [0.1, 0.013, 0.5], [1e-4, 0.0, 3e-3]
    a_w, a_g, a_m = [nd.array(w) for w in W], [nd.array(g) for g in G], [nd.array(m) for m in M]
    b_w, b_m = [nd.array(w) for w in W], [nd.array(m) for m in M]
    data = [w._data for w in a_w]
    assert O._sgd_mom_in_place(a_w, a_g, a_m, lrs, wds, 0.9, 1 / 64)
    assert all(w._data is d for w, d in zip(a_w, data))          # the same buffers, written
    flat = [x for t in zip(b_w, a_g, b_m) for x in t]
    nd.multi_sgd_mom_update(*flat, out=b_w, num_weights=3, lrs=lrs, wds=wds, momentum=0.9, rescale_grad=1 / 64)
    for x, y in zip(a_w + a_m, b_w + b_m):
        np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())


def test_other_dtypes_and_recording_take_the_operator():
    W, G, M = _arrays(1)
    w64 = [nd.array(w, dtype="float64") for w in W]
    before = [w.asnumpy().copy() for w in w64]
    assert not O._sgd_mom_in_place(w64, [nd.array(g, dtype="float64") for g in G],
                                   [nd.array(m, dtype="float64") for m in M], [0.1] * 3, [0.0] * 3, 0.9, 1.0)
    assert all(np.array_equal(w.asnumpy(), b) for w, b in zip(w64, before))   # nothing changed
    w32 = [nd.array(w) for w in W]
    with autograd.record():
        assert not O._sgd_mom_in_place(w32, [nd.array(g) for g in G], [nd.array(m) for m in M],
                                       [0.1] * 3, [0.0] * 3, 0.9, 1.0)


def test_a_hybridized_net_sees_its_updated_weights():
    """The compiled program's constants derived from the weights (a dense layer's transposed
    weight) are rebuilt after the in-place update: its output equals the imperative one's."""
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=4))
    net.initialize(mx.init.Xavier())
    x = nd.array(np.random.default_rng(2).standard_normal((5, 3)))
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5, "momentum": 0.9})
    for _ in range(2):
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(5)
    hybrid = net(x).asnumpy()
    net.hybridize(False)
    np.testing.assert_allclose(hybrid, net(x).asnumpy(), rtol=1e-6, atol=1e-6)
