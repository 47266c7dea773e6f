"""Records MXNet 1.9.1's optimizer update operators (``sgd_update`` ... ``ftrl_update``, their
in-place state updates included), CTCLoss with its optional
length inputs, ``Symbol.debug_str`` and ``gluon.contrib.data.IntervalSampler`` for
``tests/runtime/test_update_ops_and_unittest_apis.py``. Run by hand with a Python that has real MXNet 1.9.1::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_update_cases.py

Writes ``update_cases.json`` (calls, small values) and ``update_cases.npz`` (arrays) next to this file.
"""
from __future__ import annotations

import json
import os

import numpy as np

import mxnet as mx
from mxnet import gluon, nd

assert mx.__version__ == "1.9.1", mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CASES: dict = {}
ARRAYS: dict = {}

# (op, number of inputs, keyword arguments): the MXNet unit test's settings and variants without
# clipping / with clip_weights, so every branch of each kernel is recorded
UPDATES = [
    ("signsgd_update", 2, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3, "clip_gradient": 1e-3}),
    ("signum_update", 3, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3, "momentum": 0.9, "clip_gradient": 1e-3,
                          "wd_lh": 1e-3}),
    ("signum_update", 3, {"lr": 0.05, "momentum": 0.5}),
    ("sgd_update", 2, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3, "clip_gradient": 1e-3}),
    ("sgd_update", 2, {"rescale_grad": 0.5, "lr": 0.1, "wd": 1e-2}),
    ("sgd_mom_update", 3, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3, "momentum": 0.9, "clip_gradient": 0.02}),
    ("sgd_mom_update", 3, {"lr": 0.1, "momentum": 0.9}),
    ("nag_mom_update", 3, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3, "momentum": 0.9, "clip_gradient": 0.02}),
    ("nag_mom_update", 3, {"lr": 0.1, "momentum": 0.9, "wd": 0.01}),
    ("ftml_update", 5, {"t": 3, "rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3, "clip_grad": 1e-3}),
    ("ftml_update", 5, {"t": 1, "lr": 0.02}),
    ("ftrl_update", 4, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3}),
    ("ftrl_update", 4, {"lr": 0.5, "lamda1": 0.001, "beta": 2.0, "clip_gradient": 0.5}),
    ("adam_update", 4, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3}),
    ("adam_update", 4, {"lr": 0.01, "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6, "clip_gradient": 0.3}),
    ("rmspropalex_update", 5, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3}),
    ("rmspropalex_update", 5, {"lr": 0.01, "gamma1": 0.9, "gamma2": 0.8, "clip_gradient": 0.2, "clip_weights": 0.5}),
    ("rmsprop_update", 3, {"rescale_grad": 0.1, "lr": 0.01, "wd": 1e-3}),
    ("rmsprop_update", 3, {"lr": 0.05, "gamma1": 0.8, "clip_gradient": 0.2, "clip_weights": 0.4}),
]
rng = np.random.RandomState(12)
CASES["updates"] = []
for k, (op, n, kwargs) in enumerate(UPDATES):
    inputs = [rng.uniform(-1, 1, size=(2, 3)).astype(np.float32) for _ in range(n)]
    if op in ("rmsprop_update", "rmspropalex_update", "ftrl_update", "ftml_update", "adam_update"):
        for i in range(2, n):   # accumulated squares (and FTML's d, v) are non-negative
            if (op, i) not in (("ftrl_update", 2), ("rmspropalex_update", 3), ("rmspropalex_update", 4),
                               ("ftml_update", 4), ("adam_update", 2)):
                inputs[i] = np.abs(inputs[i]) + 0.5
    arrays = [nd.array(a) for a in inputs]
    out = getattr(nd, op)(*arrays, **kwargs)
    key = f"update/{k}"
    for i, a in enumerate(inputs):
        ARRAYS[f"{key}/in{i}"] = a
    for i, a in enumerate(arrays):
        ARRAYS[f"{key}/after{i}"] = a.asnumpy()
    ARRAYS[f"{key}/out"] = out.asnumpy()
    CASES["updates"].append({"op": op, "n": n, "kwargs": kwargs, "key": key})

# CTCLoss with optional pred/label lengths, None in between (Gluon's call F.CTCLoss(pred, label, None, lengths))
CASES["ctc"] = []
pred = rng.uniform(-1, 1, size=(2, 6, 4)).astype(np.float32)
ARRAYS["ctc/pred"] = pred
for k, (label, pl, ll) in enumerate([([[1, 0, -1], [2, 1, 1]], None, None), ([[2, 1, 2], [0, 2, 2]], None, [2, 1]),
                                     ([[1, 0, -1], [2, 1, -1]], [5, 6], None), ([[2, 1, 2], [0, 2, 2]], [4, 6], [2, 3])]):
    loss = gluon.loss.CTCLoss()(nd.array(pred), nd.array(label), None if pl is None else nd.array(pl),
                                None if ll is None else nd.array(ll))
    CASES["ctc"].append({"label": label, "pred_lengths": pl, "label_lengths": ll, "loss": loss.asnumpy().tolist()})

# Symbol.debug_str
x = mx.sym.var("data")
fc = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
act = mx.sym.Activation(fc, act_type="relu", name="act", attr={"lr_mult": "2"})
CASES["debug_str"] = {"net": mx.sym.Group([act, mx.sym.sum(fc, axis=1, name="s")]).debug_str(),
                      "variable": x.debug_str()}

# gluon.contrib.data.IntervalSampler
CASES["interval_sampler"] = [{"args": [n, i, r], "order": list(gluon.contrib.data.IntervalSampler(n, i, rollover=r)),
                              "len": len(gluon.contrib.data.IntervalSampler(n, i, rollover=r))}
                             for n, i, r in [(10, 3, True), (10, 3, False), (13, 3, True), (5, 5, True), (7, 1, False)]]

np.savez_compressed(os.path.join(HERE, "update_cases.npz"), **ARRAYS)
with open(os.path.join(HERE, "update_cases.json"), "w") as f:
    json.dump(CASES, f, indent=1, sort_keys=True)
    f.write("\n")
print("wrote update_cases.json/.npz:", ", ".join(f"{k} ({len(v)})" for k, v in CASES.items()))
