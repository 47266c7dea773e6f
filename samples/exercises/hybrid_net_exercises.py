# The seed chapter's exercises, written out: each `hybrid_forward` below is the chapter's
# HybridNet with one of the changes the exercises ask about. All of them run imperatively; none
# of them survives hybridize(). `hybridize check samples/exercises` reports every one, with its
# location, the reason and the fix (samples/run_samples.py expects exactly these findings).
from mxnet.gluon import nn


class AsNumpyNet(nn.HybridBlock):
    """Exercise 1: `x.asnumpy()` on the first line of hybrid_forward."""

    def __init__(self, **kwargs):
        super(AsNumpyNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(10)
        self.output = nn.Dense(2)

    def hybrid_forward(self, F, x):
        x.asnumpy()                      # HY001: a Symbol has no values to copy out
        x = F.relu(self.hidden(x))
        return self.output(x)


class InPlaceNet(nn.HybridBlock):
    """The chapter's in-place operations: `a += b` and `a[:] = a + b`."""

    def __init__(self, **kwargs):
        super(InPlaceNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(10)

    def hybrid_forward(self, F, x):
        a = F.relu(self.hidden(x))
        b = F.sigmoid(self.hidden(x))
        a += b                           # HY002 (fixable: a = a + b)
        a[:] = a + b                     # HY003: a Symbol cannot be written into
        return a


class ControlFlowNet(nn.HybridBlock):
    """Exercise 2: Python `if` and `for` that depend on the data."""

    def __init__(self, **kwargs):
        super(ControlFlowNet, self).__init__(**kwargs)
        self.hidden = nn.Dense(10)
        self.use_bias = True             # configuration: branching on it is fine

    def hybrid_forward(self, F, x):
        h = self.hidden(x)
        if self.use_bias:                # static: not reported
            h = h + 1
        if h.sum() > 0:                  # HY004: the condition is a tensor
            h = F.relu(h)
        rows = []
        for r in h:                      # HY005: iterating over a tensor
            rows.append(r * 2)
        return F.concat(*rows, dim=0)
