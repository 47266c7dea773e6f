"""d2l 1.x, chapters 5/6: LeNet (sigmoid, average pooling) trained by ``train_ch5``'s loop on
``try_gpu()``'s context, hybridized, with ``evaluate_accuracy`` through ``as_in_context``."""
import numpy as np

import mxnet as mx
from mxnet import autograd, gluon, init, nd
from mxnet.gluon import loss as gloss, nn


def try_gpu():
    try:
        ctx = mx.gpu()
        _ = nd.zeros((1,), ctx=ctx)
    except mx.base.MXNetError:
        ctx = mx.cpu()
    return ctx


def evaluate_accuracy(data_iter, net, ctx):
    acc_sum, n = nd.array([0], ctx=ctx), 0
    for X, y in data_iter:
        X, y = X.as_in_context(ctx), y.as_in_context(ctx).astype('float32')
        acc_sum += (net(X).argmax(axis=1) == y).sum()
        n += y.size
    return acc_sum.asscalar() / n


def train_ch5(net, train_iter, test_iter, batch_size, trainer, ctx, num_epochs, log):
    loss = gloss.SoftmaxCrossEntropyLoss()
    for epoch in range(num_epochs):
        train_l_sum, train_acc_sum, n = 0.0, 0.0, 0
        for X, y in train_iter:
            X, y = X.as_in_context(ctx), y.as_in_context(ctx)
            with autograd.record():
                y_hat = net(X)
                l = loss(y_hat, y).sum()
            l.backward()
            trainer.step(batch_size)
            y = y.astype('float32')
            train_l_sum += l.asscalar()
            train_acc_sum += (y_hat.argmax(axis=1) == y).sum().asscalar()
            n += y.size
            log.append(l.asscalar() / y.size)
        log.extend([train_l_sum / n, train_acc_sum / n, evaluate_accuracy(test_iter, net, ctx)])


def run():
    rng = np.random.RandomState(1)
    X = rng.uniform(size=(24, 1, 12, 12)).astype(np.float32)
    y = (X[:, 0, :6].mean(axis=(1, 2)) > 0.5).astype(np.float32) + (X[:, 0, 6:].mean(axis=(1, 2)) > 0.5)
    dataset = gluon.data.ArrayDataset(X, y)
    train_iter = gluon.data.DataLoader(dataset, 8, shuffle=False)
    test_iter = gluon.data.DataLoader(dataset, 12)

    net = nn.Sequential()
    net.add(nn.Conv2D(channels=4, kernel_size=3, activation='sigmoid'),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Conv2D(channels=6, kernel_size=2, activation='sigmoid'),
            nn.MaxPool2D(pool_size=2, strides=2),
            nn.Dense(16, activation='sigmoid'),
            nn.Dense(3))
    ctx = try_gpu()
    net.initialize(force_reinit=True, ctx=ctx, init=init.Xavier())
    net(nd.array(X[:1]))
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        params[name].set_data(nd.array(rng.uniform(-0.5, 0.5, params[name].shape)))
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.9})
    log = []
    train_ch5(net, train_iter, test_iter, 8, trainer, ctx, 3, log)
    return {"losses": log, "params": {k: p.data().asnumpy() for k, p in params.items()}}
