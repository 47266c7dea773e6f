"""The fused ``RNN`` operator (rnn_relu, rnn_tanh, lstm, gru; layers, bidirectional, sequence
lengths) as ONNX ``RNN``/``LSTM``/``GRU``, one node per layer; and ``_rnn_param_concat``.

MXNet's flat parameter vector must be constant (parameters, or Gluon's concatenation of them,
folded at export): it is cut per layer and direction with the runtime's own unpacking and the
gates reordered (LSTM ``i, f, g, o`` -> ONNX ``i, o, f, c``; GRU ``r, z, n`` -> ``z, r, h``, with
``linear_before_reset`` as cuDNN and MXNet compute the candidate). States ``(layers * directions,
N, H)`` are sliced per layer and the final ones concatenated back.
"""
from __future__ import annotations

import numpy as np

from ..ops.nn_rnn import _unpack
from .registry import converter

_ORDER = {"lstm": [0, 3, 1, 2], "gru": [1, 0, 2], "rnn_relu": [0], "rnn_tanh": [0]}
_ONNX_OP = {"lstm": "LSTM", "gru": "GRU", "rnn_relu": "RNN", "rnn_tanh": "RNN"}


def _gates(w: np.ndarray, mode: str, H: int) -> np.ndarray:
    """Gate blocks along axis 0 of ``w`` in ONNX's order."""
    return np.concatenate([w[k * H:(k + 1) * H] for k in _ORDER[mode]], axis=0)


@converter("RNN")
def rnn(n):
    a = n.attrs
    mode = a.mode
    if a.projection_size:
        n.fail("LSTM projection (projection_size) has no ONNX form")
    if a.lstm_state_clip_min is not None or a.lstm_state_clip_max is not None:
        n.fail("LSTM state clipping differs from ONNX's clip of the gate inputs")
    params = n.in_value(1)
    if params is None:
        n.fail("its parameter vector is not constant")
    dt = n.in_dtype(0)
    H, L = int(a.state_size), int(a.num_layers)
    D = 2 if a.bidirectional else 1
    layers = _unpack(a, np.asarray(params).astype(dt).reshape(-1), n.in_shape(0)[2])
    names = ["data", "parameters", "state"] + (["state_cell"] if mode == "lstm" else [])
    state = n.inputs[2]
    cell = n.inputs[3] if mode == "lstm" else None
    lens = ""
    if a.use_sequence_length:
        lens = n.inputs[len(names)]
        lens = n.cast(lens, np.int32) if n.in_dtype(len(names)) != np.int32 else lens
    attrs = {"hidden_size": H, "direction": "bidirectional" if D == 2 else "forward"}
    if mode == "gru":
        attrs["linear_before_reset"] = 1
    if mode.startswith("rnn_"):
        attrs["activations"] = ["Relu" if mode == "rnn_relu" else "Tanh"] * D
    x = n.inputs[0]
    hs, cs = [], []
    for li, dirs in enumerate(layers):
        W = n.b.const(np.stack([_gates(p["wi"], mode, H) for p in dirs]), hint=f"{n.name}_l{li}_W")
        R = n.b.const(np.stack([_gates(p["wh"], mode, H) for p in dirs]), hint=f"{n.name}_l{li}_R")
        B = n.b.const(np.stack([np.concatenate([_gates(p["bi"], mode, H), _gates(p["bh"], mode, H)])
                                for p in dirs]), hint=f"{n.name}_l{li}_B")
        rows = (n.ints([li * D]), n.ints([(li + 1) * D]), n.ints([0]))
        ins = [x, W, R, B, lens, n.op("Slice", state, *rows)]
        if mode == "lstm":
            ins.append(n.op("Slice", cell, *rows))
        outs = n.ops(_ONNX_OP[mode], ins, 3 if mode == "lstm" else 2, **attrs)
        y = outs[0]                                                        # (T, D, N, H)
        x = n.op("Reshape", n.op("Transpose", y, perm=[0, 2, 1, 3]), n.ints([0, 0, -1]))
        hs.append(outs[1])
        if mode == "lstm":
            cs.append(outs[2])
    if not a.state_outputs:
        return [x]
    res = [x, hs[0] if L == 1 else n.op("Concat", *hs, axis=0)]
    if mode == "lstm":
        res.append(cs[0] if L == 1 else n.op("Concat", *cs, axis=0))
    return res


@converter("_rnn_param_concat")
def rnn_param_concat(n):
    return [n.op("Concat", *n.inputs, axis=int(n.attrs.dim) % n.ndim)]
