"""gluon-nlp 0.10's BERTAdam optimizer (src/gluonnlp/optimizer/bert_adam.py, Apache-2.0: its code below,
docstrings shortened), the default of its BERT scripts: an ``Optimizer`` subclass registered with
``@register`` and created by name through the Trainer, importing ``adamw_update``, ``mp_adamw_update``,
``multi_adamw_update`` and ``multi_mp_adamw_update`` from ``mxnet.ndarray.contrib``; with
``MXNET_OPTIMIZER_AGGREGATION_SIZE``'s default (4) the Updater hands it 4 parameters at a time, so it
runs the aggregated kernels. A float32 classifier (``update_on_kvstore=False``, ``allreduce_grads`` +
``update``) and a float16 elementwise network with ``multi_precision`` (``multi_mp_adamw_update``)."""
import os
import warnings

import numpy
import numpy as np

from mxnet import autograd, gluon, nd
from mxnet.gluon import nn
from mxnet.ndarray import NDArray, full, zeros
from mxnet.ndarray.contrib import adamw_update, mp_adamw_update, multi_adamw_update, multi_mp_adamw_update
from mxnet.optimizer import Optimizer, register


@register
class BERTAdam(Optimizer):
    """The Adam optimizer with weight decay regularization for BERT (gluon-nlp 0.10)."""
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 **kwargs):
        super(BERTAdam, self).__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.aggregate_num = max(1, min(50, int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE',
                                                          '4'))))

    def create_state_multi_precision(self, index, weight):
        """multi-precision state creation function."""
        weight_master_copy = None
        if self.multi_precision and weight.dtype == numpy.float16:
            weight_master_copy = weight.astype(numpy.float32)
            return (self.create_state(index, weight_master_copy), weight_master_copy)
        if weight.dtype == numpy.float16 and not self.multi_precision:
            warnings.warn('Accumulating with float16 in optimizer can lead to '
                          'poor accuracy or slow convergence. '
                          'Consider using multi_precision=True option of the '
                          'BERTAdam optimizer')
        return self.create_state(index, weight)

    def create_state(self, _, weight):
        """state creation function."""
        return (zeros(weight.shape, weight.context, dtype=weight.dtype), #mean
                zeros(weight.shape, weight.context, dtype=weight.dtype)) #variance

    def update(self, index, weight, grad, state):
        """update function"""
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        """multi-precision update function"""
        use_multi_precision = self.multi_precision and weight[0].dtype == numpy.float16
        self._update_impl(index, weight, grad, state,
                          multi_precision=use_multi_precision)

    def _update_impl(self, indices, weight, grad, state, multi_precision=False):
        """update function"""
        aggregate = self.aggregate_num > 1
        if not isinstance(indices, (tuple, list)):
            indices = [indices]
            weight = [weight]
            grad = [grad]
            state = [state]
        for w_i, g_i in zip(weight, grad):
            assert(isinstance(w_i, NDArray))
            assert(isinstance(g_i, NDArray))
            aggregate = (aggregate and
                         w_i.stype == 'default' and
                         g_i.stype == 'default')
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)

        # pylint: disable=access-member-before-definition
        if not isinstance(self.rescale_grad, NDArray):
            self.rescale_grad = full(shape=(1,), val=self.rescale_grad, ctx=weight[0].context)
        else:
            self.rescale_grad = self.rescale_grad.as_in_context(weight[0].context)

        kwargs = {'beta1': self.beta1, 'beta2': self.beta2, 'epsilon': self.epsilon,
                  'rescale_grad': self.rescale_grad}
        if self.clip_gradient:
            kwargs['clip_gradient'] = self.clip_gradient

        if aggregate:
            current_index = 0
            while current_index < len(indices):
                sidx = current_index
                eidx = min(current_index + self.aggregate_num, len(indices))
                if not multi_precision:
                    mean, var = list(zip(*state[sidx:eidx]))
                    multi_adamw_update(weight[sidx:eidx],
                                       grad[sidx:eidx],
                                       mean, var,
                                       out=weight[sidx:eidx],
                                       size=len(weight[sidx:eidx]),
                                       lrs=list(numpy.ones(len(weight[sidx:eidx]))),
                                       wds=wds[sidx:eidx],
                                       etas=lrs[sidx:eidx],
                                       **kwargs)
                else:
                    mean_var = list(zip(*state[sidx:eidx]))[0]
                    tmean_var = list(zip(*mean_var))
                    mean = tmean_var[0]
                    var = tmean_var[1]
                    multi_mp_adamw_update(weight[sidx:eidx],
                                          grad[sidx:eidx],
                                          mean, var,
                                          list(zip(*state[sidx:eidx]))[1],
                                          out=weight[sidx:eidx],
                                          size=len(weight[sidx:eidx]),
                                          lrs=list(numpy.ones(len(weight[sidx:eidx]))),
                                          wds=wds[sidx:eidx],
                                          etas=lrs[sidx:eidx],
                                          **kwargs)
                current_index += self.aggregate_num
        else:
            for w_i, g_i, s_i, lr, wd in zip(weight, grad, state, lrs, wds):
                if not multi_precision:
                    mean, var = s_i
                    adamw_update(w_i, g_i, mean, var, out=w_i,
                                 lr=1, wd=wd, eta=lr, **kwargs)
                else:
                    mean, var = s_i[0]
                    mp_adamw_update(w_i, g_i, mean, var, s_i[1], out=w_i,
                                    lr=1, wd=wd, eta=lr, **kwargs)


class Half(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Half, self).__init__(**kwargs)
        with self.name_scope():
            for name in ('w1', 'w2', 'w3', 'w4', 'b'):
                setattr(self, name, self.params.get(name, shape=(1, 4) if name != 'b' else (1, 1)))

    def hybrid_forward(self, F, x, w1, w2, w3, w4, b):
        h = F.tanh(F.broadcast_add(F.broadcast_mul(x, w1), w2))
        h = F.sigmoid(F.broadcast_mul(h, w3))
        return F.broadcast_add(F.sum(F.broadcast_mul(h, w4), axis=1, keepdims=True), b)


def run():
    rng = np.random.RandomState(14)
    X = nd.array(rng.uniform(-1, 1, size=(8, 4)))
    y = nd.array((rng.uniform(size=(8,)) > 0.5).astype(np.float32))
    net = nn.HybridSequential()
    net.add(nn.Dense(6, activation='tanh', in_units=4), nn.LayerNorm(in_channels=6), nn.Dense(2, in_units=6))
    net.initialize()
    params = {}
    for name, p in sorted(net._collect_params_with_prefix().items()):
        p.set_data(nd.array(rng.uniform(-0.5, 0.5, p.shape)))
        params[name] = p
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'bertadam', {'learning_rate': 0.01, 'epsilon': 1e-6, 'wd': 0.01},
                            update_on_kvstore=False)
    for _, v in net.collect_params('.*beta|.*gamma|.*bias').items():
        v.wd_mult = 0.0
    loss_fn = gluon.loss.SoftmaxCELoss()
    log = []
    for step in range(4):
        with autograd.record():
            ls = loss_fn(net(X), y).mean()
        ls.backward()
        trainer.allreduce_grads()
        trainer.update(1)
        log.append(ls.asscalar())

    half = Half()
    half.initialize()
    for name, p in sorted(half._collect_params_with_prefix().items()):
        p.set_data(nd.array(rng.uniform(-0.5, 0.5, p.shape)))
        params['half.' + name] = p
    half.cast('float16')
    half.hybridize()
    half_trainer = gluon.Trainer(half.collect_params(), 'bertadam',
                                 {'learning_rate': 0.02, 'wd': 0.01, 'multi_precision': True})
    target = nd.array(rng.uniform(-1, 1, size=(8, 1)))
    l2 = gluon.loss.L2Loss()
    half_log = []
    for step in range(3):
        with autograd.record():
            loss = l2(half(X.astype('float16')), target.astype('float16'))
        loss.backward()
        half_trainer.step(X.shape[0])
        half_log.append(float(loss.astype('float32').mean().asscalar()))
    return {"losses": log, "half_losses": half_log,
            "params": {k: p.data().astype('float32').asnumpy() for k, p in params.items()}}
