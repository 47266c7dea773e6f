"""Blocks for the pickling tests: a module (not a test file) so that a fresh process can import
the classes of what it unpickles, as a user's worker would import the user's model code."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from hybridize.runtime import nd
from hybridize.runtime.gluon import nn


class SmallConvNet(nn.HybridBlock):
    """Convolution, BatchNorm (with running statistics), pooling, a dense head and a skip."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv2D(6, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                          nn.MaxPool2D(2))
            self.head = nn.Dense(3)

    def hybrid_forward(self, F, x):
        h = self.body(x)
        return F.broadcast_add(self.head(h), F.mean(h, axis=(1, 2, 3)).reshape((-1, 1)))


class LoopNet(nn.HybridBlock):
    """A recurrence written with ``F.contrib.foreach``: a ``_foreach`` node with a subgraph."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = nn.Dense(4, flatten=False)

    def hybrid_forward(self, F, x, h):
        def step(data, states):
            s = F.tanh(self.cell(data) + states[0])
            return s, [s]
        outs, states = F.contrib.foreach(step, x, [h])
        return outs, states[0]


def run_pickled(path: str, out: str) -> None:
    """In a fresh process: unpickle ``{name: (object, inputs)}`` and save each one's outputs."""
    import pickle

    with open(path, "rb") as f:
        cases = pickle.load(f)
    results = {}
    for name, (obj, inputs) in cases.items():
        ys = call(obj, inputs)
        for i, y in enumerate(ys):
            results[f"{name}/{i}"] = y
    np.savez(out, **results)


def call(obj, inputs: list) -> list:
    """Outputs of any pickled thing as numpy arrays: a block, a symbol, a program or a model."""
    from hybridize.runtime import symbol
    from hybridize.runtime.graph.codegen import CompiledProgram
    from hybridize.runtime.graph.model import Model

    if isinstance(obj, symbol.Symbol):
        return [y.asnumpy() for y in obj.eval(**inputs[0])]
    if isinstance(obj, (CompiledProgram, Model)):
        return [np.asarray(y) for y in (obj(*inputs) if isinstance(obj, CompiledProgram) else obj.run(inputs))]
    out = obj(*[nd.array(a, dtype=a.dtype) for a in inputs])
    outs = out if isinstance(out, (list, tuple)) else [out]
    flat = []
    for o in outs:
        flat.extend(o if isinstance(o, (list, tuple)) else [o])
    return [o.asnumpy() for o in flat]


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    run_pickled(sys.argv[1], sys.argv[2])
