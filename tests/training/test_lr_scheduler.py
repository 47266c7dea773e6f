"""Each learning-rate scheduler gives MXNet 1.9.1's schedule (recorded by tools/record_training_fixtures.py:
the rate for num_update 0..30, asked in increasing order as an optimizer does), warm-up included, and
rejects MXNet's bad arguments with MXNet's errors."""
from __future__ import annotations

import json
from pathlib import Path

import hybridize.runtime as mx
import numpy as np
import pytest

RECORD = json.loads((Path(__file__).parent / "fixtures" / "schedulers.json").read_text())["schedulers"]


@pytest.mark.parametrize("name", sorted(RECORD))
def test_schedule_equals_mxnet(name: str) -> None:
    case = RECORD[name]
    sched = getattr(mx.lr_scheduler, case["class"])(**case["kwargs"])
    np.testing.assert_allclose([sched(n) for n in range(len(case["lr"]))], case["lr"], rtol=1e-12, atol=0)


def test_an_optimizer_asks_its_scheduler_with_num_update() -> None:
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(lr_scheduler=sched)
    assert opt.learning_rate == 1.0
    opt.num_update = 5
    assert opt.learning_rate == 0.25
    with pytest.raises(UserWarning, match="LRScheduler of the optimizer has already been defined"):
        opt.set_learning_rate(0.1)


def test_learning_rate_given_to_the_optimizer_overrides_the_schedulers_base_lr() -> None:
    sched = mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=0.5)
    with pytest.warns(UserWarning, match="learning rate from ``lr_scheduler`` has been overwritten"):
        mx.optimizer.SGD(learning_rate=0.1, lr_scheduler=sched)
    assert sched.base_lr == 0.1


@pytest.mark.parametrize("make, message", [
    (lambda: mx.lr_scheduler.FactorScheduler(step=0), "Schedule step must be greater or equal than 1 round"),
    (lambda: mx.lr_scheduler.FactorScheduler(step=2, factor=1.5), "Factor must be no more than 1"),
    (lambda: mx.lr_scheduler.MultiFactorScheduler(step=[3, 2]), "Schedule step must be an increasing integer list"),
    (lambda: mx.lr_scheduler.PolyScheduler(max_update=0), "maximum number of updates must be strictly positive"),
    (lambda: mx.lr_scheduler.CosineScheduler(max_update=5, base_lr=0.1, warmup_begin_lr=0.2),
     "Base lr has to be higher than warmup_begin_lr"),
    (lambda: mx.lr_scheduler.CosineScheduler(max_update=5, warmup_mode="cubic"),
     "Supports only linear and constant modes of warmup"),
])
def test_bad_arguments_raise_as_mxnet(make, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()
