"""Training end to end gives MXNet 1.9.1's numbers: a small LeNet-like convnet with BatchNorm, from fixed
parameters on one fixed batch, 5 steps of SGD with momentum then 5 of Adam through ``gluon.Trainer``,
imperatively and hybridized. The loss of every step and every final parameter (BatchNorm's running
statistics included) equal MXNet's recorded run (tools/record_training_e2e.py): losses rtol 1e-3 (they
agree to 5e-6), parameters rtol 1e-3 + atol 1e-5 but for one element (see the assertion)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd, gluon
from hybridize.runtime.gluon import nn

RECORD = np.load(Path(__file__).parent / "fixtures" / "lenet_e2e.npz")


def _build() -> nn.HybridSequential:
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=3, in_channels=1, use_bias=False), nn.BatchNorm(in_channels=6), nn.Activation("relu"),
            nn.MaxPool2D(2),
            nn.Conv2D(8, kernel_size=3, in_channels=6, use_bias=False), nn.BatchNorm(in_channels=8), nn.Activation("relu"),
            nn.MaxPool2D(2),
            nn.Flatten(), nn.Dense(16, in_units=32, activation="relu"), nn.Dense(10, in_units=16))
    return net


@pytest.mark.parametrize("mode", ["imperative", "hybridized"])
def test_lenet_with_batchnorm_trains_as_mxnet(mode: str) -> None:
    net = _build()
    net.initialize(ctx=mx.cpu())
    params = net._collect_params_with_prefix()
    for name in params:
        params[name].set_data(mx.nd.array(RECORD[f"init/{name}"]))
    if mode == "hybridized":
        net.hybridize()
    x, y = mx.nd.array(RECORD["x"]), mx.nd.array(RECORD["y"])
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for opt, oparams in (("sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-4}),
                         ("adam", {"learning_rate": 0.01})):
        trainer = gluon.Trainer(net.collect_params(), opt, oparams)
        for _ in range(5):
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(x.shape[0])
            losses.append(float(loss.mean().asscalar()))
    np.testing.assert_allclose(losses, RECORD[f"{mode}/loss"], rtol=1e-3)
    for name, p in params.items():
        ours, theirs = p.data().asnumpy(), RECORD[f"{mode}/final/{name}"]
        off = np.abs(ours - theirs) > 1e-5 + 1e-3 * np.abs(theirs)
        # One weight of the first Dense layer (9.weight[14, 5]) ends 3e-4 away (the others within 1e-5):
        # its gradient is at rounding level in some steps, and Adam turns rounding into steps of up to
        # its learning rate (0.01). At most one such element per tensor, and never a whole Adam step.
        assert off.sum() <= 1 and np.abs(ours - theirs).max() < 1e-3, (
            f"{mode}: {name}: {int(off.sum())} of {off.size} elements differ, "
            f"max {np.abs(ours - theirs).max():.2e}")
