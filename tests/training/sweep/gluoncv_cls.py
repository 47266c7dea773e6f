"""gluon-cv's classification training loop (scripts/classification/*/train_*.py): two contexts with
``split_and_load``, a hybridized convnet with BatchNorm, NAG with a warmup + cosine ``lr_scheduler``,
``no_wd`` through ``collect_params(...).setattr('wd_mult', 0)``, label smoothing (dense labels),
``clip_global_norm``, ``mx.metric`` Accuracy / TopKAccuracy, and a checkpoint mid-training
(``save_parameters`` + ``save_states``, then ``load_parameters`` + ``load_states`` into a fresh net)."""
import os
import tempfile

import numpy as np

import mxnet as mx
from mxnet import autograd as ag, gluon, nd
from mxnet.gluon import nn

CLASSES = 5


def get_net():
    net = nn.HybridSequential(prefix='cls_')
    with net.name_scope():
        net.add(nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.Activation('relu'),
                nn.Conv2D(8, 3, strides=2, padding=1), nn.BatchNorm(momentum=0.8), nn.Activation('relu'),
                nn.GlobalAvgPool2D(), nn.Flatten(), nn.Dropout(0.0), nn.Dense(CLASSES))
    return net


def smooth(label, classes, eta=0.1):
    if isinstance(label, nd.NDArray):
        label = [label]
    smoothed = []
    for l in label:
        res = l.one_hot(classes, on_value=1 - eta + eta / classes, off_value=eta / classes)
        smoothed.append(res)
    return smoothed


def run():
    ctx = [mx.cpu(0), mx.cpu(1)]
    rng = np.random.RandomState(2)
    X = nd.array(rng.uniform(-1, 1, size=(8, 3, 8, 8)))
    Y = nd.array(rng.randint(0, CLASSES, size=(8,)))
    net = get_net()
    net.initialize(mx.init.MSRAPrelu(), ctx=ctx)
    net(X[:2].as_in_context(ctx[0]))
    params = net._collect_params_with_prefix()
    for name in sorted(params):
        if 'running' not in name:
            params[name].set_data(nd.array(rng.uniform(-0.5, 0.5, params[name].shape)))
    net.hybridize(static_alloc=True, static_shape=True)
    net.collect_params('.*beta|.*gamma|.*bias').setattr('wd_mult', 0.0)

    num_batches, epochs, warmup = 2, 3, 2
    lr_scheduler = mx.lr_scheduler.CosineScheduler(max_update=num_batches * epochs, base_lr=0.2,
                                                   final_lr=0.01, warmup_steps=warmup, warmup_begin_lr=0.02)
    optimizer_params = {'wd': 1e-4, 'momentum': 0.9, 'lr_scheduler': lr_scheduler}
    trainer = gluon.Trainer(net.collect_params(), 'nag', optimizer_params)
    L = gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)
    train_metric, top5 = mx.metric.Accuracy(), mx.metric.TopKAccuracy(3)
    log, tmp = [], tempfile.mkdtemp()
    batch_size = 4
    for epoch in range(epochs):
        train_metric.reset()
        top5.reset()
        train_loss = 0
        for i in range(num_batches):
            batch = (X[i * batch_size:(i + 1) * batch_size], Y[i * batch_size:(i + 1) * batch_size])
            data = gluon.utils.split_and_load(batch[0], ctx_list=ctx, batch_axis=0)
            label = gluon.utils.split_and_load(batch[1], ctx_list=ctx, batch_axis=0)
            hard_label = label
            label = smooth(label, CLASSES)
            with ag.record():
                outputs = [net(x) for x in data]
                loss = [L(yhat, y) for yhat, y in zip(outputs, label)]
            for l in loss:
                l.backward()
            grads = [p.grad(c) for p in net.collect_params().values() if p.grad_req != 'null' for c in ctx]
            norm = gluon.utils.clip_global_norm(grads, 2.0 * len(ctx))
            trainer.step(batch_size)
            train_loss += sum([l.sum().asscalar() for l in loss])
            train_metric.update(hard_label, outputs)
            top5.update(hard_label, outputs)
            log.extend([train_loss, norm, trainer.learning_rate])
        log.extend([train_metric.get()[1], top5.get()[1]])
        if epoch == 0:
            net.save_parameters(os.path.join(tmp, 'cls-0.params'))
            trainer.save_states(os.path.join(tmp, 'cls-0.states'))
            net = get_net()
            net.load_parameters(os.path.join(tmp, 'cls-0.params'), ctx=ctx)
            net.hybridize()
            net.collect_params('.*beta|.*gamma|.*bias').setattr('wd_mult', 0.0)
            trainer = gluon.Trainer(net.collect_params(), 'nag', optimizer_params)
            trainer.load_states(os.path.join(tmp, 'cls-0.states'))
    params = net._collect_params_with_prefix()
    out = {k: p.data(ctx[1]).asnumpy() for k, p in params.items()}
    return {"losses": log, "params": out}
