# The seed chapter's HybridNet in d2l 2.x style: `F.npx.relu`, and prints of F, x and the hidden
# layer on every imperative call but only once (Symbols) after hybridize(). MXNet style, as in the
# chapter. The input and the parameters come from a seeded RandomState (the chapter:
# `x = np.random.normal(size=(1, 3))`, random init), so the outputs compare with MXNet 1.9.1's.
import numpy as onp
from mxnet import np, npx
from mxnet.gluon import nn
npx.set_np()


class HybridNet(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(HybridNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(4)
        self.output = nn.Dense(2)

    def hybrid_forward(self, F, x):
        print('module F: ', F)
        print('value  x: ', x)
        x = F.npx.relu(self.hidden(x))
        print('result  : ', x)
        return self.output(x)


net = HybridNet()
net.initialize()
x = np.array(onp.random.RandomState(1).normal(size=(1, 3)), dtype='float32')
net(x)
rs = onp.random.RandomState(0)
for p in net.collect_params().values():
    p.set_data(np.array(rs.normal(0, 0.5, size=p.shape), dtype='float32'))
print(net(x))

net.hybridize()
print(net(x))

print(net(x))
