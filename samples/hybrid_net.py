# The seed chapter's HybridNet on hybridize.runtime: prints F, x and the hidden layer on every
# imperative call, and only once (with Symbols) after hybridize().
#
#     python samples/hybrid_net.py
#
# mxnet_style/hybrid_net.py is the chapter's text (imports mxnet); this file differs only in its imports.
from hybridize.runtime import nd
from hybridize.runtime.gluon import nn


class HybridNet(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(HybridNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(10)
        self.output = nn.Dense(2)

    def hybrid_forward(self, F, x):
        print('F: ', F)
        print('x: ', x)
        x = F.relu(self.hidden(x))
        print('hidden: ', x)
        return self.output(x)


net = HybridNet()
net.initialize()
x = nd.random.normal(shape=(1, 4))
print(net(x))

print(net(x))

net.hybridize()
print(net(x))

print(net(x))
