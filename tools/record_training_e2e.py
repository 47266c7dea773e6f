"""Records MXNet 1.9.1 training a small LeNet-like convnet with BatchNorm, for tests/training/test_end_to_end.py.

    /tmp/mxnet-venv/bin/python tools/record_training_e2e.py

The network (two Conv2D + BatchNorm + relu + MaxPool2D stages, then Dense 32 -> 16 -> 10; the convolutions
have no bias: before BatchNorm its gradient is zero up to rounding, which Adam would amplify into
rounding-determined steps), its
initial parameters (``RandomState(3)``: uniform(-0.3, 0.3) weights/biases, BatchNorm's gamma 1 and beta,
running mean 0 and running var 1) and one batch (8 x 1 x 14 x 14, labels 0..9) are fixed. It trains 5
steps with SGD (lr 0.1, momentum 0.9, wd 1e-4) and then 5 with Adam (lr 0.01) through ``gluon.Trainer``,
once imperatively and once hybridized, with ``SoftmaxCrossEntropyLoss``. Written to
``tests/training/fixtures/lenet_e2e.npz``: ``x``, ``y``, ``init/<structural name>``, and per mode
(``imperative``, ``hybridized``) ``<mode>/loss`` (the mean loss of each of the 10 steps, before its
update) and ``<mode>/final/<structural name>`` (every parameter after the 10 steps, BatchNorm's running
statistics included).
"""
import os

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "training", "fixtures", "lenet_e2e.npz")


def build():
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=3, in_channels=1, use_bias=False), nn.BatchNorm(in_channels=6), nn.Activation("relu"),
            nn.MaxPool2D(2),
            nn.Conv2D(8, kernel_size=3, in_channels=6, use_bias=False), nn.BatchNorm(in_channels=8), nn.Activation("relu"),
            nn.MaxPool2D(2),
            nn.Flatten(), nn.Dense(16, in_units=32, activation="relu"), nn.Dense(10, in_units=16))
    return net


def initial_values(net):
    rng = np.random.RandomState(3)
    values = {}
    for name, p in sorted(net._collect_params_with_prefix().items()):
        if name.endswith("running_mean") or name.endswith("beta"):
            values[name] = np.zeros(p.shape, "float32") if name.endswith("running_mean") \
                else rng.uniform(-0.1, 0.1, p.shape).astype("float32")
        elif name.endswith("running_var") or name.endswith("gamma"):
            values[name] = np.ones(p.shape, "float32")
        else:
            values[name] = rng.uniform(-0.3, 0.3, p.shape).astype("float32")
    return values


def train(hybridize, init, x, y):
    net = build()
    net.initialize(ctx=mx.cpu())
    params = net._collect_params_with_prefix()
    for name, value in init.items():
        params[name].set_data(mx.nd.array(value))
    if hybridize:
        net.hybridize()
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
    return np.array(losses, "float32"), {k: p.data().asnumpy() for k, p in params.items()}


def main():
    assert mx.__version__ == "1.9.1"
    rng = np.random.RandomState(11)
    x = rng.normal(0, 1, (8, 1, 14, 14)).astype("float32")
    y = rng.randint(0, 10, (8,)).astype("float32")
    init = initial_values(build())
    out = {"x": x, "y": y, **{f"init/{k}": v for k, v in init.items()}}
    for mode in ("imperative", "hybridized"):
        losses, final = train(mode == "hybridized", init, mx.nd.array(x), mx.nd.array(y))
        out[f"{mode}/loss"] = losses
        out.update({f"{mode}/final/{k}": v for k, v in final.items()})
        print(mode, losses)
    np.savez_compressed(OUT, **out)


if __name__ == "__main__":
    main()
