# The seed chapter's MLP on hybridize.runtime: HybridSequential, the 1000-forward benchmark
# before/after hybridize(), export('my_mlp') and a Symbol input.
#
#     python samples/hybrid_mlp.py [OUTDIR]      # export goes to OUTDIR (default: a temp dir)
#
# mxnet_style/hybrid_mlp.py is the chapter's text (imports mxnet); this file differs only in its
# imports and in where the export is written.
import os
import sys
import tempfile
import time

from hybridize.runtime import nd, sym
from hybridize.runtime.gluon import nn


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

out_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="hybridize-sample-")
os.makedirs(out_dir, exist_ok=True)
net.export(os.path.join(out_dir, 'my_mlp'))
print('exported:', ', '.join(sorted(f for f in os.listdir(out_dir) if f.startswith('my_mlp'))), 'in', out_dir)

x = sym.var('data')
print(net(x))
