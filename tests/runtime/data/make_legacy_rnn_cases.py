"""Records MXNet 1.9.1's legacy ``mx.rnn`` package for ``tests/runtime/test_legacy_rnn.py``: the
unfused cells unrolled (outputs and input/parameter gradients through a bound executor), the fused
cell's weight layout (``unpack_weights`` names and shapes), the ``FusedRNN`` initializer, a
``BucketSentenceIter``'s buckets and an RNN checkpoint. Run by hand with a Python that has real
MXNet 1.9.1::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_legacy_rnn_cases.py

Writes ``legacy_rnn_cases.json``, ``legacy_rnn_cases.npz`` and the checkpoint
``legacy_rnn_ckpt-symbol.json``/``legacy_rnn_ckpt-0003.params`` next to this file.
"""
from __future__ import annotations

import json
import os

import numpy as np

import mxnet as mx
import legacy_rnn_nets as nets  # shared with the test (this directory is on sys.path)

assert mx.__version__ == "1.9.1", mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CASES: dict = {"unroll": []}
ARRAYS: dict = {}
T, N, I, H = nets.T, nets.N, nets.I, nets.H


def stack_of(mode: str, bidirectional: bool, layers: int) -> mx.rnn.SequentialRNNCell:
    return nets.stack_of(mx, mode, bidirectional, layers)


def values(shape: tuple, seed: int) -> np.ndarray:
    return np.random.RandomState(seed).uniform(-0.5, 0.5, size=shape).astype(np.float32)


for mode in nets.modes(mx):
    for bidirectional in (False, True):
        key = "%s_%s" % (mode, "bi" if bidirectional else "uni")
        layers = 2
        fused = mx.rnn.FusedRNNCell(H, num_layers=layers, mode=mode, bidirectional=bidirectional,
                                    get_next_state=True, prefix="")
        stack = stack_of(mode, bidirectional, layers)
        data = mx.sym.Variable("data")
        out, _ = stack.unroll(T, data, layout="NTC", merge_outputs=True)
        fout, _ = fused.unroll(T, data, layout="NTC", merge_outputs=True)
        ex = out.simple_bind(mx.cpu(), data=(N, T, I))
        names = [n for n in out.list_arguments() if n != "data"]
        args = {n: mx.nd.array(values(ex.arg_dict[n].shape, 7 + k)) for k, n in enumerate(names)}
        x = values((N, T, I), 3)
        for n, v in args.items():
            ex.arg_dict[n][:] = v
        ex.arg_dict["data"][:] = x
        ex.forward(is_train=True)
        dy = values(ex.outputs[0].shape, 5)
        ex.backward([mx.nd.array(dy)])
        packed = fused.pack_weights(stack.unpack_weights(dict(args)))["parameters"].asnumpy()
        fex = fout.simple_bind(mx.cpu(), data=(N, T, I))
        fex.arg_dict["data"][:] = x
        fex.arg_dict["parameters"][:] = packed
        fex.forward(is_train=True)
        fex.backward([mx.nd.array(dy)])
        unpacked = fused.unpack_weights({"parameters": mx.nd.array(np.arange(packed.size, dtype=np.float32))})
        CASES["unroll"].append({"key": key, "mode": mode, "bidirectional": bidirectional, "layers": layers,
                                "arguments": out.list_arguments(), "outputs": out.list_outputs(),
                                "fused_arguments": fout.list_arguments(),
                                "unpacked": {n: list(v.shape) for n, v in unpacked.items()}})
        ARRAYS[key + "/x"] = x
        ARRAYS[key + "/dy"] = dy
        ARRAYS[key + "/y"] = ex.outputs[0].asnumpy()
        ARRAYS[key + "/fused_y"] = fex.outputs[0].asnumpy()
        ARRAYS[key + "/packed"] = packed
        ARRAYS[key + "/fused_dparams"] = fex.grad_dict["parameters"].asnumpy()
        for n in out.list_arguments():
            ARRAYS[key + "/grad/" + n] = ex.grad_dict[n].asnumpy()
            if n != "data":
                ARRAYS[key + "/arg/" + n] = args[n].asnumpy()

# the FusedRNN initializer: unpacked pieces initialized one by one, LSTM forget biases set
for mode in ("lstm", "gru"):
    # (an ``init`` argument given as an Initializer does not load back from dumps() in MXNet 1.9.1:
    # its FusedRNN looks the name up in the wrong registry; None uses the global initializer)
    init = mx.init.FusedRNN(None, num_hidden=H, num_layers=2, mode=mode, forget_bias=2.0)
    fused = mx.rnn.FusedRNNCell(H, num_layers=2, mode=mode, prefix="")
    sym, _ = fused.unroll(T, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
    arg_shapes, _, _ = sym.infer_shape(data=(T, N, I))
    arr = mx.nd.zeros(dict(zip(sym.list_arguments(), arg_shapes))["parameters"])
    mx.init.Constant(0.25)(mx.init.InitDesc("parameters", attrs={"__init__": init.dumps()}), arr)
    ARRAYS["init/" + mode] = arr.asnumpy()
    CASES.setdefault("init", []).append({"mode": mode, "dumps": init.dumps()})

# BucketSentenceIter: sentences to buckets, padding, labels shifted by one
sentences = [[1, 2, 3], [4, 5], [6, 7, 8, 9, 10], [11], [12, 13, 14, 15], [16, 17, 18], [19, 20],
             [21, 22, 23, 24, 25, 26, 27], [28, 29]]
it = mx.rnn.BucketSentenceIter(sentences, batch_size=2, buckets=[2, 3, 5], invalid_label=-1)
CASES["bucket_iter"] = {
    "sentences": sentences, "batch_size": 2, "buckets": [2, 3, 5], "invalid_label": -1,
    "default_bucket_key": it.default_bucket_key, "idx_count": len(it.idx),
    "provide_data": [[d.name, list(d.shape), d.layout] for d in it.provide_data],
    "provide_label": [[d.name, list(d.shape), d.layout] for d in it.provide_label],
    "bucket_rows": [sorted(map(list, np.asarray(d).tolist())) for d in it.data],
    "bucket_labels": [sorted(map(list, l.asnumpy().tolist())) for l in it.ndlabel]}
it_tnc = mx.rnn.BucketSentenceIter(sentences, batch_size=2, buckets=[2, 3, 5], invalid_label=0, layout="TN")
CASES["bucket_iter"]["tn_provide_data"] = sorted([[d.name, list(d.shape), d.layout] for b in it_tnc
                                                  for d in b.provide_data])

# an RNN checkpoint of a fused LSTM: saved unpacked (MXNet's save_rnn_checkpoint) and read back packed
fused = mx.rnn.FusedRNNCell(H, num_layers=1, mode="lstm", prefix="ck_")
sym, _ = fused.unroll(T, mx.sym.Variable("data"), layout="TNC", merge_outputs=True)
arg_shapes, _, _ = sym.infer_shape(data=(T, N, I))
params = {"ck_parameters": mx.nd.array(values(dict(zip(sym.list_arguments(), arg_shapes))["ck_parameters"], 11))}
mx.rnn.save_rnn_checkpoint(fused, os.path.join(HERE, "legacy_rnn_ckpt"), 3, sym, dict(params), {})
ARRAYS["ckpt/parameters"] = params["ck_parameters"].asnumpy()

with open(os.path.join(HERE, "legacy_rnn_cases.json"), "w") as f:
    json.dump(CASES, f, indent=1, sort_keys=True)
np.savez_compressed(os.path.join(HERE, "legacy_rnn_cases.npz"), **ARRAYS)
print("wrote", len(ARRAYS), "arrays")
