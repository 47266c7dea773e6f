"""Records what MXNet 1.9.1's ``mx.viz`` produces, for ``tests/deploy/test_viz.py``.

Run with real MXNet 1.9.1 (and the ``graphviz`` python package) from the repository root:

    /work/mxnet-venv/bin/python tests/deploy/data/record_viz_mxnet.py

For each case it stores the symbol JSON it used, the input shapes, ``print_summary``'s printed
table and ``plot_network``'s DOT source (with and without shapes/dtypes, weights hidden or not)
in ``viz_mxnet.json`` beside this file. The test parses both DOT sources into statements, so
the graphviz package's quoting conventions (which change between its versions) do not matter.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "..", "..", "shared", "fixtures", "mxnet", "models")


def _model(name: str) -> tuple[mx.sym.Symbol, dict]:
    root = os.path.join(MODELS, name)
    with open(os.path.join(root, "meta.json")) as f:
        shape = tuple(json.load(f)["input_shape"])
    return mx.sym.load(os.path.join(root, "model-symbol.json")), {"data": shape}


def _handmade() -> tuple[mx.sym.Symbol, dict]:
    """Ops the model fixtures lack: multi-output split, LeakyReLU, Embedding, a no-bias conv with
    groups, Concat of several inputs, softmax output."""
    data = mx.sym.var("data")
    tok = mx.sym.var("tokens")
    emb = mx.sym.Embedding(tok, input_dim=20, output_dim=8, name="emb")
    conv = mx.sym.Convolution(data, kernel=(3, 3), num_filter=8, num_group=2, no_bias=True,
                              pad=(1, 1), stride=(2, 2), name="conv")
    act = mx.sym.LeakyReLU(conv, act_type="elu", name="elu")
    parts = mx.sym.split(act, num_outputs=2, axis=1, name="parts")
    pooled = mx.sym.Pooling(parts[1], kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    flat = mx.sym.Flatten(pooled, name="flat")
    cat = mx.sym.Concat(flat, mx.sym.Flatten(emb, name="embflat"), dim=1, name="cat")
    fc = mx.sym.FullyConnected(cat, num_hidden=5, no_bias=True, name="fc")
    bn = mx.sym.BatchNorm(fc, name="bn")
    out = mx.sym.SoftmaxOutput(bn, name="softmax")
    return out, {"data": (2, 4, 8, 8), "tokens": (2, 3)}


def _summary(sym: mx.sym.Symbol, **kwargs) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        mx.viz.print_summary(sym, **kwargs)
    return buf.getvalue()


def main() -> None:
    cases = {}
    for name, (sym, shape) in {"seed_mlp": _model("seed_mlp"), "resnet18_v1": _model("resnet18_v1"),
                               "squeezenet1.0": _model("squeezenet1.0"), "handmade": _handmade()}.items():
        dtype = {k: np.float32 for k in shape}
        cases[name] = {
            "symbol": sym.tojson(),
            "shape": {k: list(v) for k, v in shape.items()},
            "summary": _summary(sym, shape=shape),
            "summary_noshape": _summary(sym),
            "summary_narrow": _summary(sym, shape=shape, line_length=80, positions=[30, 50, 60, 80]),
            "dot": mx.viz.plot_network(sym).source,
            "dot_shape": mx.viz.plot_network(sym, title="net", shape=shape, dtype=dtype,
                                             node_attrs={"fixedsize": "false"}).source,
            "dot_weights": mx.viz.plot_network(sym, hide_weights=False, save_format="svg").source,
        }
    with open(os.path.join(HERE, "viz_mxnet.json"), "w") as f:
        json.dump({"mxnet": mx.__version__, "cases": cases}, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote", len(cases), "cases", file=sys.stderr)


if __name__ == "__main__":
    main()
