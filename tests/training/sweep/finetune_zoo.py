"""Fine-tuning a model-zoo network (MXNet's "fine-tuning" tutorial, gluon-cv's transfer learning):
``vision.get_model('mobilenet0.25')`` as the pretrained net, a new one with another number of classes
whose ``features`` are the pretrained ones, ``output.initialize``, all but the last two convolutions of the features frozen
with ``collect_params(...).setattr('grad_req', 'null')``, ``lr_mult`` 10 on the new output, hybridized,
SGD with momentum; then ``export`` and ``SymbolBlock.imports`` of the fine-tuned net."""
import os
import re
import tempfile

import numpy as np

from mxnet import autograd, gluon, init, nd
from mxnet.gluon.model_zoo import vision


def run():
    rng = np.random.RandomState(11)
    pretrained = vision.get_model('mobilenet0.25', pretrained=False, classes=20)
    pretrained.initialize()
    pretrained(nd.zeros((1, 3, 32, 32)))
    for name, p in sorted(pretrained._collect_params_with_prefix().items()):
        if 'running_var' in name:
            p.set_data(nd.array(rng.uniform(0.5, 1.5, p.shape)))
        else:
            p.set_data(nd.array(rng.uniform(-0.3, 0.3, p.shape)))
    finetune_net = vision.get_model('mobilenet0.25', classes=3)
    finetune_net.features = pretrained.features
    finetune_net.output.initialize(init.Xavier())
    finetune_net.output(nd.zeros((1, 256)))
    finetune_net.output.weight.set_data(nd.array(rng.uniform(-0.2, 0.2, (3, 256))))
    finetune_net.output.bias.set_data(nd.zeros((3,)))
    finetune_net.output.collect_params().setattr('lr_mult', 10)
    frozen = [name for name in finetune_net.features._collect_params_with_prefix()
              if int(name.split('.')[0]) < 72]
    names = '|'.join(re.escape(finetune_net.features._collect_params_with_prefix()[n].name) for n in frozen)
    finetune_net.features.collect_params(names).setattr('grad_req', 'null')
    finetune_net.hybridize()
    trainer = gluon.Trainer(finetune_net.collect_params(), 'sgd',
                            {'learning_rate': 0.01, 'momentum': 0.9, 'wd': 1e-4})
    L = gluon.loss.SoftmaxCrossEntropyLoss()
    X = nd.array(rng.uniform(-1, 1, size=(4, 3, 64, 64)))
    y = nd.array([0, 1, 2, 1])
    log = []
    for _ in range(3):
        with autograd.record():
            out = finetune_net(X)
            loss = L(out, y)
        loss.backward()
        trainer.step(X.shape[0])
        log.append(loss.mean().asscalar())
    prefix = os.path.join(tempfile.mkdtemp(), 'finetuned')
    finetune_net.export(prefix, epoch=3)
    loaded = gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0003.params')
    log.append(float((loaded(X) - finetune_net(X)).abs().max().asscalar()))
    params = finetune_net._collect_params_with_prefix()
    keep = ['output.weight', 'output.bias', 'features.0.weight', 'features.1.running_mean', 'features.70.running_var',
            'features.73.gamma', 'features.73.running_mean', 'features.73.running_var', 'features.79.beta',
            'features.79.running_var']
    out = {k: params[k].data().asnumpy() for k in keep}
    out.update({k: params[k].data().asnumpy()[:4] for k in ('features.72.weight', 'features.78.weight')})
    return {"losses": log, "params": out}
