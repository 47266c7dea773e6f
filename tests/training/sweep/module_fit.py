"""The Module API's ``fit`` (MXNet's example/image-classification/common/fit.py style): a symbolic
MLP with ``SoftmaxOutput``, an ``NDArrayIter``, ``mod.fit`` with given ``arg_params``, SGD with momentum
and a ``FactorScheduler``, ``eval_metric`` as a list, ``batch_end_callback`` / ``epoch_end_callback``
reading the metric, then ``mod.score``, ``mod.get_params`` and ``mx.model.save_checkpoint`` / ``load_checkpoint``."""
import os
import tempfile

import numpy as np

import mxnet as mx


def get_symbol(num_classes=3):
    data = mx.sym.Variable('data')
    data = mx.sym.Flatten(data=data)
    fc1 = mx.sym.FullyConnected(data=data, name='fc1', num_hidden=8)
    act1 = mx.sym.Activation(data=fc1, name='relu1', act_type='relu')
    fc2 = mx.sym.FullyConnected(data=act1, name='fc2', num_hidden=num_classes)
    return mx.sym.SoftmaxOutput(data=fc2, name='softmax')


def run():
    rng = np.random.RandomState(5)
    X = rng.uniform(-1, 1, size=(20, 2, 3)).astype(np.float32)
    y = (X.reshape(20, -1)[:, :3].sum(1) > 0).astype(np.float32) + (X[:, 1, 2] > 0.5)
    train = mx.io.NDArrayIter(X, y, batch_size=5, shuffle=False, label_name='softmax_label')
    val = mx.io.NDArrayIter(X[:10], y[:10], batch_size=5, label_name='softmax_label')
    arg_params = {'fc1_weight': mx.nd.array(rng.uniform(-0.5, 0.5, (8, 6))),
                  'fc1_bias': mx.nd.array(rng.uniform(-0.1, 0.1, (8,))),
                  'fc2_weight': mx.nd.array(rng.uniform(-0.5, 0.5, (3, 8))),
                  'fc2_bias': mx.nd.zeros((3,))}
    log = []

    def batch_end(param):
        for _, value in param.eval_metric.get_name_value():
            log.append(value)

    def epoch_end(epoch, symbol, arg, aux):
        log.append(float(arg['fc2_bias'].asnumpy().sum()))

    mod = mx.mod.Module(symbol=get_symbol(), context=mx.cpu(), data_names=['data'], label_names=['softmax_label'])
    lr_scheduler = mx.lr_scheduler.FactorScheduler(step=3, factor=0.5, base_lr=0.5)
    mod.fit(train, eval_data=val, eval_metric=['acc', 'ce'], optimizer='sgd',
            optimizer_params={'learning_rate': 0.5, 'momentum': 0.9, 'wd': 1e-4, 'lr_scheduler': lr_scheduler},
            arg_params=arg_params, initializer=mx.init.Xavier(), num_epoch=3,
            batch_end_callback=batch_end, epoch_end_callback=epoch_end)
    for _, value in mod.score(val, ['acc', mx.metric.CrossEntropy()]):
        log.append(value)
    arg, aux = mod.get_params()
    prefix = os.path.join(tempfile.mkdtemp(), 'mlp')
    mx.model.save_checkpoint(prefix, 3, mod.symbol, arg, aux)
    sym, arg2, _ = mx.model.load_checkpoint(prefix, 3)
    log.append(float(len(sym.list_arguments())))
    return {"losses": log, "params": {k: v.asnumpy() for k, v in sorted(arg2.items())}}
