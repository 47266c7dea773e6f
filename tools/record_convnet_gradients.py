"""Records MXNet 1.9.1's parameter gradients of a small convnet (Conv + BatchNorm + ReLU + Pool +
Dense + SoftmaxCrossEntropyLoss), imperative and hybridized, for ``tests/autograd/test_convnet_gradients.py``.

Run with real MXNet: ``/tmp/mxnet-venv/bin/python tools/record_convnet_gradients.py``. Writes
``tests/autograd/fixtures/convnet.npz``: the input ``x``, labels ``y``, every parameter's initial value
(``init:<structural name>``), and per mode (``imperative``/``hybridized``) the loss, each gradient
(``<mode>:grad:<name>``) and the BatchNorm running statistics after the backward pass
(``<mode>:after:<name>``).
"""
import os

import numpy as np
from mxnet import autograd, gluon, nd

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "autograd", "fixtures", "convnet.npz")


def build():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(4, kernel_size=3, padding=1, in_channels=2),
            gluon.nn.BatchNorm(in_channels=4),
            gluon.nn.Activation("relu"),
            gluon.nn.MaxPool2D(pool_size=2),
            gluon.nn.Conv2D(6, kernel_size=3, strides=1, in_channels=4, use_bias=False),
            gluon.nn.BatchNorm(in_channels=6, scale=True, center=True),
            gluon.nn.Activation("tanh"),
            gluon.nn.GlobalAvgPool2D(),
            gluon.nn.Flatten(),
            gluon.nn.Dense(5, in_units=6),
            gluon.nn.Dropout(0.0),
            gluon.nn.Dense(3, in_units=5))
    net.initialize()
    return net


def structural(net):
    return {k: v for k, v in net._collect_params_with_prefix().items()}


def main():
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (4, 2, 8, 8)).astype(np.float32)
    y = np.array([0, 2, 1, 2], np.float32)
    arrays = {"x": x, "y": y}
    init = None
    for mode in ("imperative", "hybridized"):
        net = build()
        params = structural(net)
        if init is None:
            init = {k: rng.uniform(-0.5, 0.5, p.shape).astype(np.float32) if "running_var" not in k
                    else rng.uniform(0.5, 1.5, p.shape).astype(np.float32) for k, p in params.items()}
            for k, v in init.items():
                arrays["init:" + k] = v
        for k, p in params.items():
            p.set_data(nd.array(init[k]))
        if mode == "hybridized":
            net.hybridize()
            net(nd.array(x))  # one inference call first, as the test does
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        with autograd.record():
            loss = loss_fn(net(nd.array(x)), nd.array(y))
        loss.backward()
        arrays[mode + ":loss"] = loss.asnumpy()
        for k, p in params.items():
            if p.grad_req != "null":
                arrays[mode + ":grad:" + k] = p.grad().asnumpy()
            else:
                arrays[mode + ":after:" + k] = p.data().asnumpy()
    np.savez_compressed(OUT, **arrays)
    print(sorted(arrays))


if __name__ == "__main__":
    main()
