"""d2l 2.x (NumPy mode, ``npx.set_np()``): chapter 3's softmax regression from scratch with
``d2l.sgd`` and ``Accumulator`` (``train_epoch_ch3``), chapter 6's ``train_ch6`` on a small convnet
(``npx.cpu()``, ``as_in_ctx``, ``force_reinit``) and chapter 8's concise ``RNNModel`` (``rnn.GRU``,
``npx.one_hot``, detached state, ``grad_clipping`` via ``p.grad ** 2``) trained by ``train_epoch_ch8``."""
import math

import numpy as onp

from mxnet import autograd, gluon, init, np, npx
from mxnet.gluon import nn, rnn

npx.set_np()


def sgd(params, lr, batch_size):
    for param in params:
        param[:] = param - lr * param.grad / batch_size


class Accumulator:
    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.astype(y.dtype) == y
    return float(cmp.astype(y.dtype).sum())


def train_epoch_ch3(net, train_iter, loss, updater):
    metric = Accumulator(3)
    if isinstance(updater, gluon.Trainer):
        updater = updater.step
    for X, y in train_iter:
        with autograd.record():
            y_hat = net(X)
            l = loss(y_hat, y)
        l.backward()
        updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.size)
    return metric[0] / metric[2], metric[1] / metric[2]


def evaluate_accuracy_gpu(net, data_iter, device=None):
    if not device:
        device = list(net.collect_params().values())[0].list_ctx()[0]
    metric = Accumulator(2)
    for X, y in data_iter:
        X, y = X.as_in_ctx(device), y.as_in_ctx(device)
        metric.add(accuracy(net(X), y), y.size)
    return metric[0] / metric[1]


def grad_clipping(net, theta):
    params = [p.data() for p in net.collect_params().values()]
    norm = math.sqrt(sum((p.grad ** 2).sum() for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm
    return norm


class RNNModel(nn.Block):
    def __init__(self, rnn_layer, vocab_size, **kwargs):
        super(RNNModel, self).__init__(**kwargs)
        self.rnn = rnn_layer
        self.vocab_size = vocab_size
        self.dense = nn.Dense(vocab_size)

    def forward(self, inputs, state):
        X = npx.one_hot(inputs.T, self.vocab_size)
        Y, state = self.rnn(X, state)
        output = self.dense(Y.reshape(-1, Y.shape[-1]))
        return output, state

    def begin_state(self, *args, **kwargs):
        return self.rnn.begin_state(*args, **kwargs)


def set_params(net, rng, scale=0.5):
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        params[name].set_data(np.array(rng.uniform(-scale, scale, params[name].shape), dtype='float32'))
    return params


def run():
    rng = onp.random.RandomState(4)
    log, out = [], {}
    # chapter 3, from scratch
    features = np.array(rng.normal(size=(24, 6)), dtype='float32')
    labels = features[:, :3].argmax(axis=1).astype('float32')
    train_iter = gluon.data.DataLoader(gluon.data.ArrayDataset(features, labels), 8, shuffle=False)
    W = np.array(rng.normal(0, 0.01, (6, 3)), dtype='float32')
    b = np.zeros(3)
    W.attach_grad()
    b.attach_grad()

    def softmax(X):
        X_exp = np.exp(X)
        return X_exp / X_exp.sum(1, keepdims=True)

    def cross_entropy(y_hat, y):
        return -np.log(y_hat[range(len(y_hat)), y.astype('int32')])

    def net(X):
        return softmax(np.dot(X.reshape((-1, W.shape[0])), W) + b)

    for _ in range(2):
        log.extend(train_epoch_ch3(net, train_iter, cross_entropy, lambda bs: sgd([W, b], 0.3, bs)))
    out['W'], out['b'] = W.asnumpy(), b.asnumpy()

    # chapter 6, train_ch6
    X = np.array(rng.uniform(size=(16, 1, 8, 8)), dtype='float32')
    y = (X[:, 0, :4].mean(axis=(1, 2)) > 0.5).astype('float32')
    img_iter = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), 8)
    device = npx.cpu()
    cnn = nn.HybridSequential()
    cnn.add(nn.Conv2D(4, kernel_size=3, padding=1, activation='sigmoid'), nn.AvgPool2D(pool_size=2, strides=2),
            nn.Dense(8, activation='relu'), nn.Dense(2))
    cnn.initialize(force_reinit=True, ctx=device, init=init.Xavier())
    cnn(X[:1])
    params = set_params(cnn, rng)
    cnn.hybridize()
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(cnn.collect_params(), 'sgd', {'learning_rate': 0.5})
    for epoch in range(2):
        metric = Accumulator(3)
        for Xb, yb in img_iter:
            Xb, yb = Xb.as_in_ctx(device), yb.as_in_ctx(device)
            with autograd.record():
                y_hat = cnn(Xb)
                l = loss(y_hat, yb)
            l.backward()
            trainer.step(Xb.shape[0])
            metric.add(l.sum(), accuracy(y_hat, yb), Xb.shape[0])
        log.extend([metric[0] / metric[2], metric[1] / metric[2], evaluate_accuracy_gpu(cnn, img_iter)])
    out.update({'cnn.' + k: p.data().asnumpy() for k, p in params.items()})

    # chapter 8, concise RNN
    vocab_size, num_steps, batch_size = 7, 5, 2
    corpus = rng.randint(0, vocab_size, size=(batch_size, 3 * num_steps + 1)).astype('float32')
    model = RNNModel(rnn.GRU(6), vocab_size=vocab_size)
    model.initialize(ctx=device, force_reinit=True, init=init.Normal(0.01))
    state = model.begin_state(batch_size=batch_size, ctx=device)
    model(np.array(corpus[:, :num_steps]), state)
    params = set_params(model, rng, 0.4)
    trainer = gluon.Trainer(model.collect_params(), 'sgd', {'learning_rate': 1.0})
    metric = Accumulator(2)
    for i in range(3):
        Xs = np.array(corpus[:, i * num_steps:(i + 1) * num_steps])
        Ys = np.array(corpus[:, i * num_steps + 1:(i + 1) * num_steps + 1])
        for s in state:
            s.detach()
        yv = Ys.T.reshape(-1)
        with autograd.record():
            y_hat, state = model(Xs, state)
            l = loss(y_hat, yv).mean()
        l.backward()
        log.append(grad_clipping(model, 1))
        trainer.step(batch_size=1)
        metric.add(l * yv.size, yv.size)
        log.append(float(l))
    log.append(math.exp(metric[0] / metric[1]))
    out.update({'rnn.' + k: p.data().asnumpy() for k, p in params.items()})
    return {"losses": log, "params": out}
