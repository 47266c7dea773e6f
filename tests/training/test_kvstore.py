"""``mx.kv.create('local')``: MXNet's single-process key-value store. ``push`` sums the values pushed for a
key and either stores the sum or, with an optimizer set, updates the stored weight with it; ``pull``
copies the stored value out; optimizer states save and load in the runtime's states format."""
from __future__ import annotations

import hybridize.runtime as mx
import numpy as np
import pytest
from hybridize.runtime.base import HybridizeError


def test_a_local_store_is_one_worker_of_rank_zero() -> None:
    kv = mx.kv.create("local")
    assert (kv.type, kv.rank, kv.num_workers) == ("local", 0, 1)
    assert mx.kv.create("device").type == "device"
    assert kv.is_capable(mx.kv.KVStoreBase.OPTIMIZER)
    with pytest.raises(HybridizeError, match="'dist_sync' needs a data-parallel job"):
        mx.kv.create("dist_sync")      # outside a job of kvstore.dist.run (tests/distributed)
    with pytest.raises(HybridizeError, match="'nccl' is not supported"):
        mx.kv.create("nccl")


def test_push_sums_the_values_of_a_key_and_pull_copies_it_out() -> None:
    kv = mx.kv.create("local")
    kv.init(3, mx.nd.ones((2, 3)))
    kv.push(3, [mx.nd.ones((2, 3)), mx.nd.ones((2, 3)) * 2])
    outs = [mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))]
    kv.pull(3, out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full((2, 3), 3.0))
    value = mx.nd.ones((2, 3)) * 5
    kv.pushpull(3, value)
    np.testing.assert_array_equal(value.asnumpy(), np.full((2, 3), 5.0))


def test_string_keys_and_lists_of_keys() -> None:
    kv = mx.kv.create("local")
    kv.init(["w", "b"], [mx.nd.ones((2,)), mx.nd.zeros((1,))])
    out = [mx.nd.zeros((2,)), mx.nd.zeros((1,))]
    kv.pull(["w", "b"], out=out)
    assert out[0].asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(HybridizeError, match="Mixed key types are not allowed"):
        kv.init(0, mx.nd.ones((1,)))


def test_with_an_optimizer_push_updates_the_stored_weight() -> None:
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, momentum=0.9))
    kv.init(0, mx.nd.ones((3,)))
    kv.push(0, [mx.nd.ones((3,)), mx.nd.ones((3,))])         # summed gradient 2
    w = mx.nd.zeros((3,))
    kv.pull(0, out=w)
    np.testing.assert_allclose(w.asnumpy(), 1 - 0.5 * 2)
    assert kv._updater.states[0].asnumpy().tolist() == [-1.0, -1.0, -1.0]   # the momentum


def test_optimizer_states_round_trip(tmp_path) -> None:
    kv = mx.kv.create("local")
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.1))
    kv.init(0, mx.nd.ones((3,)))
    kv.push(0, mx.nd.ones((3,)))
    kv.save_optimizer_states(str(tmp_path / "kv.states"), dump_optimizer=True)
    other = mx.kv.create("local")
    other.set_optimizer(mx.optimizer.Adam(learning_rate=0.3))
    other.load_optimizer_states(str(tmp_path / "kv.states"))
    assert other._updater.optimizer.lr == 0.1 and other._updater.optimizer.num_update == 1
    mean, var = other._updater.states[0]
    np.testing.assert_allclose(mean.asnumpy(), kv._updater.states[0][0].asnumpy())
    np.testing.assert_allclose(var.asnumpy(), kv._updater.states[0][1].asnumpy())


@pytest.mark.parametrize("call, message", [
    (lambda kv: kv.pull(9, out=mx.nd.zeros((1,))), "key 9 has not been inited"),
    (lambda kv: kv.init(0, mx.nd.ones((3,))), "duplicate init of key 0"),
])
def test_errors_as_mxnet(call, message: str) -> None:
    kv = mx.kv.create("local")
    kv.init(0, mx.nd.ones((3,)))
    with pytest.raises(HybridizeError, match=message):
        call(kv)
