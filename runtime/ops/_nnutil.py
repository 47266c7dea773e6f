"""Helpers shared by the neural-network operator families (``nn_*.py``).

Shapes follow MXNet 1.x conventions: ``None`` is an unknown shape, a 0 dimension is an unknown
dimension (Gluon's deferred initialization, e.g. a ``Dense(256)`` weight of shape ``(256, 0)``).
Shape rules here complete such partially known shapes from what the other inputs and the
attributes say, the way MXNet's ``FInferShape`` functions do.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..base import ShapeError
from ._util import dim_known
from .attrs import AttrError, AttrType, format_value, parse_literal

__all__ = ["c_round", "is_training", "merge_shape", "spatial_params", "conv_out_dim", "windows",
           "pad_spatial", "first_dtype", "OptBool", "OptInt", "OptFloat", "OptEnum", "channel_axis"]


def c_round(v: Any) -> Any:
    """C's ``round()`` (MXNet's kernels use it for ROI coordinates): halves away from zero."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


def is_training() -> bool:
    """Does the op run in training mode (``autograd.is_training()``)? Imported when called: ops/ sits
    below the frontend and must not import it at load time."""
    from .. import autograd
    return autograd.is_training()


def merge_shape(old: Any, new: Sequence[int], what: str) -> tuple:
    """``new`` with its unknown dimensions (``_util.dim_known``) filled from ``old``; raises if two known
    dimensions disagree."""
    new = tuple(int(d) for d in new)
    if old is None or len(old) == 0:
        return new
    old = tuple(int(d) for d in old)
    if len(old) != len(new):
        raise ShapeError(f"{what}: expected shape {new}, got {old}")
    out = []
    for a, b in zip(old, new):
        ka, kb = dim_known(a), dim_known(b)
        if ka and kb and a != b:
            raise ShapeError(f"{what}: expected shape {new}, got {old}")
        out.append(a if ka else b)
    return tuple(out)


def spatial_params(attrs: Any, nsp: int, *, dilate: bool = True) -> tuple:
    """(kernel, stride, dilate, pad) as tuples of length ``nsp`` with MXNet's defaults (1, 1, 0)."""
    kernel = tuple(attrs.kernel)
    def get(name: str, dflt: int) -> tuple:
        v = tuple(getattr(attrs, name, ()) or ())
        if len(v) == 0:
            return (dflt,) * nsp
        if len(v) != nsp:
            raise ShapeError(f"{name} {v} must have {nsp} dimension(s) like kernel {kernel}")
        return v
    stride = get("stride", 1)
    dil = get("dilate", 1) if dilate else (1,) * nsp
    pad = get("pad", 0)
    return kernel, stride, dil, pad


def conv_out_dim(size: int, k: int, s: int, d: int, p: int) -> int:
    """MXNet's convolution output size; 0 (unknown) stays 0."""
    if not size:
        return 0
    dk = d * (k - 1) + 1
    if size + 2 * p < dk:
        raise ShapeError(f"kernel size {k} (dilated {dk}) exceeds the input size {size} padded by {p}")
    return (size + 2 * p - dk) // s + 1


def pad_spatial(x: np.ndarray, before: Sequence[int], after: Sequence[int], value: float = 0.0) -> np.ndarray:
    """Pads the trailing ``len(before)`` axes (one allocation; returns ``x`` itself when nothing to pad)."""
    nsp = len(before)
    if not any(before) and not any(after):
        return x
    shape = x.shape[:-nsp] + tuple(n + b + a for n, b, a in zip(x.shape[-nsp:], before, after))
    out = np.full(shape, value, dtype=x.dtype) if value != 0 else np.zeros(shape, dtype=x.dtype)
    out[(Ellipsis,) + tuple(slice(b, b + n) for b, n in zip(before, x.shape[-nsp:]))] = x
    return out


def tap_slices(offsets: Sequence[int], stride: Sequence[int], out: Sequence[int]) -> tuple:
    """Index selecting, for one kernel tap at ``offsets``, the input elements of every output position."""
    return (Ellipsis,) + tuple(slice(o, o + s * (n - 1) + 1, s) for o, s, n in zip(offsets, stride, out))


def windows(xp: np.ndarray, kernel: Sequence[int], stride: Sequence[int], dilate: Sequence[int],
            out: Sequence[int]) -> np.ndarray:
    """Strided view ``(..., *out, *kernel)`` of the trailing axes of ``xp`` (no copy)."""
    nsp = len(kernel)
    st = xp.strides[-nsp:]
    shape = xp.shape[:-nsp] + tuple(out) + tuple(kernel)
    strides = xp.strides[:-nsp] + tuple(a * s for a, s in zip(st, stride)) + tuple(a * d for a, d in zip(st, dilate))
    return np.lib.stride_tricks.as_strided(xp, shape=shape, strides=strides, writeable=False)


def first_dtype(attrs: Any, in_dtypes: list) -> list:
    d = in_dtypes[0] if in_dtypes and in_dtypes[0] is not None else np.dtype(np.float32)
    return [np.dtype(d)]


def channel_axis(layout: str | None) -> int:
    return 1 if layout is None or layout.index("C") == 1 else -1


# -- optional attribute types (dmlc::optional<...>: the value may be None) --------------------------
def _opt(inner):
    def coerce(v: Any) -> Any:
        if isinstance(v, str):
            v = parse_literal(v)
        if v is None:
            return None
        return inner(v)
    return coerce


def _b(v: Any) -> bool:
    if isinstance(v, (bool, np.bool_, int, np.integer)):
        return bool(v)
    raise AttrError(f"expected a boolean, got {v!r}")


def _i(v: Any) -> int:
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return int(v)
    raise AttrError(f"expected an integer, got {v!r}")


def _f(v: Any) -> float:
    if isinstance(v, (int, float, np.integer, np.floating)):
        return float(v)
    raise AttrError(f"expected a number, got {v!r}")


OptBool = AttrType("bool-or-None", _opt(_b), format_value)
OptInt = AttrType("int-or-None", _opt(_i), format_value)
OptFloat = AttrType("float-or-None", _opt(_f), format_value)


def OptEnum(*choices: str) -> AttrType:
    def coerce(v: Any) -> Any:
        if v is None or (isinstance(v, str) and v.strip() == "None"):
            return None
        if not isinstance(v, str) or v not in choices:
            raise AttrError(f"expected one of {', '.join(choices)} or None; got {v!r}")
        return v
    return AttrType("enum-or-None(" + "|".join(choices) + ")", coerce)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul`` through BLAS: half-precision operands are multiplied in float32 (numpy has no
    half-precision BLAS) and the result is cast back, as MXNet accumulates fp16 in fp32."""
    if a.dtype == np.float16 or b.dtype == np.float16:
        out = np.matmul(a.astype(np.float32), b.astype(np.float32))
        return out.astype(np.float16)
    return np.matmul(a, b)
