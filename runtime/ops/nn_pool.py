"""Pooling (max/avg/sum/lp, 1-3 spatial axes, global, valid/full/same conventions), MXNet 1.9.1.

Output sizes follow MXNet's ``PoolingShape`` exactly:
``valid``: ``1 + (n + 2p - k) // s``; ``full``: ``1 + ceil((n + 2p - k) / s)``;
``same`` (1-D in MXNet): ``ceil((n + 2p) / s)``.
Windows follow ``pool.h``: a window starts at ``o*s - p``; max pooling ignores padding (and
windows running past the padded end in ``full`` mode); average pooling divides by the window
clipped to ``[-p, n + p)`` (``count_include_pad``, the default) or by the number of real
elements (``count_include_pad=False``); sum and lp pooling add real elements only.

The kernel pads once (a per-thread buffer in prepared kernels), then reduces separably: one pass
per spatial axis, each a loop over that axis's kernel taps of strided views of the whole batch
(no loops over positions; ``kh + kw`` passes instead of ``kh * kw``).
"""
from __future__ import annotations

import itertools
import math
import threading

import numpy as np

from ..base import ShapeError
from ._nnutil import OptBool, OptEnum, OptInt, pad_spatial
from .attrs import Bool, Enum, Param, Shape
from .registry import OpDef, register

_LAYOUTS = ("NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC")


def _channel_last(attrs) -> bool:
    return attrs.layout is not None and attrs.layout.endswith("C")


def _geometry(attrs, nsp: int):
    kernel = tuple(attrs.kernel)
    if len(kernel) != nsp:
        raise ShapeError(f"Pooling: kernel {kernel} does not fit {nsp} spatial dimension(s)")
    stride = tuple(attrs.stride) if len(attrs.stride) else (1,) * nsp
    pad = tuple(attrs.pad) if len(attrs.pad) else (0,) * nsp
    if attrs.pooling_convention == "same":
        if nsp != 1:
            raise ShapeError("Pooling: the 'same' convention supports 1-D pooling only (as MXNet)")
        given = tuple(attrs.pad) or (0,)
        if any(given[:3]):
            raise ShapeError(f"Pooling: the 'same' pooling convention disables the use of pad parameter (pad={given})")
        if len(given) < 3:
            # MXNet 1.9.1 checks pad[0], pad[1] and pad[2] and fails on a shorter pad, the default included
            raise ShapeError(f"Pooling: with pooling_convention='same' MXNet 1.9.1 reads pad[0..2]: pass pad=(0, 0, 0) "
                             f"(got pad={tuple(attrs.pad)})")
    if len(stride) < nsp or len(pad) < nsp:
        raise ShapeError("Pooling: stride and pad must have as many dimensions as kernel")
    # MXNet reads stride[i] and pad[i] per spatial axis: further entries are ignored
    return kernel, stride[:nsp], pad[:nsp]


def _out_dim(n: int, k: int, s: int, p: int, conv: str) -> int:
    if not n:
        return 0
    if conv != "same" and k > n + 2 * p:
        raise ShapeError(f"Pooling: kernel size ({k}) exceeds input ({n} padded to {n + 2 * p})")
    if conv == "valid":
        return 1 + (n + 2 * p - k) // s
    if conv == "full":
        return 1 + int(math.ceil((n + 2 * p - k) / s))
    return int(math.ceil((n + 2 * p) / s))


def _pool_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or len(d) == 0:
        return list(in_shapes), [None]
    if not 3 <= len(d) <= 5:
        raise ShapeError(f"Pooling: input data should be 3-D, 4-D or 5-D, got shape {tuple(d)}")
    cl = _channel_last(attrs)
    sp = tuple(d[1:-1]) if cl else tuple(d[2:])
    if attrs.global_pool:
        osp = (1,) * len(sp)
    else:
        kernel, stride, pad = _geometry(attrs, len(sp))
        osp = tuple(_out_dim(n, k, s, p, attrs.pooling_convention) for n, k, s, p in zip(sp, kernel, stride, pad))
    out = (d[0],) + osp + (d[-1],) if cl else (d[0], d[1]) + osp
    return list(in_shapes), [out]


def _lowest(dt: np.dtype):
    return np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min


def _root(x, p: int):
    if p == 1:
        return x
    if p == 2:
        return np.sqrt(x, out=x)
    return np.power(x, x.dtype.type(1.0 / p), out=x)


def _pow(x, p: int):
    return x if p == 1 else x ** p


def _global(attrs, x, nsp: int):
    axes = tuple(range(2, 2 + nsp))
    t = attrs.pool_type
    if t == "max":
        return x.max(axis=axes, keepdims=True)
    if t == "avg":
        return x.mean(axis=axes, keepdims=True, dtype=x.dtype)
    if t == "sum":
        return x.sum(axis=axes, keepdims=True, dtype=x.dtype)
    p = attrs.p_value or 1
    return _root(_pow(x, p).sum(axis=axes, keepdims=True, dtype=x.dtype), p)


def _counts(n, k, s, p, o, include_pad: bool):
    start = np.arange(o) * s - p
    if include_pad:
        end = np.minimum(start + k, n + p)
        return end - start
    return np.minimum(start + k, n) - np.maximum(start, 0)


def _plan(attrs, shape, dtype):
    """Everything about one pooling call that depends only on shapes: geometry, padding, divisors."""
    nsp = len(shape) - 2
    kernel, stride, pad = _geometry(attrs, nsp)
    sp = tuple(shape[2:])
    osp = tuple(_out_dim(n, k, s, p, attrs.pooling_convention) for n, k, s, p in zip(sp, kernel, stride, pad))
    after = tuple(max(0, (o - 1) * s + k - n - p) for n, k, s, p, o in zip(sp, kernel, stride, pad, osp))
    cnt = None
    if attrs.pool_type == "avg":
        include = True if attrs.count_include_pad is None else attrs.count_include_pad
        for i, (n, k, s, p, o) in enumerate(zip(sp, kernel, stride, pad, osp)):
            c = _counts(n, k, s, p, o, include).reshape((o,) + (1,) * (nsp - 1 - i))
            cnt = c if cnt is None else cnt * c
        cnt = cnt.astype(dtype)
    fill = _lowest(np.dtype(dtype)) if attrs.pool_type == "max" else 0
    padded = tuple(shape[:2]) + tuple(n + p + a for n, p, a in zip(sp, pad, after))
    return dict(nsp=nsp, kernel=kernel, stride=stride, pad=pad, osp=osp, after=after, cnt=cnt, fill=fill,
                padded=padded)


def _pool_cf(attrs, x, plan=None, buf=None):
    nsp = x.ndim - 2
    if attrs.global_pool:
        return _global(attrs, x, nsp)
    pl = plan or _plan(attrs, x.shape, x.dtype)
    kernel, stride, pad, osp = pl["kernel"], pl["stride"], pl["pad"], pl["osp"]
    t = attrs.pool_type
    lp = (attrs.p_value or 1) if t == "lp" else 1
    src = _pow(x, lp) if t == "lp" else x
    if buf is not None:
        buf[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))] = src
        xp = buf
    else:
        xp = pad_spatial(src, pad, pl["after"], pl["fill"])
    # separable reduction: one strided pass per spatial axis (sum_k taps instead of prod_k taps)
    red = np.maximum if t == "max" else np.add
    r = xp
    for d in range(nsp):
        ax = 2 + d
        acc = None
        for tap in range(kernel[d]):
            idx = [slice(None)] * r.ndim
            idx[ax] = slice(tap, tap + stride[d] * (osp[d] - 1) + 1, stride[d])
            sl = r[tuple(idx)]
            if acc is None:
                acc = sl.copy()
            else:
                red(acc, sl, out=acc)
        r = acc
    out = r
    if t == "avg":
        with np.errstate(divide="ignore", invalid="ignore"):
            out /= pl["cnt"]
    elif t == "lp":
        out = _root(out, lp)
    return out


def _pool_prepare(attrs, in_shapes, in_dtypes):
    """Hoists geometry, average divisors and the padded input buffer (per thread; its border
    keeps the padding value, the interior is overwritten by each call)."""
    shape = in_shapes[0] if in_shapes else None
    if attrs.global_pool or _channel_last(attrs) or shape is None or 0 in shape or len(shape) < 3:
        return lambda x: _pooling(attrs, x)
    dt = np.dtype(in_dtypes[0]) if in_dtypes and in_dtypes[0] is not None else np.dtype(np.float32)
    plan = _plan(attrs, shape, dt)
    need_buf = any(plan["pad"]) or any(plan["after"])
    tls = threading.local()

    def run(x):
        if x.shape != tuple(shape) or x.dtype != dt:
            return _pooling(attrs, x)
        buf = None
        if need_buf:
            buf = getattr(tls, "buf", None)
            if buf is None:
                buf = tls.buf = np.full(plan["padded"], plan["fill"], dtype=dt)
        return _pool_cf(attrs, x, plan, buf)
    return run


def _pooling(attrs, x):
    """Pooling over the spatial axes (max, avg, sum or lp), MXNet's window and padding rules."""
    if _channel_last(attrs):
        return np.ascontiguousarray(np.moveaxis(_pool_cf(attrs, np.moveaxis(x, -1, 1)), 1, -1))
    return _pool_cf(attrs, x)


_POOL_PARAMS = (Param("kernel", Shape, ()), Param("pool_type", Enum("max", "avg", "sum", "lp"), "max"),
                Param("global_pool", Bool, False), Param("cudnn_off", Bool, False),
                Param("pooling_convention", Enum("full", "valid", "same"), "valid"),
                Param("stride", Shape, ()), Param("pad", Shape, ()), Param("p_value", OptInt, None),
                Param("count_include_pad", OptBool, None), Param("layout", OptEnum(*_LAYOUTS), None))
register(OpDef("Pooling", _pooling, params=_POOL_PARAMS, inputs=("data",), infer_shape=_pool_shape,
               prepare=_pool_prepare))


# -- gradients ---------------------------------------------------------------------------------------
from ._grad import internal
from ._nnutil import tap_slices, windows
from .registry import defgrad


def _pool_backward_cf(attrs, x, y, g):
    """Pooling's input gradient (channel first): max sends each output gradient to the first
    maximum of its window (MXNet's unpool_max), avg divides it by the window's count, sum copies it,
    lp scales it by ``(x / y) ** (p - 1)``; padding is cropped away."""
    nsp = x.ndim - 2
    t = attrs.pool_type
    lp = (attrs.p_value or 1) if t == "lp" else 1
    with np.errstate(all="ignore"):
        if attrs.global_pool:
            if t == "max":
                return (g * (x == y)).astype(x.dtype, copy=False)
            if t == "avg":
                return np.broadcast_to(g / x.dtype.type(np.prod(x.shape[2:])), x.shape).astype(x.dtype)
            if t == "sum" or lp == 1:
                return np.broadcast_to(g, x.shape).astype(x.dtype)
            return (g * np.power(x / y, lp - 1)).astype(x.dtype, copy=False)
        pl = _plan(attrs, x.shape, x.dtype)
        kernel, stride, pad, osp, after = pl["kernel"], pl["stride"], pl["pad"], pl["osp"], pl["after"]
        buf = np.zeros(pl["padded"], dtype=x.dtype)
        if t == "max" and not np.isnan(y).any():
            # the first tap (row-major) of each window equal to its maximum, the forward's output:
            # one strided pass per tap, no window copy, no scattered add
            xp = pad_spatial(x, pad, after, pl["fill"])
            y = y.astype(x.dtype, copy=False)
            found = np.zeros(y.shape, dtype=bool)
            hit = np.empty(y.shape, dtype=bool)
            part = np.empty(g.shape, dtype=np.result_type(g.dtype, buf.dtype))
            for tap in itertools.product(*(range(k) for k in kernel)):
                sl = tap_slices(tap, stride, osp)
                np.equal(xp[sl], y, out=hit)
                np.greater(hit, found, out=hit)         # a maximum, and the window's first
                found |= hit
                np.multiply(g, hit, out=part)
                buf[sl] += part
        elif t == "max":
            xp = pad_spatial(x, pad, after, pl["fill"])
            win = windows(xp, kernel, stride, (1,) * nsp, osp)
            K = int(np.prod(kernel))
            arg = win.reshape(win.shape[:2 + nsp] + (K,)).argmax(axis=-1)      # (N, C, *osp)
            taps = np.unravel_index(arg, kernel)
            grids = np.meshgrid(*[np.arange(o) for o in osp], indexing="ij")
            pos = [grids[d] * stride[d] + taps[d] for d in range(nsp)]
            flat = np.ravel_multi_index(pos, buf.shape[2:])                     # (N, C, *osp)
            view = buf.reshape(buf.shape[0], buf.shape[1], -1)
            n_idx = np.arange(x.shape[0]).reshape((-1,) + (1,) * (nsp + 1))
            c_idx = np.arange(x.shape[1]).reshape((1, -1) + (1,) * nsp)
            np.add.at(view, (n_idx, c_idx, flat), g)
        else:
            d = g / pl["cnt"] if t == "avg" else g
            if t == "lp" and lp != 1:
                d = g * np.power(y, 1 - lp)
                xp = pad_spatial(x, pad, after, 0)
            for tap in itertools.product(*(range(k) for k in kernel)):
                sl = tap_slices(tap, stride, osp)
                buf[sl] += d * np.power(xp[sl], lp - 1) if t == "lp" and lp != 1 else d
        return np.ascontiguousarray(buf[(Ellipsis,) + tuple(slice(p, p + n) for p, n in zip(pad, x.shape[2:]))])


def _backward_pooling(attrs, g, x, y):
    """Pooling's input gradient, as MXNet's ``_backward_Pooling``."""
    if _channel_last(attrs):
        dx = _pool_backward_cf(attrs, np.moveaxis(x, -1, 1), np.moveaxis(y, -1, 1), np.moveaxis(g, -1, 1))
        return np.ascontiguousarray(np.moveaxis(dx, 1, -1))
    return _pool_backward_cf(attrs, x, y, g)


register(OpDef("_backward_Pooling", _backward_pooling, params=_POOL_PARAMS, inputs=("ograd", "data", "output"),
               infer_shape=lambda a, s: (list(s), [s[1]]),
               infer_type=lambda a, d: [d[1] if d[1] is not None else np.dtype(np.float32)]))


@defgrad("Pooling")
def _pooling_grad(F, attrs, inputs, outputs, out_grads):
    kw = {k: v for k, v in attrs.as_dict().items() if not k.startswith("__")}
    return [internal(F, "_backward_Pooling")(out_grads[0], inputs[0], outputs[0], **kw)]
