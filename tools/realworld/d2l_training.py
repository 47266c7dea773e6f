"""d2l 0.17.6's own ``mxnet.py`` (NumPy mode) training functions on MXNet 1.9.1 and on the runtime.

Not part of the package or the test suite: it needs d2l's ``mxnet.py`` (``python tools/realworld/collect.py``
puts it in /tmp/realworld-np) and MXNet 1.9.1. The plotting and download dependencies (pandas,
requests, IPython, matplotlib) are stand-ins; ``d2l.Animator`` records what it is given; the random
initializers ``train_ch6``/``train_ch8``/``train_concise_ch11`` ask for are replaced by one that draws
from a seeded numpy generator (MXNet's random stream is not reproduced). It runs ``train_ch3`` (its
accuracy assertions included) and ``train_epoch_ch3`` with ``d2l.sgd``, ``train_ch6`` on a LeNet and on
``d2l.Residual`` blocks with BatchNorm, ``train_ch8`` on ``RNNModel(rnn.GRU)`` (``grad_clipping``,
``predict_ch8``) over ``seq_data_iter_sequential``, and ``train_concise_ch11`` with SGD+momentum, Adam
and AdaDelta, on synthetic data:

    /tmp/mxnet-venv/bin/python tools/realworld/d2l_training.py > /tmp/d2l-mxnet.json
    python tools/realworld/d2l_training.py --runtime > /tmp/d2l-ours.json
    python tools/realworld/d2l_training.py --compare /tmp/d2l-mxnet.json /tmp/d2l-ours.json
    hybridize transpile /tmp/realworld-np/d2l-ai/d2l-en/d2l/mxnet.py -o /tmp/d2l-t   # no HY012
    python tools/realworld/d2l_training.py --runtime /tmp/d2l-t/mxnet.py > /tmp/d2l-transpiled.json

Measured (docs/training.md): the 59 recorded rows (losses, accuracies, perplexities) agree to 2e-5,
the original file on the runtime and the transpiled one alike.
"""
import json
import sys

D2L = "/tmp/realworld-np/d2l-ai/d2l-en/d2l/mxnet.py"


def compare(a_path, b_path):
    a, b = (json.loads(open(p).read().strip().splitlines()[-1]) for p in (a_path, b_path))  # d2l prints too
    worst, bad = 0.0, 0
    for i, (x, y) in enumerate(zip(a, b)):
        for u, v in zip(x, y):
            if isinstance(u, str) or u is None or v is None:
                bad += u != v
                continue
            r = abs(u - v) / max(abs(u), 1e-6)
            worst = max(worst, r)
            bad += r > 1e-4
    print(f"{len(a)} vs {len(b)} rows, {bad} values differ (rtol 1e-4), worst relative difference {worst:.1e}")
    return 1 if bad or len(a) != len(b) else 0


def main():
    if sys.argv[1:2] == ["--compare"]:
        return compare(*sys.argv[2:4])
    if sys.argv[1:2] == ["--runtime"]:
        global D2L
        D2L = sys.argv[2] if len(sys.argv) > 2 else D2L
        sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), "..", "..", "tests"))
        from sweep_support import mxnet_is_the_runtime
        with mxnet_is_the_runtime():
            return drive()
    return drive()


def drive():
    import sys, types, random, json
    from unittest import mock
    for m in ["pandas", "requests", "IPython", "IPython.display", "matplotlib", "matplotlib.pyplot", "matplotlib_inline", "matplotlib_inline.backend_inline"]:
        sys.modules[m] = mock.MagicMock()
    import importlib.util
    import numpy as onp
    spec = importlib.util.spec_from_file_location("d2l", D2L)
    d2l = importlib.util.module_from_spec(spec); sys.modules["d2l"] = d2l; spec.loader.exec_module(d2l)
    from mxnet import np, npx, gluon
    from mxnet.gluon import nn, rnn
    import mxnet as mx
    npx.set_np()
    LOG = []
    class Rec:
        def __init__(self, *a, **k): self.Y = [[0.0]]
        def add(self, x, y):
            LOG.append([x] + [None if v is None else float(v) for v in (y if isinstance(y, (list, tuple)) else [y])])
    d2l.Animator = Rec
    rng = onp.random.RandomState(0)
    class Det(mx.init.Initializer):
        def _init_weight(self, name, arr):
            arr[:] = np.array(rng.uniform(-0.3, 0.3, arr.shape), dtype=arr.dtype)
        def _init_bias(self, name, arr):
            arr[:] = 0
    d2l.init = types.SimpleNamespace(Xavier=lambda *a, **k: Det(), Normal=lambda *a, **k: Det())
    # chapter 3: train_ch3 (concise)
    X = np.array(rng.normal(size=(60, 5)), dtype='float32'); y = (X[:, :3].argmax(axis=1)).astype('int32')
    it = d2l.load_array((X, y), 10, is_train=False)
    net = nn.Sequential(); net.add(nn.Dense(3)); net.initialize(Det())
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})
    try:
        d2l.train_ch3(net, it, it, gluon.loss.SoftmaxCrossEntropyLoss(), 5, trainer)
    except AssertionError as e:
        LOG.append(["assert", str(e)])
    # chapter 3 scratch updater d2l.sgd
    W = np.array(rng.normal(0, 0.01, (5, 3)), dtype='float32'); b = np.zeros(3); W.attach_grad(); b.attach_grad()
    def scratch(Xb): 
        e = np.exp(np.dot(Xb, W) + b); return e / e.sum(1, keepdims=True)
    def ce(y_hat, yb): return -np.log(y_hat[range(len(y_hat)), yb])
    for _ in range(3):
        LOG.append(list(d2l.train_epoch_ch3(scratch, it, ce, lambda bs: d2l.sgd([W, b], 0.3, bs))))
    # chapter 6: train_ch6 LeNet
    Xi = np.array(rng.uniform(size=(32, 1, 12, 12)), dtype='float32'); yi = (Xi[:, 0, :6].mean(axis=(1, 2)) > 0.5).astype('float32')
    iti = d2l.load_array((Xi, yi), 4, is_train=False)
    lenet = nn.Sequential()
    lenet.add(nn.Conv2D(channels=4, kernel_size=3, padding=1, activation='sigmoid'), nn.AvgPool2D(pool_size=2, strides=2),
              nn.Conv2D(channels=6, kernel_size=3, activation='sigmoid'), nn.AvgPool2D(pool_size=2, strides=2),
              nn.Dense(12, activation='sigmoid'), nn.Dense(2))
    d2l.train_ch6(lenet, iti, iti, 3, 0.9, d2l.try_gpu())
    # chapter 7: Residual + BatchNorm, hybridized, train_ch6
    res = nn.Sequential(); res.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation('relu'), d2l.Residual(4), d2l.Residual(8, use_1x1conv=True, strides=2), nn.GlobalAvgPool2D(), nn.Dense(2))
    
    d2l.train_ch6(res, iti, iti, 2, 0.1, d2l.try_gpu())
    # chapter 8: concise RNN with train_ch8 (sequential iterator over a synthetic corpus)
    random.seed(1)
    tokens = list("the time traveller for so it will be convenient to speak of him")
    vocab = d2l.Vocab(tokens)
    corpus = [vocab[t] for t in tokens] * 3
    class Loader:
        def __iter__(self): return d2l.seq_data_iter_sequential(corpus, 2, 5)
    model = d2l.RNNModel(rnn.GRU(8), len(vocab))
    d2l.train_ch8(model, Loader(), vocab, 1.0, 3, d2l.try_gpu())
    # chapter 11: train_concise_ch11 with momentum and adam (the data iter from load_array, not shuffled)
    Xr = np.array(rng.normal(size=(400, 4)), dtype='float32'); yr = np.dot(Xr, np.array([1., -2., 0.5, 3.])) + 0.1
    itr = d2l.load_array((Xr, yr), 10, is_train=False)
    for name, hp in (('sgd', {'learning_rate': 0.01, 'momentum': 0.9}), ('adam', {'learning_rate': 0.01}), ('adadelta', {'rho': 0.9999})):
        d2l.nn.Sequential.initialize = (lambda orig: (lambda self, *a, **k: orig(self, Det())))(nn.Sequential.initialize)
        d2l.train_concise_ch11(name, hp, itr, num_epochs=1)
    print(json.dumps(LOG))
    return 0


if __name__ == "__main__":
    sys.exit(main())
