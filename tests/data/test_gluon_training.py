"""Training loops train as on MXNet 1.9.1: the same programs (gluon_program.py) give MXNet's shuffled
batches in MXNet's order (an epoch's leftover rolled over into the next), the loss after every step,
the accuracy and cross-entropy after every batch and the parameters after every epoch; Gluon fed by
a DataLoader with 2 worker processes, and the Module API's step loop over an NDArrayIter."""
import json

import numpy as np
import pytest

import hybridize.runtime as mx
import gluon_program
from recorded import fixture

with open(fixture("gluon_training.json")) as _f:
    RECORDED = json.load(_f)


@pytest.fixture(scope="module", params=["gluon", "module"])
def run(request):
    if request.param == "gluon":
        return gluon_program.run(mx, num_workers=2), RECORDED["gluon"]
    return gluon_program.run_module(mx), RECORDED["module"]


def test_batches_come_in_mxnets_order(run):
    ours, rec = run
    assert [b[0] for b in ours["batches"]] == [0] * 4 + [1] * 5     # 23 samples, batches of 5, rollover
    assert ours["batches"] == rec["batches"]


def test_loss_curve_and_metrics_after_every_batch_equal_mxnet(run):
    ours, rec = run
    np.testing.assert_allclose(ours["losses"], rec["losses"], rtol=1e-5, atol=1e-5)
    assert [m[0] for m in ours["metrics"]] == [m[0] for m in rec["metrics"]]
    np.testing.assert_allclose([m[1:] for m in ours["metrics"]], [m[1:] for m in rec["metrics"]], rtol=1e-5, atol=1e-5)


def test_parameters_after_every_epoch_equal_mxnet(run):
    ours, rec = run
    # float32 sums in another order: 3e-6 apart after 9 steps of lr 0.5 with momentum
    assert len(ours["epoch_params"]) == len(rec["epoch_params"]) == 2
    for got, want in zip(ours["epoch_params"], rec["epoch_params"]):
        assert len(got) == len(want) == 4
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)
