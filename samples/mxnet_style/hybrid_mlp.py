# The seed chapter's MLP: HybridSequential, 1000-forward benchmark before/after hybridize(),
# export('my_mlp'), and a Symbol input. MXNet style, as in the chapter: `hybridize transpile`
# turns the imports into hybridize.runtime ones (see ../hybrid_mlp.py for the runnable version).
from mxnet import nd, sym
from mxnet.gluon import nn
import time


def get_net():
    net = nn.HybridSequential()  # Here we use the class HybridSequential
    net.add(nn.Dense(256, activation='relu'),
            nn.Dense(128, activation='relu'),
            nn.Dense(2))
    net.initialize()
    return net


x = nd.random.normal(shape=(1, 512))
net = get_net()
print(net(x))

net.hybridize()
print(net(x))


def benchmark(net, x):
    start = time.time()
    for i in range(1000):
        _ = net(x)
    # To facilitate timing, we wait for all computations to be completed
    nd.waitall()
    return time.time() - start


net = get_net()
print('before hybridizing: %.4f sec' % (benchmark(net, x)))
net.hybridize()
print('after hybridizing: %.4f sec' % (benchmark(net, x)))

net.export('my_mlp')

x = sym.var('data')
print(net(x))
