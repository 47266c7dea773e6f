"""Data-parallel training on Dask, as MXNet's ``kvstore='dist_sync'``: two worker processes of one
local cluster (started once for the module) train on their parts of every global batch; the store
sums their gradients and updates the weights, so the parameters equal one process's on the global
batch (Gluon ``Trainer`` in the README's recipe, ``Module.fit`` here). A rank that raises or dies
stops the job with one clear error, and the cluster runs the next job."""
from __future__ import annotations

import logging
import os
import re
import runpy
import signal
import sys
import time

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime.base import DistributedTrainingError
from hybridize.runtime.kvstore import dist
from support import REPO


@pytest.fixture(scope="module")
def cluster_client():
    # imported here, not at collection: every xdist worker collects the module, one runs it (1 s)
    distributed = pytest.importorskip("distributed")
    cloudpickle = pytest.importorskip("cloudpickle")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])   # the workers cannot import a test module
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, env={"HYBRIDIZE_THREADS": "1"},
                                  silence_logs=logging.CRITICAL) as cluster, \
            distributed.Client(cluster) as c:
        yield c


@pytest.fixture
def client(cluster_client):
    """The module's client once both workers are up (a worker killed by a test is restarted by its
    nanny; under pytest-xdist the module's tests may run in any order)."""
    cluster_client.wait_for_workers(2, timeout=60)
    return cluster_client


def test_readme_recipe_trains_on_two_workers_as_one_process_on_the_global_batch(client, tmp_path, capsys,
                                                                                 monkeypatch) -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- dist-example -->\s*```python\n(.*?)```", text, re.S)
    assert block, "README.md shows the data-parallel recipe after <!-- dist-example -->"
    script = tmp_path / "train_dist.py"
    script.write_text(block.group(1))
    monkeypatch.setattr(sys, "argv", [str(script), client.scheduler.address])   # the fixture's cluster
    runpy.run_path(str(script), run_name="__main__")
    assert capsys.readouterr().out.strip().splitlines()[-1] == "2 workers == 4 parameters of one process after 4 steps"


def _store_ops() -> dict:
    kv = mx.kv.create("dist_sync")
    r = kv.rank
    out = {"rank": r, "num_workers": kv.num_workers, "type": kv.type}
    kv.init(3, mx.nd.ones((2,)) * (r + 1))           # rank 0's value is stored
    got = mx.nd.zeros((2,))
    kv.pull(3, out=got)
    out["init"] = got.asnumpy()
    kv.push(3, [mx.nd.ones((2,)) * (r + 1), mx.nd.ones((2,))])   # two devices: summed here, then at the server
    kv.pull(3, out=got)
    out["push"] = got.asnumpy()
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, rescale_grad=0.25))   # runs at the server
    kv.init(4, mx.nd.ones((2,)))
    kv.pushpull(4, mx.nd.ones((2,)) * (r + 1), out=got)
    out["sgd"] = got.asnumpy()
    kv._barrier()
    return out


def test_the_store_keeps_rank_0s_init_and_sums_every_workers_push(client) -> None:
    ranks = dist.run(_store_ops, client=client, num_workers=2)
    for r, got in enumerate(ranks):
        assert (got["rank"], got["num_workers"], got["type"]) == (r, 2, "dist_sync")
        np.testing.assert_array_equal(got["init"], [1, 1])
        np.testing.assert_array_equal(got["push"], [5, 5])       # (1 + 1) + (2 + 1)
        np.testing.assert_array_equal(got["sgd"], [0.625, 0.625])  # 1 - 0.5 * 0.25 * (1 + 2)


def _fit_module(kvstore: str, seed: int | None = None, epochs: int = 2) -> dict:
    """An MLP trained by Module.fit on this worker's part of every global batch of 6."""
    kv = mx.kv.create(kvstore) if kvstore.startswith("dist") else None
    rank, n = (kv.rank, kv.num_workers) if kv else (0, 1)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((24, 4)).astype(np.float32)
    y = (x.sum(axis=1) > 0).astype(np.float32)
    it = mx.io.NDArrayIter(x[rank::n], y[rank::n], batch_size=6 // n, label_name="softmax_label")
    data = mx.sym.Variable("data")
    net = mx.sym.FullyConnected(data, num_hidden=5, name="fc1")
    net = mx.sym.Activation(net, act_type="tanh")
    net = mx.sym.FullyConnected(net, num_hidden=2, name="fc2")
    net = mx.sym.SoftmaxOutput(net, name="softmax")
    mx.random.seed(rank if seed is None else seed)       # different on every rank: Module broadcasts rank 0's
    mod = mx.mod.Module(net, context=mx.cpu())
    mod.fit(it, num_epoch=epochs, kvstore=kv if kv else "local", optimizer="sgd",
            optimizer_params={"learning_rate": 0.2, "momentum": 0.9, "wd": 0.01},
            initializer=mx.init.Xavier())
    arg, aux = mod.get_params()
    return {k: v.asnumpy() for k, v in arg.items()}


def test_module_fit_on_two_workers_equals_one_process_on_the_global_batch(client) -> None:
    ranks = dist.run(_fit_module, "dist_sync", client=client, num_workers=2)
    one = _fit_module("local", seed=0)
    assert sorted(one) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    for name, value in one.items():
        np.testing.assert_allclose(ranks[0][name], value, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(ranks[1][name], ranks[0][name])


def _raise_on_rank_1() -> None:
    kv = mx.kv.create("dist_sync")
    kv.init(0, mx.nd.zeros((1,)))
    if kv.rank == 1:
        raise ValueError("bad batch 7\nsecond line")
    kv.push(0, mx.nd.ones((1,)))          # rank 0 waits for rank 1's push: the error releases it


def test_a_rank_that_raises_stops_every_rank_with_one_line(client) -> None:
    with pytest.raises(DistributedTrainingError) as e:
        dist.run(_raise_on_rank_1, client=client, num_workers=2)
    assert str(e.value) == "rank 1 raised ValueError: bad batch 7"
    assert e.value.rank == 1 and isinstance(e.value.__cause__, ValueError)
    assert dist.run(os.getpid, client=client, num_workers=2)                  # the cluster runs the next job


def test_the_store_outside_a_job_is_one_clear_error() -> None:
    with pytest.raises(DistributedTrainingError, match=r"'dist_sync' needs a data-parallel job: .*dist\.run"):
        mx.kv.create("dist_sync")


SCRIPT = """\
import sys
from pathlib import Path

import hybridize.runtime as mx

kv = mx.kv.create("dist_sync")
kv.init(0, mx.nd.zeros((2,)))
kv.push(0, mx.nd.ones((2,)) * (kv.rank + 1))
out = mx.nd.zeros((2,))
kv.pull(0, out=out)
if sys.argv[2:] == ["--fail"] and kv.rank == 1:
    raise ValueError("rank one fails")
Path(sys.argv[1], f"rank{kv.rank}.txt").write_text(f"{kv.rank} {kv.num_workers} {out.asnumpy().tolist()}")
"""


def test_the_launcher_runs_an_unchanged_script_as_every_rank(client, tmp_path, capsys):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    argv = ["-n", "2", "--scheduler", client.scheduler.address, str(script), str(tmp_path)]
    assert dist.launch(argv) == 0
    assert sorted(p.read_text() for p in tmp_path.glob("rank*.txt")) == ["0 2 [3.0, 3.0]", "1 2 [3.0, 3.0]"]
    assert dist.launch(argv + ["--fail"]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1] == "error: rank 1 raised ValueError: rank one fails"


def _async_sgd() -> list:
    kv = mx.kv.create("dist_async")
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5, rescale_grad=0.25))
    kv.init(0, mx.nd.ones((2,)))
    kv.push(0, mx.nd.ones((2,)) * (kv.rank + 1))     # applied at once, in arrival order
    kv._barrier()
    out = mx.nd.zeros((2,))
    kv.pull(0, out=out)
    return out.asnumpy().tolist()


def test_dist_async_applies_every_push_as_it_arrives(client) -> None:
    assert dist.run(_async_sgd, client=client, num_workers=2, kvstore="dist_async") == [[0.625, 0.625]] * 2   # 1 - 0.5 * 0.25 * (1 + 2)


def _die_on_rank_1() -> None:
    kv = mx.kv.create("dist_sync")
    kv.init(0, mx.nd.zeros((1,)))
    if kv.rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    kv.push(0, mx.nd.ones((1,)))


def test_a_rank_killed_by_a_signal_stops_the_job(client) -> None:
    before = set(client.scheduler_info()["workers"])
    with pytest.raises(DistributedTrainingError, match=r"^rank 1's Dask worker tcp://\S+ left the cluster"):
        dist.run(_die_on_rank_1, client=client, num_workers=2)
    # the nanny restarts the killed worker: the module's next test needs the scheduler to have
    # dropped the dead one and registered its successor, not merely to count two workers
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        workers = set(client.scheduler_info()["workers"])
        if len(workers) == 2 and workers != before:
            break
        time.sleep(0.05)
    else:
        raise AssertionError(f"the killed worker was not replaced: {sorted(workers)}")
