"""Half precision and resuming (gluon-cv's ``--dtype float16`` path): ``net.cast('float16')``, SGD with
``multi_precision``, inputs cast by ``astype(dtype, copy=False)``; a regression loss with
``sample_weight`` (``L2Loss``, ``HuberLoss``); ``autograd.record(train_mode=False)`` (Dropout and
BatchNorm in inference mode while recording), ``autograd.predict_mode()``; ``mx.metric`` MSE / RMSE;
``save_parameters`` + ``trainer.save_states`` mid-run, more steps, then ``load_parameters`` +
``load_states`` and the same steps again: the two runs end equal.

MXNet 1.9.1 has no float16 FullyConnected/Convolution/dot on the CPU, so the float16 network is built
of elementwise operators (what MXNet computes in float16 on the CPU); the Dense/BatchNorm one is
float32."""
import os
import tempfile

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn


class Elementwise(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Elementwise, self).__init__(**kwargs)
        with self.name_scope():
            self.w1 = self.params.get('w1', shape=(1, 5))
            self.w2 = self.params.get('w2', shape=(1, 5))
            self.b = self.params.get('b', shape=(1, 1))

    def hybrid_forward(self, F, x, w1, w2, b):
        h = F.tanh(F.broadcast_mul(x, w1))
        return F.broadcast_add(F.sum(F.broadcast_mul(h, w2), axis=1, keepdims=True), b)


def get_net():
    net = nn.HybridSequential()
    net.add(nn.Dense(8, in_units=5, activation='tanh'), nn.BatchNorm(in_channels=8), nn.Dropout(0.5),
            nn.Dense(2, in_units=8))
    return net


def run():
    rng = np.random.RandomState(7)
    X = nd.array(rng.uniform(-1, 1, size=(6, 5)))
    Y = nd.array(rng.uniform(-1, 1, size=(6, 2)))
    W = nd.array(rng.uniform(0.5, 1.5, size=(6, 1)))
    dtype = 'float16'
    half = Elementwise()
    half.initialize()
    half_params = half._collect_params_with_prefix()
    for name in sorted(half_params):
        half_params[name].set_data(nd.array(rng.uniform(-0.5, 0.5, half_params[name].shape)))
    half.cast(dtype)
    half.hybridize()
    half_trainer = gluon.Trainer(half.collect_params(), 'sgd',
                                 {'learning_rate': 0.1, 'momentum': 0.9, 'multi_precision': True})
    l2, huber = gluon.loss.L2Loss(), gluon.loss.HuberLoss(rho=0.5)
    log, tmp = [], tempfile.mkdtemp()

    def half_step():
        with autograd.record():
            out = half(X.astype(dtype, copy=False))
            loss = l2(out, Y[:, :1].astype(dtype), W.astype(dtype))
        loss.backward()
        half_trainer.step(X.shape[0])
        return float(loss.astype('float32').mean().asscalar())

    half_log = [half_step() for _ in range(2)]
    half_trainer.save_states(os.path.join(tmp, 'half.states'))
    half.save_parameters(os.path.join(tmp, 'half.params'))
    first = [half_step() for _ in range(2)]
    half.load_parameters(os.path.join(tmp, 'half.params'))
    half_trainer.load_states(os.path.join(tmp, 'half.states'))
    second = [half_step() for _ in range(2)]
    half_log.extend(first + second)

    net = get_net()
    net.initialize()
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        if 'running' not in name:
            params[name].set_data(nd.array(rng.uniform(-0.5, 0.5, params[name].shape)))
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    mse, rmse = mx.metric.MSE(), mx.metric.RMSE()

    def step(train_mode):
        with autograd.record(train_mode=train_mode):
            out = net(X)
            loss = l2(out, Y, W) + huber(out, Y)
        loss.backward()
        trainer.step(X.shape[0])
        mse.update(Y, out)
        rmse.update(Y, out)
        return float(loss.mean().asscalar())

    for i in range(3):
        log.append(step(train_mode=False))
    net.save_parameters(os.path.join(tmp, 'net.params'))
    trainer.save_states(os.path.join(tmp, 'net.states'))
    first = [step(train_mode=False) for _ in range(2)]
    net.load_parameters(os.path.join(tmp, 'net.params'))
    trainer.load_states(os.path.join(tmp, 'net.states'))
    second = [step(train_mode=False) for _ in range(2)]
    log.extend(first + second)
    with autograd.predict_mode():
        log.append(float(net(X).sum().asscalar()))
    log.extend([mse.get()[1], rmse.get()[1]])
    out = {k: p.data().asnumpy() for k, p in params.items()}
    out.update({'half.' + k: p.data().astype('float32').asnumpy() for k, p in half_params.items()})
    out['half.dtype'] = np.array([half_params['w1'].data().dtype == np.float16], dtype=np.float32)
    return {"losses": log, "half_losses": half_log, "params": out}
