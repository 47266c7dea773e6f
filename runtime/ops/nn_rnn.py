"""The fused recurrent operator ``RNN`` (rnn_relu, rnn_tanh, lstm, gru; layers, bidirectional,
LSTM projection and state clipping) and ``_rnn_param_concat``, with MXNet 1.9.1 semantics.

Parameters come as one flat vector in MXNet's (cuDNN's) layout: every weight first (per layer,
per direction: ``i2h`` ``(G*H, I)``, ``h2h`` ``(G*H, H or P)``, with a projection also ``h2r``
``(P, H)``), then every bias (per layer, per direction: ``i2h`` ``(G*H,)``, ``h2h`` ``(G*H,)``).
Gate order: LSTM ``i, f, g, o``; GRU ``r, z, n`` with ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``.

Data is ``(T, N, I)``; states are ``(layers * directions, N, H)``. The input projection of every
time step is one matmul per layer and direction; the recurrence itself is a loop over time steps
(inherently sequential), each step one matmul for the whole batch. Dropout between layers
applies in training mode only.
"""
from __future__ import annotations

import weakref

import numpy as np

from ..base import ShapeError
from ._grad import internal
from ._util import dim_known
from ._nnutil import OptFloat, OptInt, is_training, merge_shape
from .attrs import Bool, Enum, Float, Int, Param
from .registry import OpDef, defgrad, get_op, register

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def _rnn_inputs(attrs):
    names = ["data", "parameters", "state"]
    if attrs.mode == "lstm":
        names.append("state_cell")
    if attrs.use_sequence_length:
        names.append("sequence_length")
    return tuple(names)


def _rnn_nout(attrs) -> int:
    if not attrs.state_outputs:
        return 1
    return 3 if attrs.mode == "lstm" else 2


def _param_size(attrs, input_size: int) -> int:
    G, H, L = _GATES[attrs.mode], attrs.state_size, attrs.num_layers
    D = 2 if attrs.bidirectional else 1
    P = attrs.projection_size
    R = P if P else H
    size = 0
    ni = input_size
    for _ in range(L):
        per = G * H * ni + G * H * R + 2 * G * H + (P * H if P else 0)
        size += D * per
        ni = D * R
    return size


def _rnn_shape(attrs, in_shapes):
    ins = list(in_shapes)
    d = ins[0]
    L, H = attrs.num_layers, attrs.state_size
    D = 2 if attrs.bidirectional else 1
    R = attrs.projection_size or H
    n_out = _rnn_nout(attrs)
    if d is None or len(d) == 0:
        return ins, [None] * n_out
    if len(d) != 3:
        raise ShapeError(f"RNN needs data of shape (seq_len, batch, input_size), got {tuple(d)}")
    T, N, I = d
    if I:
        ins[1] = merge_shape(ins[1], (_param_size(attrs, I),), "RNN parameters")
    ins[2] = merge_shape(ins[2], (L * D, N, R), "RNN state")
    k = 3
    if attrs.mode == "lstm":
        ins[3] = merge_shape(ins[3], (L * D, N, H), "RNN state_cell")
        k = 4
    if attrs.use_sequence_length:
        ins[k] = merge_shape(ins[k], (N,), "RNN sequence_length")
    outs = [(T, N, D * R)]
    if attrs.state_outputs:
        outs.append((L * D, N, R))
        if attrs.mode == "lstm":
            outs.append((L * D, N, H))
    return ins, outs


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1)


def _unpack(attrs, params, input_size):
    """Per layer, per direction: dict of weight/bias views into the flat parameter vector."""
    G, H, L = _GATES[attrs.mode], attrs.state_size, attrs.num_layers
    D = 2 if attrs.bidirectional else 1
    P = attrs.projection_size
    R = P if P else H
    layers = [[{} for _ in range(D)] for _ in range(L)]
    off = 0

    def take(shape):
        nonlocal off
        n = int(np.prod(shape))
        v = params[off:off + n].reshape(shape)
        off += n
        return v
    ni = input_size
    for li in range(L):
        for di in range(D):
            layers[li][di]["wi"] = take((G * H, ni))
            layers[li][di]["wh"] = take((G * H, R))
            if P:
                layers[li][di]["wr"] = take((P, H))
        ni = D * R
    for li in range(L):
        for di in range(D):
            layers[li][di]["bi"] = take((G * H,))
            layers[li][di]["bh"] = take((G * H,))
    if off != params.size:
        raise ShapeError(f"RNN: parameter vector has {params.size} values, the configuration needs {off}")
    return layers


def _run_direction(attrs, x, p, h0, c0, lengths, reverse):
    """One layer, one direction over the whole sequence. x: (T, N, I). Returns (out, hT, cT)."""
    mode = attrs.mode
    T, N, _ = x.shape
    H = attrs.state_size
    dt = x.dtype
    xi = (x.reshape(T * N, -1) @ p["wi"].T).reshape(T, N, -1)
    xi += p["bi"]
    wh_t = p["wh"].T
    bh = p["bh"]
    h, c = h0, c0
    R = h0.shape[-1]
    out = np.zeros((T, N, R), dtype=dt)
    if lengths is None:
        order = range(T - 1, -1, -1) if reverse else range(T)
    else:
        order = range(T)
    for step in order:
        if lengths is not None and reverse:
            # reversed within each sequence's own length: position len-1-step (invalid when < 0)
            t_idx = lengths - 1 - step
            valid = t_idx >= 0
            gx = xi[np.maximum(t_idx, 0), np.arange(N)]
        else:
            t_idx = None
            valid = None if lengths is None else step < lengths
            gx = xi[step]
        gh = h @ wh_t + bh
        if mode in ("rnn_relu", "rnn_tanh"):
            a = gx + gh
            hn = np.maximum(a, 0) if mode == "rnn_relu" else np.tanh(a)
            cn = None
        elif mode == "lstm":
            a = gx + gh
            i, f, g, o = (a[:, k * H:(k + 1) * H] for k in range(4))
            cn = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
            if attrs.lstm_state_clip_min is not None or attrs.lstm_state_clip_max is not None:
                lo = -np.inf if attrs.lstm_state_clip_min is None else attrs.lstm_state_clip_min
                hi = np.inf if attrs.lstm_state_clip_max is None else attrs.lstm_state_clip_max
                cn = np.clip(cn, lo, hi)
                if attrs.lstm_state_clip_nan:
                    cn = np.where(np.isnan(cn), 0, cn)
            hn = _sigmoid(o) * np.tanh(cn)
            if "wr" in p:
                hn = hn @ p["wr"].T
        else:  # gru
            r = _sigmoid(gx[:, :H] + gh[:, :H])
            z = _sigmoid(gx[:, H:2 * H] + gh[:, H:2 * H])
            n = np.tanh(gx[:, 2 * H:] + r * gh[:, 2 * H:])
            hn = (1 - z) * n + z * h
            cn = None
        hn = hn.astype(dt, copy=False)
        if valid is None:
            h = hn
            c = cn
            out[step] = h
        else:
            m = valid[:, None]
            h = np.where(m, hn, h)
            if cn is not None:
                c = np.where(m, cn.astype(dt, copy=False), c)
            if t_idx is not None:
                rows = np.nonzero(valid)[0]
                out[t_idx[rows], rows] = hn[rows]
            else:
                out[step] = np.where(m, hn, 0)
    return out, h, c


def _rnn(attrs, data, params, state, *rest):
    """Fused multi-layer RNN/LSTM/GRU over a (seq_len, batch, input) sequence."""
    rest = list(rest)
    cell = rest.pop(0) if attrs.mode == "lstm" else None
    seq_len = rest.pop(0) if attrs.use_sequence_length else None
    lengths = None if seq_len is None else np.clip(seq_len.astype(np.int64), 0, data.shape[0])
    D = 2 if attrs.bidirectional else 1
    layers = _unpack(attrs, params.astype(data.dtype, copy=False).reshape(-1), data.shape[2])
    x = data
    hs, cs, masks = [], [], []
    train = is_training()
    for li, dirs in enumerate(layers):
        outs = []
        for di, p in enumerate(dirs):
            k = li * D + di
            o, h, c = _run_direction(attrs, x, p, state[k], None if cell is None else cell[k], lengths, di == 1)
            outs.append(o)
            hs.append(h)
            cs.append(c)
        x = outs[0] if D == 1 else np.concatenate(outs, axis=2)
        if train and attrs.p > 0 and li < len(layers) - 1:
            keep = np.random.random_sample(x.shape) >= attrs.p
            masks.append(keep)
            x = (x * keep / x.dtype.type(1 - attrs.p)).astype(data.dtype, copy=False)
    if masks:
        _remember_masks(x, masks)
    if not attrs.state_outputs:
        return x
    res = [x, np.stack(hs).astype(data.dtype, copy=False)]
    if attrs.mode == "lstm":
        res.append(np.stack(cs).astype(data.dtype, copy=False))
    return tuple(res)


# id(output) -> (weak reference to the output, the dropout masks between its layers): what the
# backward of a training-mode call with dropout multiplies by (MXNet keeps them in its reserved
# workspace); an entry lives as long as the output array
_MASKS: dict = {}


def _remember_masks(out: np.ndarray, masks: list) -> None:
    key = id(out)
    _MASKS[key] = (weakref.ref(out), masks)
    weakref.finalize(out, _MASKS.pop, key, None)


def _masks_of(out: np.ndarray) -> list | None:
    saved = _MASKS.get(id(out))
    return saved[1] if saved is not None and saved[0]() is out else None


register(OpDef(
    "RNN", _rnn,
    params=(Param("state_size", Int), Param("num_layers", Int), Param("bidirectional", Bool, False),
            Param("mode", Enum("rnn_relu", "rnn_tanh", "lstm", "gru")), Param("p", Float, 0.0),
            Param("state_outputs", Bool, False), Param("projection_size", OptInt, None),
            Param("lstm_state_clip_min", OptFloat, None), Param("lstm_state_clip_max", OptFloat, None),
            Param("lstm_state_clip_nan", Bool, False), Param("use_sequence_length", Bool, False)),
    inputs=_rnn_inputs, num_outputs=_rnn_nout, infer_shape=_rnn_shape, mode_dependent=True,
))


# -- _rnn_param_concat -----------------------------------------------------------------------------
def _rpc_shape(attrs, in_shapes):
    """Concat's rule (the reverse rule is :func:`_rpc_shape_backward`)."""
    ins = list(in_shapes)
    if any(s is None or len(s) == 0 for s in ins):
        return ins, [None]
    dim = attrs.dim
    nd_ = len(ins[0])
    ax = dim % nd_
    total = 0
    for s in ins:
        if not dim_known(s[ax]):   # unknown: 0, or -1 with NumPy shape semantics (np-mode layers)
            return ins, [tuple(s[ax] if i == ax else n for i, n in enumerate(ins[0]))]
        total += s[ax]
    out = tuple(total if i == ax else n for i, n in enumerate(ins[0]))
    return ins, [out]


def _rpc_shape_backward(attrs, in_shapes, out_shapes):
    """MXNet's RNNParamConcatShape reverse rule: once the RNN op has fixed the concatenation's size,
    the one or two inputs of unknown size along ``dim`` (the input-to-hidden weights of a layer
    whose input size is deferred, both directions) share what the known inputs leave."""
    ins = list(in_shapes)
    out = out_shapes[0]
    if out is None or not len(out) or any(s is None or not len(s) for s in ins):
        return ins
    ax = attrs.dim % len(out)
    if not dim_known(out[ax]):
        return ins
    unknown = [i for i, s in enumerate(ins) if not dim_known(s[ax])]
    if not unknown:
        return ins
    residual = out[ax] - sum(s[ax] for s in ins if dim_known(s[ax]))
    if residual < 0:
        raise ShapeError(f"_rnn_param_concat: inputs already exceed the output size {out[ax]}")
    if len(unknown) > 2:
        raise ShapeError(f"_rnn_param_concat: expecting 1 or 2 inputs that need shape inference, got {len(unknown)}")
    for i in unknown:
        ins[i] = tuple(residual // len(unknown) if j == ax else n for j, n in enumerate(ins[i]))
    return ins


def _rnn_param_concat(attrs, *arrays):
    """Concatenation of RNN parameter pieces along ``dim`` (what Gluon's fused RNN layers build)."""
    return np.concatenate(arrays, axis=attrs.dim)


register(OpDef("_rnn_param_concat", _rnn_param_concat,
               params=(Param("num_args", Int), Param("dim", Int, 1)),
               variadic="num_args", infer_shape=_rpc_shape, infer_shape_backward=_rpc_shape_backward))


# -- gradients (MXNet 1.9.1: src/operator/rnn.cc, RNNGrad{"_backward_RNN"}: back-propagation through time
# in the fused kernel; _rnn_param_concat is Concat's gradient) ------------------------------------------------
def _direction_forward(attrs, x, p, h0, c0, reverse):
    """``_run_direction`` (no sequence lengths) keeping what back-propagation needs per step."""
    mode, H = attrs.mode, attrs.state_size
    T, N, _ = x.shape
    xi = (x.reshape(T * N, -1) @ p["wi"].T).reshape(T, N, -1) + p["bi"]
    h, c = h0, c0
    steps = list(range(T - 1, -1, -1) if reverse else range(T))
    cache = []
    for t in steps:
        gh = h @ p["wh"].T + p["bh"]
        a = xi[t] + gh
        if mode in ("rnn_relu", "rnn_tanh"):
            hn = np.maximum(a, 0) if mode == "rnn_relu" else np.tanh(a)
            cache.append((t, h, None, a, hn, None))
            h = hn
        elif mode == "lstm":
            i, f, o = (_sigmoid(a[:, k * H:(k + 1) * H]) for k in (0, 1, 3))
            g = np.tanh(a[:, 2 * H:3 * H])
            cn = f * c + i * g
            tc = np.tanh(cn)
            cache.append((t, h, c, (i, f, g, o), tc, None))
            h, c = o * tc, cn
        else:
            r = _sigmoid(a[:, :H])
            z = _sigmoid(a[:, H:2 * H])
            n = np.tanh(xi[t][:, 2 * H:] + r * gh[:, 2 * H:])
            cache.append((t, h, None, (r, z, n), None, gh[:, 2 * H:]))
            h = (1 - z) * n + z * h
    return cache


def _direction_backward(attrs, x, p, cache, dout, dh, dc):
    """Back-propagation through time for one layer and direction: (dx, grads of p, dh0, dc0)."""
    mode = attrs.mode
    T, N, _ = x.shape
    dgx = np.zeros((T, N, p["wi"].shape[0]), x.dtype)
    dwh = np.zeros_like(p["wh"])
    dbh = np.zeros_like(p["bh"])
    for t, h_prev, c_prev, acts, extra, ghn in reversed(cache):
        dh = dh + dout[t]
        if mode in ("rnn_relu", "rnn_tanh"):
            da = dh * (acts > 0) if mode == "rnn_relu" else dh * (1 - extra * extra)
            dgh = da
        elif mode == "lstm":
            i, f, g, o = acts
            tc = extra
            dct = dc + dh * o * (1 - tc * tc)
            da = np.concatenate([dct * g * i * (1 - i), dct * c_prev * f * (1 - f), dct * i * (1 - g * g),
                                 dh * tc * o * (1 - o)], axis=1)
            dgh = da
            dc = dct * f
        else:
            r, z, n = acts
            dn = dh * (1 - z) * (1 - n * n)
            da_r = dn * ghn * r * (1 - r)
            da_z = dh * (h_prev - n) * z * (1 - z)
            da = np.concatenate([da_r, da_z, dn], axis=1)
            dgh = np.concatenate([da_r, da_z, dn * r], axis=1)
        dgx[t] = da
        dwh += dgh.T @ h_prev
        dbh += dgh.sum(axis=0)
        dh_prev = dgh @ p["wh"]
        if mode == "gru":
            dh_prev = dh_prev + dh * acts[1]
        dh = dh_prev
    flat = dgx.reshape(T * N, -1)
    grads = {"wi": flat.T @ x.reshape(T * N, -1), "wh": dwh, "bi": flat.sum(axis=0), "bh": dbh}
    return (flat @ p["wi"]).reshape(T, N, -1), grads, dh, dc


def _backward_rnn(attrs, *arrays):
    """``_backward_RNN``: gradients of data, parameters, state (and state_cell), computed in the
    data's precision (float16 in float32), as MXNet's CPU kernel computes in its ``DType``."""
    lstm = attrs.mode == "lstm"
    if attrs.projection_size or attrs.lstm_state_clip_min is not None or attrs.lstm_state_clip_max is not None:
        raise ShapeError("RNN backward: projection_size and LSTM state clipping are cuDNN-only in MXNet 1.9.1")
    if attrs.use_sequence_length:
        raise ShapeError("RNN backward: use_sequence_length is cuDNN-only in MXNet 1.9.1")
    arrays = list(arrays)
    masks = None
    if attrs.p > 0 and attrs.is_train:   # the forward drew dropout masks between layers: the same ones
        out = arrays.pop()
        masks = _masks_of(out)
        if masks is None:
            raise ShapeError("RNN backward: the dropout masks of this training-mode forward are not known "
                             "(its output array was copied before the backward)")
    if lstm:
        og, og_h, og_c, data, params, state, cell = arrays
    else:
        og, og_h, data, params, state = arrays
        og_c, cell = None, None
    acc = np.float64 if data.dtype == np.float64 else np.float32   # the precision inside
    D = 2 if attrs.bidirectional else 1
    layers = _unpack(attrs, params.astype(acc, copy=False).reshape(-1), data.shape[2])
    x = data.astype(acc, copy=False)
    inputs, caches = [], []
    for li, dirs in enumerate(layers):
        outs, layer_cache = [], []
        for di, p in enumerate(dirs):
            k = li * D + di
            cache = _direction_forward(attrs, x, p, state[k].astype(acc), None if cell is None else cell[k].astype(acc),
                                       di == 1)
            layer_cache.append(cache)
            out = np.zeros(x.shape[:2] + (attrs.state_size,), acc)
            # the output of step t is the state after it: the next step's h_prev, or the last state
            order = [c[0] for c in cache]
            hs = [c[1] for c in cache[1:]] + [_final_h(attrs, cache[-1])]
            out[order] = np.stack(hs)
            outs.append(out)
        inputs.append(x)
        caches.append(layer_cache)
        x = outs[0] if D == 1 else np.concatenate(outs, axis=2)
        if masks is not None and li < len(layers) - 1:
            x = (x * (masks[li] / (1 - attrs.p))).astype(acc, copy=False)
    dx = og.astype(acc)
    dstate = np.zeros(state.shape, acc)
    dcell = None if cell is None else np.zeros(cell.shape, acc)
    grads = [[None] * D for _ in layers]
    for li in range(len(layers) - 1, -1, -1):
        H = attrs.state_size
        dx_layer = np.zeros(inputs[li].shape, acc)
        for di in range(D):
            k = li * D + di
            dh = og_h[k].astype(acc)
            dc = og_c[k].astype(acc) if lstm else None
            dxi, g, dh0, dc0 = _direction_backward(attrs, inputs[li], layers[li][di], caches[li][di],
                                                   dx[:, :, di * H:(di + 1) * H], dh, dc)
            dx_layer += dxi
            grads[li][di] = g
            dstate[k] = dh0
            if lstm:
                dcell[k] = dc0
        dx = dx_layer if masks is None or li == 0 else \
            (dx_layer * (masks[li - 1] / (1 - attrs.p))).astype(acc, copy=False)
    flat = _pack(grads, D, params.dtype)
    res = [dx.astype(data.dtype), flat, dstate.astype(state.dtype)]
    if lstm:
        res.append(dcell.astype(cell.dtype))
    return tuple(res)


def _final_h(attrs, step):
    """The state after the last step of a direction, from its cache entry."""
    _, h_prev, _, acts, extra, _ = step
    if attrs.mode in ("rnn_relu", "rnn_tanh"):
        return extra
    if attrs.mode == "lstm":
        return acts[3] * extra
    _, z, n = acts
    return (1 - z) * n + z * h_prev


def _pack(grads, D, dtype):
    """Per-layer, per-direction gradients in MXNet's flat layout (all weights, then all biases), in
    ``dtype``."""
    pieces = []
    for li in range(len(grads)):
        for di in range(D):
            pieces += [grads[li][di]["wi"].reshape(-1), grads[li][di]["wh"].reshape(-1)]
    for li in range(len(grads)):
        for di in range(D):
            pieces += [grads[li][di]["bi"], grads[li][di]["bh"]]
    return np.concatenate(pieces).astype(dtype, copy=False)   # (concatenate's dtype= needs numpy 1.20)


def _backward_rnn_inputs(attrs):
    out = ("output",) if attrs.p > 0 and attrs.is_train else ()   # whose dropout masks the forward drew
    if attrs.mode == "lstm":
        return ("ograd", "ograd_state", "ograd_state_cell", "data", "parameters", "state", "state_cell") + out
    return ("ograd", "ograd_state", "data", "parameters", "state") + out


def _backward_rnn_shape(attrs, in_shapes):
    k = 3 if attrs.mode == "lstm" else 2
    return list(in_shapes), list(in_shapes[k:k + (4 if attrs.mode == "lstm" else 3)])


def _backward_rnn_type(attrs, in_dtypes):
    k = 3 if attrs.mode == "lstm" else 2
    return [d if d is not None else np.float32 for d in in_dtypes[k:k + (4 if attrs.mode == "lstm" else 3)]]


register(OpDef("_backward_RNN", _backward_rnn, params=get_op("RNN").params + (Param("is_train", Bool, True),),
               inputs=_backward_rnn_inputs,
               num_outputs=lambda a: 4 if a.mode == "lstm" else 3, infer_shape=_backward_rnn_shape,
               infer_type=_backward_rnn_type, mode_dependent=True,
               doc="RNN backward: back-propagation through time of the fused RNN/LSTM/GRU kernel."))


@defgrad("RNN")
def _rnn_grad(F, attrs, inputs, outputs, out_grads):
    lstm = attrs.mode == "lstm"
    state = inputs[2]
    og_h = out_grads[1] if attrs.state_outputs else F.zeros_like(state)
    args = [out_grads[0], og_h]
    if lstm:
        args.append(out_grads[2] if attrs.state_outputs else F.zeros_like(inputs[3]))
    args += list(inputs[:4 if lstm else 3])
    is_train = bool(attrs.get("__is_train__", True))
    if attrs.p > 0 and is_train:
        args.append(outputs[0])   # its dropout masks
    kw = {k: v for k, v in attrs.as_dict().items() if not k.startswith("__")}
    g = internal(F, "_backward_RNN")(*args, is_train=is_train, **kw)
    n = 4 if lstm else 3
    grads = [g[i] for i in range(n)]
    return grads + [None] * (len(inputs) - n)


def _backward_param_concat(attrs, og, *xs):
    """Concat's backward: the output gradient cut back into each input's extent along ``dim``."""
    ax = attrs.dim % og.ndim
    bounds = np.cumsum([0] + [x.shape[ax] for x in xs])
    return tuple(np.take(og, np.arange(b, e), axis=ax).astype(x.dtype, copy=False)
                 for x, b, e in zip(xs, bounds[:-1], bounds[1:]))


register(OpDef("_backward_rnn_param_concat", _backward_param_concat,
               params=(Param("num_args", Int), Param("dim", Int, 1)),
               inputs=lambda a: ["ograd"] + [f"arg{i}" for i in range(a.num_args)],
               num_outputs=lambda a: a.num_args,
               infer_shape=lambda a, ss: (list(ss), list(ss[1:])),
               infer_type=lambda a, ds: [d if d is not None else np.float32 for d in ds[1:]],
               doc="_rnn_param_concat backward: the gradient cut back into its pieces."))


@defgrad("_rnn_param_concat")
def _rnn_param_concat_grad(F, attrs, inputs, outputs, out_grads):
    n = len(inputs)
    g = internal(F, "_backward_rnn_param_concat")(out_grads[0], *inputs, num_args=n, dim=attrs.dim)
    return [g[i] for i in range(n)] if n > 1 else [g[0] if isinstance(g, (list, tuple)) else g]
