"""Gradient accumulation through a KVStore that updates on the store: ``mx.kv.create('local')`` given
to the Trainer with ``update_on_kvstore=True``, ``collect_params().setattr('grad_req', 'add')`` and
``setattr('lr_mult', ...)``, several micro-batches per ``trainer.step(batch_size * accumulate)`` then
``zero_grad()``; RMSProp with a warmup ``MultiFactorScheduler``; an imperative ``nn.Block`` with a
hybridized child, ``SigmoidBinaryCrossEntropyLoss`` with ``pos_weight``, ``KLDivLoss``, and the
``F1``/``MCC``/``PearsonCorrelation``/``MAE`` metrics; ``save_states`` / ``load_states`` through the store
(``kvstore.save_optimizer_states``) between steps. (Reloading parameters into a Trainer whose
user-given store already holds them fails in MXNet 1.9.1, "duplicate init of key 0", and here alike.)"""
import os
import tempfile

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn


class Net(nn.Block):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Dense(6, activation='softrelu', in_units=4), nn.Dense(6, in_units=6))
            self.head = nn.Dense(1, in_units=6)

    def forward(self, x):
        h = self.body(x)
        h = nd.relu(h) + 0.1 * nd.sigmoid(h)
        return self.head(h), nd.log_softmax(h, axis=-1)


def run():
    rng = np.random.RandomState(10)
    X = nd.array(rng.uniform(-1, 1, size=(12, 4)))
    y = nd.array((rng.uniform(size=(12, 1)) > 0.6).astype(np.float32))
    target_dist = nd.softmax(nd.array(rng.normal(size=(12, 6))), axis=-1)
    net = Net()
    net.initialize()
    net.body.hybridize()
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        params[name].set_data(nd.array(rng.uniform(-0.6, 0.6, params[name].shape)))
    net.collect_params('.*head.*').setattr('lr_mult', 0.5)
    net.collect_params().setattr('grad_req', 'add')
    kv = mx.kv.create('local')
    schedule = mx.lr_scheduler.MultiFactorScheduler(step=[2, 4], factor=0.5, base_lr=0.02, warmup_steps=1,
                                                    warmup_begin_lr=0.01, warmup_mode='constant')
    trainer = gluon.Trainer(net.collect_params(), 'rmsprop', {'learning_rate': 0.02, 'gamma1': 0.8,
                                                              'lr_scheduler': schedule},
                            kvstore=kv, update_on_kvstore=True)
    bce = gluon.loss.SigmoidBinaryCrossEntropyLoss()
    kl = gluon.loss.KLDivLoss(from_logits=True)
    metrics = [mx.metric.F1(), mx.metric.MCC(), mx.metric.MAE()]
    log, accumulate, micro = [], 2, 3
    for step in range(5):
        for i in range(accumulate):
            s = ((step * accumulate + i) * micro) % 12
            xb, yb, tb = X[s:s + micro], y[s:s + micro], target_dist[s:s + micro]
            with autograd.record():
                logit, logp = net(xb)
                loss = bce(logit, yb, None, nd.array([2.0])) + 0.5 * kl(logp, tb)
            loss.backward()
            log.append(loss.mean().asscalar())
            prob = nd.sigmoid(logit)
            two_class = nd.concat(1 - prob, prob, dim=1)
            for m in metrics[:2]:
                m.update([yb], [two_class])
            for m in metrics[2:]:
                m.update([yb], [prob])
        trainer.step(micro * accumulate)
        net.collect_params().zero_grad()
        log.append(trainer.learning_rate)
    pearson = mx.metric.PearsonCorrelation()
    pearson.update([y], [nd.sigmoid(net(X)[0])])
    log.extend(m.get()[1] for m in metrics + [pearson])
    tmp = tempfile.mkdtemp()
    trainer.save_states(os.path.join(tmp, 'net.states'))
    for _ in range(2):
        trainer.load_states(os.path.join(tmp, 'net.states'))
        with autograd.record():
            logit, logp = net(X[:micro])
            loss = bce(logit, y[:micro]) + 0.5 * kl(logp, target_dist[:micro])
        loss.backward()
        trainer.step(micro)
        net.collect_params().zero_grad()
        log.append(float(net(X)[0].sum().asscalar()))
    return {"losses": log, "params": {k: p.data().asnumpy() for k, p in params.items()}}
