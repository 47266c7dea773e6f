"""gluon-ts 0.8's trainer (gluonts/mx/trainer/_base.py, model_averaging.py, learning_rate_scheduler.py):
a training network whose forward returns the loss (a Gaussian negative log-likelihood, softplus
scale), an ``mx.optimizer.Adam`` instance with ``wd`` and ``clip_gradient`` given to the Trainer with
``kvstore='device'``, ``record()`` + ``train_mode()``, ``mx.metric.Loss``, a ``LRScheduler`` subclass
that halves the rate when the epoch loss stops improving (``set_learning_rate``), a checkpoint per
epoch and, at the end, the average of the checkpoints (``mx.nd.load`` / ``add_n`` / ``mx.nd.save``)
loaded back with ``load_parameters``."""
import os
import tempfile

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn


class TrainingNetwork(gluon.HybridBlock):
    def __init__(self, num_hidden, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.rnn = gluon.rnn.HybridSequentialRNNCell()
            self.rnn.add(gluon.rnn.LSTMCell(num_hidden, input_size=2))
            self.proj_mu = nn.Dense(1, flatten=False, in_units=num_hidden)
            self.proj_sigma = nn.Dense(1, flatten=False, in_units=num_hidden)

    def hybrid_forward(self, F, past_target, feat, future_target):
        inputs = F.concat(past_target.expand_dims(axis=-1), feat.expand_dims(axis=-1), dim=-1)
        outputs, _ = self.rnn.unroll(length=4, inputs=inputs, layout='NTC', merge_outputs=True)
        mu = self.proj_mu(outputs).squeeze(axis=-1)
        sigma = F.Activation(self.proj_sigma(outputs), act_type='softrelu').squeeze(axis=-1) + 1e-3
        nll = F.log(sigma) + 0.5 * F.square((future_target - mu) / sigma) + 0.5 * np.log(2 * np.pi)
        return nll.mean(axis=1)


class MetricAttentiveScheduler(mx.lr_scheduler.LRScheduler):
    def __init__(self, base_lr, patience, decay_factor=0.5, min_lr=1e-4):
        super().__init__(base_lr=base_lr)
        self.patience, self.decay_factor, self.min_lr = patience, decay_factor, min_lr
        self.best, self.prev_change = np.inf, 0
        self.epoch = 0

    def __call__(self, num_update):
        return self.base_lr

    def step(self, metric_value):
        self.epoch += 1
        if metric_value < self.best:
            self.best, self.prev_change = metric_value, self.epoch
        elif self.epoch - self.prev_change >= self.patience:
            self.base_lr = max(self.base_lr * self.decay_factor, self.min_lr)
            self.prev_change = self.epoch
        return True


def average(param_paths, weights):
    all_arg_params = []
    for path in param_paths:
        params = mx.nd.load(path)
        all_arg_params.append(params)
    avg_params = {}
    for k in all_arg_params[0]:
        arrays = [p[k] for p in all_arg_params]
        avg_params[k] = mx.nd.add_n(*[a * w for a, w in zip(arrays, weights)])
    return avg_params


def run():
    rng = np.random.RandomState(9)
    t = np.arange(48, dtype=np.float32)
    series = np.sin(t / 3)[None, :] + 0.1 * rng.normal(size=(6, 48)).astype(np.float32)
    batches = []
    for b in range(3):
        start = 4 * b
        batches.append({'past_target': mx.nd.array(series[2 * b:2 * b + 2, start:start + 4]),
                        'feat': mx.nd.array(np.tile(np.cos(t[start:start + 4] / 3), (2, 1))),
                        'future_target': mx.nd.array(series[2 * b:2 * b + 2, start + 1:start + 5])})
    net = TrainingNetwork(5)
    net.initialize(mx.init.Xavier())
    _ = net(*batches[0].values())
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        params[name].set_data(mx.nd.array(rng.uniform(-0.5, 0.5, params[name].shape)))
    net.hybridize()
    optimizer = mx.optimizer.Adam(learning_rate=0.05, wd=1e-8, clip_gradient=0.5)
    trainer = gluon.Trainer(net.collect_params(), optimizer=optimizer, kvstore='device')
    scheduler = MetricAttentiveScheduler(base_lr=0.05, patience=1)
    tmp = tempfile.mkdtemp()
    log, paths = [], []
    for epoch_no in range(4):
        epoch_loss = mx.metric.Loss()
        for batch in batches:
            with autograd.record():
                with autograd.train_mode():
                    output = net(*batch.values())
                loss = output[0] if isinstance(output, (list, tuple)) else output
                batch_size = loss.shape[0]
            if not np.isfinite(mx.nd.sum(loss).asscalar()):
                continue
            loss.backward()
            trainer.step(batch_size)
            epoch_loss.update(None, preds=loss)
        lv = epoch_loss.get_name_value()[0][1]
        scheduler.step(lv)
        trainer.set_learning_rate(scheduler(trainer.optimizer.num_update))
        log.extend([lv, trainer.learning_rate])
        paths.append(os.path.join(tmp, 'prefix-%04d.params' % epoch_no))
        net.save_parameters(paths[-1])
    avg = average(paths[-2:], [0.5, 0.5])
    mx.nd.save(os.path.join(tmp, 'averaged.params'), avg)
    net.load_parameters(os.path.join(tmp, 'averaged.params'))
    log.append(float(net(*batches[0].values()).mean().asscalar()))
    return {"losses": log, "params": {k: p.data().asnumpy() for k, p in params.items()}}
