"""Gluon's Estimator (``mxnet.gluon.contrib.estimator``, MXNet 1.6+ tutorials): ``Estimator.fit`` with
train and validation data, metrics, a ``CheckpointHandler`` and an ``EarlyStoppingHandler``, a custom
``BatchEnd``/``EpochEnd`` handler logging the loss and metrics, then ``evaluate``."""
import logging
import tempfile

import numpy as np

import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn
from mxnet.gluon.contrib.estimator import estimator
from mxnet.gluon.contrib.estimator.event_handler import (BatchEnd, CheckpointHandler, EarlyStoppingHandler,
                                                          EpochEnd)


class Recorder(BatchEnd, EpochEnd):
    def __init__(self, log):
        self.log = log

    def batch_end(self, estimator, *args, **kwargs):
        self.log.append(float(sum(l.sum().asscalar() for l in kwargs['loss'])))

    def epoch_end(self, estimator, *args, **kwargs):
        for metric in estimator.train_metrics + estimator.val_metrics:
            self.log.append(metric.get()[1])


def run():
    rng = np.random.RandomState(8)
    X = rng.uniform(-1, 1, size=(20, 6)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(np.float32)
    train_data = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), batch_size=5)
    val_data = gluon.data.DataLoader(gluon.data.ArrayDataset(X[:10], y[:10]), batch_size=5)
    net = nn.HybridSequential()
    net.add(nn.Dense(8, activation='relu', in_units=6), nn.Dense(2, in_units=8))
    net.initialize(mx.init.Xavier())
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        params[name].set_data(mx.nd.array(rng.uniform(-0.5, 0.5, params[name].shape)))
    net.hybridize()
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.05})
    est = estimator.Estimator(net=net, loss=loss, train_metrics=[mx.metric.Accuracy()],
                              val_metrics=[mx.metric.Accuracy()], trainer=trainer, context=mx.cpu())
    est.logger.setLevel(logging.ERROR)
    log = []
    checkpoint = CheckpointHandler(model_dir=tempfile.mkdtemp(), model_prefix='model', monitor=est.train_metrics[0],
                                   mode='max', save_best=True, epoch_period=1)
    stop = EarlyStoppingHandler(monitor=est.train_metrics[0], patience=5, mode='max')
    est.fit(train_data=train_data, val_data=val_data, epochs=3, event_handlers=[Recorder(log), checkpoint, stop])
    est.evaluate(val_data=val_data)
    log.extend(m.get()[1] for m in est.val_metrics)
    return {"losses": log, "params": {k: p.data().asnumpy() for k, p in params.items()}}
