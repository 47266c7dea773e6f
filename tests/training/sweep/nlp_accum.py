"""gluon-nlp 0.x's BERT fine-tuning loop (scripts/bert/finetune_classifier.py): a small
Embedding + LayerNorm + Dense classifier, Adam with ``update_on_kvstore=False``, no weight decay on
LayerNorm and biases (``wd_mult``), gradient accumulation with ``grad_req = 'add'`` and
``collect_params().zero_grad()``, ``trainer.allreduce_grads()`` + global-norm clipping written as
``nlp.utils.clip_grad_global_norm`` does (``nd.multi_sum_sq``, ``add_n``, ``contrib.isfinite``, ``take``)
+ ``trainer.update(accumulate)``, linear warmup/decay with ``set_learning_rate``, a loss with
``sample_weight``, and ``mx.metric`` Accuracy + F1 + CompositeEvalMetric."""
import numpy as np

import mxnet as mx
from mxnet import gluon, nd
from mxnet.gluon import nn

VOCAB, UNITS, SEQ = 20, 8, 5


class Classifier(gluon.HybridBlock):
    def __init__(self, num_classes=2, dropout=0.0, prefix=None, params=None):
        super(Classifier, self).__init__(prefix=prefix, params=params)
        with self.name_scope():
            self.embed = nn.Embedding(VOCAB, UNITS)
            self.encoder = nn.Dense(UNITS, flatten=False, activation='tanh')
            self.ln = nn.LayerNorm(in_channels=UNITS)
            self.classifier = nn.HybridSequential(prefix=prefix)
            if dropout:
                self.classifier.add(nn.Dropout(rate=dropout))
            self.classifier.add(nn.Dense(units=num_classes))

    def hybrid_forward(self, F, inputs, valid_length):
        h = self.ln(self.encoder(self.embed(inputs)))
        h = F.SequenceMask(h.swapaxes(0, 1), sequence_length=valid_length, use_sequence_length=True)
        pooled = F.broadcast_div(h.sum(axis=0), valid_length.reshape((-1, 1)))
        return self.classifier(pooled)


def grad_global_norm(parameters, max_norm):
    arrays = [p.list_grad()[0] for p in parameters if p.grad_req != 'null']
    sum_norm = nd.add_n(*mx.nd.multi_sum_sq(*arrays, num_arrays=len(arrays)))
    total_norm = sum_norm.sqrt()
    scale = total_norm / max_norm
    is_finite = nd.contrib.isfinite(scale)
    scale_or_one = nd.maximum(nd.ones((1,), dtype='float32'), scale)
    chosen_scale = nd.concat(scale, scale_or_one, dim=0).take(is_finite)
    return total_norm, chosen_scale, is_finite


def clip_grad_global_norm(parameters, max_norm):
    total_norm, ratio, is_finite = grad_global_norm(parameters, max_norm)
    scale = 1 / ratio
    assert is_finite == 1
    for p in parameters:
        if p.grad_req != 'null':
            for arr in p.list_grad():
                arr *= scale.as_in_context(arr.context)
    return total_norm


def run():
    rng = np.random.RandomState(3)
    n = 16
    inputs = rng.randint(0, VOCAB, size=(n, SEQ)).astype(np.float32)
    valid = rng.randint(2, SEQ + 1, size=(n,)).astype(np.float32)
    labels = (inputs[:, 0] > VOCAB / 2).astype(np.float32)
    weights = rng.uniform(0.5, 1.5, size=(n, 1)).astype(np.float32)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(inputs, valid, labels, weights), batch_size=4)

    model = Classifier(dropout=0.0)
    model.initialize(init=mx.init.Normal(0.02))
    model.hybridize(static_alloc=True)
    model(nd.array(inputs[:2]), nd.array(valid[:2]))
    params = model._collect_params_with_prefix()
    for name in sorted(params):
        params[name].set_data(nd.array(rng.normal(0, 0.3, params[name].shape)))

    lr, accumulate, num_train_steps, num_warmup_steps = 5e-2, 2, 4, 1
    all_model_params = model.collect_params()
    trainer = gluon.Trainer(all_model_params, 'adam', {'learning_rate': lr, 'epsilon': 1e-6, 'wd': 0.01},
                            update_on_kvstore=False)
    for _, v in model.collect_params('.*beta|.*gamma|.*bias').items():
        v.wd_mult = 0.0
    params_list = [p for p in all_model_params.values() if p.grad_req != 'null']
    for p in params_list:
        p.grad_req = 'add'
    loss_function = gluon.loss.SoftmaxCELoss()
    metric = mx.metric.CompositeEvalMetric([mx.metric.Accuracy(), mx.metric.F1()])
    log, step_num = [], 0
    for epoch_id in range(2):
        metric.reset()
        step_loss = 0
        all_model_params.zero_grad()
        for batch_id, (input_ids, valid_length, label, weight) in enumerate(loader):
            if step_num < num_warmup_steps:
                new_lr = lr * (step_num + 1) / num_warmup_steps
            else:
                offset = (step_num - num_warmup_steps) / (num_train_steps - num_warmup_steps)
                new_lr = lr - offset * lr
            trainer.set_learning_rate(new_lr)
            with mx.autograd.record():
                out = model(input_ids, valid_length)
                ls = loss_function(out, label, weight).mean()
            ls.backward()
            if (batch_id + 1) % accumulate == 0:
                trainer.allreduce_grads()
                norm = clip_grad_global_norm(params_list, 1)
                trainer.update(accumulate)
                step_num += 1
                all_model_params.zero_grad()
                log.append(norm.asscalar())
            step_loss += ls.asscalar()
            metric.update([label.reshape((-1))], [out])
            log.append(ls.asscalar())
        log.extend(metric.get()[1])
        log.append(step_loss)
    return {"losses": log, "params": {k: p.data().asnumpy() for k, p in params.items()}}
