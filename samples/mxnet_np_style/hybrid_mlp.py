# The seed chapter's MLP in d2l 2.x style (MXNet >= 1.6: `from mxnet import np, npx`, `npx.set_np()`):
# the network factory, hybridize(), the 1000-forward benchmark before/after, export('my_mlp').
# MXNet style, as in the chapter; `hybridize transpile` maps mxnet.np/npx to hybridize.runtime.
#
# Two lines differ from the chapter, so that the printed outputs can be compared with MXNet 1.9.1's
# (recorded in expected/): the input and the parameters come from a seeded RandomState instead of
# MXNet's random generator (the chapter: `x = np.random.normal(size=(1, 512))`, random init).
import time

import numpy as onp
from mxnet import np, npx
from mxnet.gluon import nn
npx.set_np()


# Factory for networks
def get_net():
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation='relu'),
            nn.Dense(128, activation='relu'),
            nn.Dense(2))
    net.initialize()
    return net


def fixed_params(net, x):
    """Runs ``net`` once (parameter shapes) and gives every parameter a seeded value."""
    net(x)
    rs = onp.random.RandomState(0)
    for p in net.collect_params().values():
        p.set_data(np.array(rs.normal(0, 0.1, size=p.shape), dtype='float32'))


x = np.array(onp.random.RandomState(1).normal(size=(1, 512)), dtype='float32')
net = get_net()
fixed_params(net, x)
print(net(x))

net.hybridize()
print(net(x))


class Benchmark:
    """For measuring running time."""
    def __init__(self, description='Done'):
        self.description = description

    def __enter__(self):
        self.start = time.time()
        return self

    def __exit__(self, *args):
        print(f'{self.description}: {time.time() - self.start:.4f} sec')


net = get_net()
fixed_params(net, x)
with Benchmark('Without hybridization'):
    for i in range(1000): net(x)
    npx.waitall()

net.hybridize()
with Benchmark('With hybridization'):
    for i in range(1000): net(x)
    npx.waitall()
print(net(x))

net.export('my_mlp')
