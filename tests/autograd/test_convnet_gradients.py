"""A small convnet (Conv2D, BatchNorm, ReLU, MaxPool, Conv2D without bias, BatchNorm, tanh, global
average pooling, Dense, Dropout(0), Dense) trained one step with SoftmaxCrossEntropyLoss: every
parameter's gradient, the loss and the BatchNorm running statistics after ``backward`` equal MXNet
1.9.1's, imperatively and hybridized (``tools/record_convnet_gradients.py`` -> ``fixtures/convnet.npz``)."""
from pathlib import Path

import numpy as np
import pytest
from hybridize.runtime import autograd, gluon
from hybridize.runtime import ndarray as nd

MX = dict(np.load(Path(__file__).resolve().parent / "fixtures" / "convnet.npz"))


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


@pytest.mark.parametrize("mode", ["imperative", "hybridized"])
def test_one_backward_pass_equals_mxnet(mode):
    net = build()
    params = net._collect_params_with_prefix()
    for k, p in params.items():
        p.set_data(nd.array(MX["init:" + k]))
    x, y = nd.array(MX["x"]), nd.array(MX["y"])
    if mode == "hybridized":
        net.hybridize()
        net(x)
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(x), y)
    loss.backward()
    np.testing.assert_allclose(loss.asnumpy(), MX[mode + ":loss"], rtol=1e-5, atol=1e-6)
    checked = 0
    for k, p in params.items():
        if p.grad_req != "null":
            want = MX[f"{mode}:grad:{k}"]
            np.testing.assert_allclose(p.grad().asnumpy(), want, rtol=1e-4, atol=1e-6 * max(1, np.abs(want).max()),
                                       err_msg=f"{mode}: gradient of {k}")
        else:  # running statistics: updated by the backward pass, as MXNet's BatchNorm does
            np.testing.assert_allclose(p.data().asnumpy(), MX[f"{mode}:after:{k}"], rtol=1e-5, atol=1e-6,
                                       err_msg=f"{mode}: {k} after backward")
        checked += 1
    assert checked == 15
