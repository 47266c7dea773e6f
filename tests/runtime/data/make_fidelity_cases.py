"""Records MXNet 1.9.1's answers for ``tests/runtime/test_mxnet_fidelity.py`` (train-mode
state, arange with integer dtypes, -1 in unravel_index/ravel_multi_index shapes, shape inference
backwards through transpose, PReLU with a full-shape gamma, deferred RNN input sizes, a
224x224-kernel convolution) and ``tests/gluon/test_model_zoo_vision.py`` (``print(model)`` of every
vision model). Run by hand with a Python that has real MXNet 1.9.1 (CI has none)::

    /work/mxnet-venv/bin/python tests/runtime/data/make_fidelity_cases.py

It writes ``fidelity_cases.json`` (small values, lists) and ``fidelity_cases.npz`` (arrays) next to
this file. Inputs are deterministic (fixed numpy seeds).
"""
from __future__ import annotations

import json
import os

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon, nd

assert mx.__version__ == "1.9.1", mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CASES: dict = {}
ARRAYS: dict = {}


# -- arange: integer dtypes truncate start and step first ----------------------------------------
ARANGE = [(1.3, 456.6, 1.3, 1), (0.5, 7.2, 0.7, 2), (-3.7, 5.1, 1.1, 1), (10.0, -5.0, -2.5, 1),
          (2.9, 30.0, 2.9, 3), (0.0, 3.0, 0.1, 1)]
CASES["arange"] = []
for dtype in ["float32", "float64", "int32", "int64", "uint8", "int8"]:
    for k, (start, stop, step, repeat) in enumerate(ARANGE):
        try:
            out = nd.arange(start, stop, step, repeat=repeat, dtype=dtype).asnumpy()
        except mx.MXNetError as err:
            CASES["arange"].append({"args": [start, stop, step, repeat], "dtype": dtype, "error": str(err)[:80]})
            continue
        key = "arange/%s/%d" % (dtype, k)
        ARRAYS[key] = out
        CASES["arange"].append({"args": [start, stop, step, repeat], "dtype": dtype, "key": key})

# -- unravel_index / ravel_multi_index with -1 as the leading dimension ---------------------------
rng = np.random.RandomState(0)
CASES["unravel"] = []
for k, shape in enumerate([(-1, 4), (-1, 3, 5), (-1, 2, 3, 2), (-1,)]):
    rest = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    flat = rng.randint(0, 7 * rest, size=9).astype(np.float32)
    un = nd.unravel_index(nd.array(flat), shape=shape).asnumpy()
    back = nd.ravel_multi_index(nd.array(un), shape=shape).asnumpy()
    ARRAYS["unravel/%d/in" % k], ARRAYS["unravel/%d/out" % k], ARRAYS["unravel/%d/back" % k] = flat, un, back
    CASES["unravel"].append({"shape": list(shape), "key": "unravel/%d" % k})

# -- shape inference backwards through transpose (unknown dims in ones(shape=...)) -----------------
CASES["transpose_infer"] = []
for known, unknown, axes in [([2, 3], [-1, -1], None), ([2, -1], [3, -1], None), ([4, 2, 3], [-1, 3, -1], (2, 0, 1)),
                             ([5, 6, 7], [0, 0, 0], (1, 2, 0))]:
    a = mx.sym.ones(shape=known)
    t = mx.sym.transpose(mx.sym.ones(shape=unknown), axes=axes) if axes else mx.sym.transpose(mx.sym.ones(shape=unknown))
    _, out_shapes, _ = (a + t).infer_shape()
    internals = (a + t).get_internals()
    CASES["transpose_infer"].append({"known": known, "unknown": unknown, "axes": list(axes) if axes else None,
                                     "out": list(out_shapes[0])})

# -- PReLU: gamma of one value, per channel, or the data's leading dims ----------------------------
CASES["prelu"] = []
for k, (xshape, gshape) in enumerate([((3, 4), (3, 4)), ((3, 4, 4, 5), (3, 4)), ((2, 3, 4), (2, 3)),
                                      ((3, 4, 5), (4,)), ((3, 4), (1,))]):
    x = rng.uniform(-1, 1, size=xshape).astype(np.float32)
    g = rng.uniform(0.1, 0.5, size=gshape).astype(np.float32)
    y = nd.LeakyReLU(nd.array(x), nd.array(g), act_type="prelu").asnumpy()
    s = mx.sym.LeakyReLU(mx.sym.var("x"), mx.sym.var("gamma"), act_type="prelu")
    arg_shapes, _, _ = s.infer_shape(x=xshape, gamma=gshape)
    ARRAYS["prelu/%d/x" % k], ARRAYS["prelu/%d/gamma" % k], ARRAYS["prelu/%d/y" % k] = x, g, y
    CASES["prelu"].append({"key": "prelu/%d" % k, "x": list(xshape), "gamma": list(gshape)})

# -- deferred RNN input size inside a hybridized HybridSequential ---------------------------------
CASES["rnn_deferred"] = []
for mode, bidir in [("lstm", True), ("lstm", False), ("gru", False), ("rnn_tanh", True)]:
    layer = {"lstm": gluon.rnn.LSTM, "gru": gluon.rnn.GRU, "rnn_tanh": gluon.rnn.RNN}[mode](10, bidirectional=bidir)
    net = gluon.nn.HybridSequential()
    net.add(layer, gluon.nn.BatchNorm(axis=2), gluon.nn.Flatten(), gluon.nn.Dense(3, activation="relu"))
    net.hybridize()
    net.initialize()
    out = net(nd.ones((2, 3, 6)))
    CASES["rnn_deferred"].append({"mode": mode, "bidirectional": bidir, "out": list(out.shape),
                                  "params": {k: list(p.shape) for k, p in net.collect_params().items()}})

# -- BatchNorm and Dropout in train mode ----------------------------------------------------------
x = rng.normal(1.0, 2.0, size=(4, 3, 5, 5)).astype(np.float32)
ARRAYS["bn/x"] = x
CASES["batchnorm"] = []
for hybrid in [False, True]:
    for scope in ["none", "record", "record_predict", "train_mode", "predict_mode_in_record", "pause_in_record"]:
        bn = gluon.nn.BatchNorm(momentum=0.8, in_channels=3, epsilon=1e-5)
        bn.initialize()
        bn.gamma.set_data(nd.array([1.5, 0.5, 2.0]))
        bn.beta.set_data(nd.array([0.1, -0.2, 0.3]))
        bn.running_mean.set_data(nd.array([0.1, 0.2, 0.3]))
        bn.running_var.set_data(nd.array([1.5, 2.0, 3.0]))
        if hybrid:
            bn.hybridize()
        flags = []
        if scope == "none":
            y = bn(nd.array(x)); flags = [autograd.is_recording(), autograd.is_training()]
        elif scope == "record":
            with autograd.record():
                y = bn(nd.array(x)); flags = [autograd.is_recording(), autograd.is_training()]
        elif scope == "record_predict":
            with autograd.record(train_mode=False):
                y = bn(nd.array(x)); flags = [autograd.is_recording(), autograd.is_training()]
        elif scope == "train_mode":
            with autograd.train_mode():
                y = bn(nd.array(x)); flags = [autograd.is_recording(), autograd.is_training()]
        elif scope == "predict_mode_in_record":
            with autograd.record():
                with autograd.predict_mode():
                    y = bn(nd.array(x)); flags = [autograd.is_recording(), autograd.is_training()]
        else:
            with autograd.record():
                with autograd.pause():
                    y = bn(nd.array(x)); flags = [autograd.is_recording(), autograd.is_training()]
        key = "bn/%s/%s" % ("hybrid" if hybrid else "imperative", scope)
        ARRAYS[key + "/y"] = y.asnumpy()
        ARRAYS[key + "/running_mean"] = bn.running_mean.data().asnumpy()
        ARRAYS[key + "/running_var"] = bn.running_var.data().asnumpy()
        CASES["batchnorm"].append({"hybrid": hybrid, "scope": scope, "key": key, "flags": flags})

CASES["dropout"] = []
ones = nd.ones((200, 50))
for hybrid in [False, True]:
    for mode in ["training", "always"]:
        for scope in ["none", "record", "record_predict", "train_mode", "pause_in_record"]:
            block = gluon.nn.HybridLambda(lambda F, v, mode=mode: F.Dropout(v, p=0.4, mode=mode))
            if hybrid:
                block.hybridize()
            if scope == "none":
                y = block(ones)
            elif scope == "record":
                with autograd.record():
                    y = block(ones)
            elif scope == "record_predict":
                with autograd.record(train_mode=False):
                    y = block(ones)
            elif scope == "train_mode":
                with autograd.train_mode():
                    y = block(ones)
            else:
                with autograd.record():
                    with autograd.pause(train_mode=True):
                        y = block(ones)
            y = y.asnumpy()
            CASES["dropout"].append({"hybrid": hybrid, "mode": mode, "scope": scope,
                                     "zero_fraction": float((y == 0).mean()),
                                     "values": sorted(set(np.unique(y).round(6).tolist()))})

# -- a 224x224 kernel over a 224x224 input: imperative and hybridized -----------------------------
crng = np.random.RandomState(224)   # the test rebuilds these inputs from the same seed
xc = crng.uniform(-1, 1, size=(2, 3, 224, 224)).astype(np.float32)
wc = crng.uniform(-0.01, 0.01, size=(8, 3, 224, 224)).astype(np.float32)
bc = crng.uniform(-0.1, 0.1, size=(8,)).astype(np.float32)
conv = gluon.nn.Conv2D(8, (224, 224), in_channels=3)
conv.initialize()
conv.weight.set_data(nd.array(wc)); conv.bias.set_data(nd.array(bc))
y_imp = conv(nd.array(xc)).asnumpy()
conv.hybridize()
y_hyb = conv(nd.array(xc)).asnumpy()
ARRAYS.update({"conv224/y_imperative": y_imp,
               "conv224/y_hybrid": y_hyb})
CASES["conv224"] = {"max_abs_imperative_vs_hybrid": float(np.abs(y_imp - y_hyb).max())}

# -- model zoo: print(model) of every vision model before initialization (sha1 of the text) ---------
import hashlib  # noqa: E402
from mxnet.gluon.model_zoo import vision  # noqa: E402

ZOO = ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1", "resnet18_v2", "resnet34_v2",
       "resnet50_v2", "resnet101_v2", "resnet152_v2", "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn",
       "vgg16_bn", "vgg19_bn", "alexnet", "densenet121", "densenet161", "densenet169", "densenet201",
       "squeezenet1.0", "squeezenet1.1", "inceptionv3", "mobilenet1.0", "mobilenet0.75", "mobilenet0.5",
       "mobilenet0.25", "mobilenetv2_1.0", "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25"]
CASES["zoo_repr_sha1"] = {name: hashlib.sha1(repr(vision.get_model(name)).encode()).hexdigest() for name in ZOO}

with open(os.path.join(HERE, "fidelity_cases.json"), "w") as f:
    json.dump(CASES, f, indent=1, sort_keys=True)
np.savez_compressed(os.path.join(HERE, "fidelity_cases.npz"), **ARRAYS)
print("wrote", len(ARRAYS), "arrays")
