"""MXNet's example/gluon/dc_gan/dcgan.py: a generator of ``Conv2DTranspose`` + BatchNorm and a
discriminator of ``Conv2D`` + BatchNorm + ``LeakyReLU``, two Adam Trainers (``beta1=0.5``); the
discriminator learns from a real batch and from ``fake.detach()`` (two recorded graphs summed before
one ``backward``), then the generator through the discriminator; ``mx.metric.Accuracy`` over both.
The noise is drawn by numpy from a fixed seed (MXNet's random stream is not reproduced)."""
import numpy as np

import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.gluon import nn

nz, ngf, ndf, nc, batch_size = 4, 4, 4, 1, 4


def get_netG():
    netG = nn.Sequential()
    with netG.name_scope():
        netG.add(nn.Conv2DTranspose(ngf * 4, 4, 1, 0, use_bias=False))
        netG.add(nn.BatchNorm())
        netG.add(nn.Activation('relu'))
        netG.add(nn.Conv2DTranspose(ngf * 2, 4, 2, 1, use_bias=False))
        netG.add(nn.BatchNorm())
        netG.add(nn.Activation('relu'))
        netG.add(nn.Conv2DTranspose(nc, 4, 2, 1, use_bias=False))
        netG.add(nn.Activation('tanh'))
    return netG


def get_netD():
    netD = nn.Sequential()
    with netD.name_scope():
        netD.add(nn.Conv2D(ndf, 4, 2, 1, use_bias=False))
        netD.add(nn.LeakyReLU(0.2))
        netD.add(nn.Conv2D(ndf * 2, 4, 2, 1, use_bias=False))
        netD.add(nn.BatchNorm())
        netD.add(nn.LeakyReLU(0.2))
        netD.add(nn.Conv2D(2, 4, 1, 0, use_bias=False))
    return netD


def run():
    rng = np.random.RandomState(12)
    ctx = mx.cpu()
    netG, netD = get_netG(), get_netD()
    loss = gluon.loss.SoftmaxCrossEntropyLoss()
    netG.initialize(mx.init.Normal(0.02), ctx=ctx)
    netD.initialize(mx.init.Normal(0.02), ctx=ctx)
    netD(netG(nd.zeros((batch_size, nz, 1, 1))))
    params = {}
    for prefix, net in (('G.', netG), ('D.', netD)):
        for name, p in sorted(net._collect_params_with_prefix().items()):
            if 'running' not in name:
                p.set_data(nd.array(rng.normal(1.0 if 'gamma' in name else 0.0, 0.2, p.shape)))
            params[prefix + name] = p
    trainerG = gluon.Trainer(netG.collect_params(), 'adam', {'learning_rate': 0.002, 'beta1': 0.5})
    trainerD = gluon.Trainer(netD.collect_params(), 'adam', {'learning_rate': 0.002, 'beta1': 0.5})
    real_label = nd.ones((batch_size,), ctx=ctx)
    fake_label = nd.zeros((batch_size,), ctx=ctx)
    metric = mx.metric.Accuracy()
    real = rng.uniform(-1, 1, size=(3, batch_size, nc, 16, 16)).astype(np.float32)
    log = []
    for data in real:
        data = nd.array(data).as_in_context(ctx)
        noise = nd.array(rng.normal(0, 1, size=(batch_size, nz, 1, 1)), ctx=ctx)
        with autograd.record():
            output = netD(data)
            output = output.reshape((batch_size, 2))
            errD_real = loss(output, real_label)
        metric.update([real_label, ], [output, ])
        with autograd.record():
            fake = netG(noise)
            output = netD(fake.detach())
            output = output.reshape((batch_size, 2))
            errD_fake = loss(output, fake_label)
            errD = errD_real + errD_fake
        errD.backward()
        metric.update([fake_label, ], [output, ])
        trainerD.step(batch_size)
        with autograd.record():
            output = netD(fake)
            output = output.reshape((-1, 2))
            errG = loss(output, real_label)
        errG.backward()
        trainerG.step(batch_size)
        name, acc = metric.get()
        log.extend([mx.nd.mean(errD).asscalar(), mx.nd.mean(errG).asscalar(), acc])
    return {"losses": log, "params": {k: p.data().asnumpy() for k, p in params.items()}}
