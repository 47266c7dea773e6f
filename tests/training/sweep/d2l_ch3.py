"""d2l 1.x (MXNet 1.x, `nd`), chapter 3: softmax regression from scratch with ``d2l.sgd`` on
``attach_grad``-ed arrays, then the concise version through ``gluon.Trainer``; ``train_ch3``'s loop."""
import numpy as np

import mxnet as mx
from mxnet import autograd, gluon, init, nd
from mxnet.gluon import data as gdata, loss as gloss, nn

NUM_INPUTS, NUM_OUTPUTS, BATCH = 12, 4, 8


def sgd(params, lr, batch_size):  # d2l.sgd
    for param in params:
        param[:] = param - lr * param.grad / batch_size


def softmax(X):
    X_exp = X.exp()
    partition = X_exp.sum(axis=1, keepdims=True)
    return X_exp / partition


def cross_entropy(y_hat, y):
    return -nd.pick(y_hat, y).log()


def accuracy(y_hat, y):
    return (y_hat.argmax(axis=1) == y.astype('float32')).mean().asscalar()


def evaluate_accuracy(data_iter, net):
    acc_sum, n = 0.0, 0
    for X, y in data_iter:
        y = y.astype('float32')
        acc_sum += (net(X).argmax(axis=1) == y).sum().asscalar()
        n += y.size
    return acc_sum / n


def train_ch3(net, train_iter, test_iter, loss, num_epochs, batch_size, params=None, lr=None,
              trainer=None, log=None):
    for epoch in range(num_epochs):
        train_l_sum, train_acc_sum, n = 0.0, 0.0, 0
        for X, y in train_iter:
            with autograd.record():
                y_hat = net(X)
                l = loss(y_hat, y).sum()
            l.backward()
            if trainer is None:
                sgd(params, lr, batch_size)
            else:
                trainer.step(batch_size)
            y = y.astype('float32')
            train_l_sum += l.asscalar()
            train_acc_sum += (y_hat.argmax(axis=1) == y).sum().asscalar()
            n += y.size
            log.append(l.asscalar() / y.size)
        test_acc = evaluate_accuracy(test_iter, net)
        log.append(train_acc_sum / n)
        log.append(test_acc)


def run():
    rng = np.random.RandomState(0)
    features = rng.normal(size=(32, NUM_INPUTS)).astype(np.float32)
    labels = (features[:, :NUM_OUTPUTS].argmax(axis=1)).astype(np.float32)
    dataset = gdata.ArrayDataset(nd.array(features), nd.array(labels))
    train_iter = gdata.DataLoader(dataset, BATCH, shuffle=False)
    test_iter = gdata.DataLoader(dataset, BATCH * 2, shuffle=False)
    log = []

    W = nd.array(rng.normal(scale=0.01, size=(NUM_INPUTS, NUM_OUTPUTS)))
    b = nd.zeros(NUM_OUTPUTS)
    W.attach_grad()
    b.attach_grad()

    def net(X):
        return softmax(nd.dot(X.reshape((-1, NUM_INPUTS)), W) + b)

    train_ch3(net, train_iter, test_iter, cross_entropy, 2, BATCH, [W, b], 0.5, log=log)
    log.append(accuracy(net(nd.array(features)), nd.array(labels)))

    net2 = nn.Sequential()
    net2.add(nn.Dense(NUM_OUTPUTS))
    net2.initialize(init.Normal(sigma=0.01))
    net2(nd.array(features[:1]))
    net2[0].weight.set_data(W.T)
    net2[0].bias.set_data(b)
    loss = gloss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net2.collect_params(), 'sgd', {'learning_rate': 0.1})
    train_ch3(net2, train_iter, test_iter, loss, 2, BATCH, None, None, trainer, log=log)
    return {"losses": log, "params": {"W": W.asnumpy(), "b": b.asnumpy(),
                                      "dense.weight": net2[0].weight.data().asnumpy(),
                                      "dense.bias": net2[0].bias.data().asnumpy(),
                                      "ctx": np.array([str(mx.cpu()) == 'cpu(0)'], dtype=np.float32)}}
