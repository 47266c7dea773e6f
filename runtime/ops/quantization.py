"""INT8 quantization operators: ``_contrib_quantize``, ``_contrib_quantize_v2``,
``_contrib_dequantize``, ``_contrib_requantize``, with the semantics of MXNet 1.9.1's CPU build
(the pip wheel dispatches all four to oneDNN reorders: ``src/operator/quantization/mkldnn/``).

A oneDNN reorder multiplies by one float32 scale, rounds half to even and saturates to the
destination type. The scales are MXNet's, quirks included:

- ``quantize`` (min/max given as arrays): int8 uses ``127 / max(|min|, |max|)`` and returns the
  symmetric range ``-r, r``; uint8 uses ``255 / max(|min|, |max|)`` and passes min/max through.
- ``quantize_v2`` (calibrated ``min_calib_range``/``max_calib_range``, else the data's min/max):
  the quantized range is 127.5 (int8) or 255.5 (uint8), so the extreme value rounds to 128 and
  saturates to 127; ``out_type='auto'`` is uint8 when the calibrated minimum is >= 0. int8/uint8
  input is copied byte for byte into the output type (uint8 data with ``out_type='int8'`` wraps)
  with the calibrated (or the full 127.5 / 255.5) range.
- ``dequantize``: ``x * r / 127.5`` (int8) or ``x * r / 255.5`` (uint8), r = max(|min|, |max|).
- ``requantize`` (int32 -> int8/uint8): ``x * (max(|min|,|max|) / (2**31 - 1)) * (q / r)`` with
  r the calibrated range (or, uncalibrated, ``int(max|x|) * max(|min|,|max|) / (2**31 - 1)``) and
  q 127 (int8) or 255 (uint8); the output range is ``-r, r`` or ``0, r``.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from .attrs import Enum, FloatOrNone, Param
from ._nnutil import merge_shape
from .registry import OpDef, register

_F = np.float32
_INT8_RANGE = _F(127.5)
_UINT8_RANGE = _F(255.5)
_INT32_RANGE = _F(2 ** 31 - 1)


def _reorder(x: np.ndarray, scale, dtype) -> np.ndarray:
    """oneDNN's scaled reorder: float32 product, round half to even, saturate."""
    info = np.iinfo(dtype)
    v = np.rint(x.astype(_F) * _F(scale))
    return np.clip(v, info.min, info.max).astype(dtype)


def _scalar(a: np.ndarray, what: str) -> _F:
    if a.size < 1:
        raise ShapeError(f"quantization: {what} must hold one value")
    return _F(a.reshape(-1)[0])


def _max_abs(a, b) -> _F:
    return _F(max(abs(_F(a)), abs(_F(b))))


def _range_outputs(lo, hi):
    return np.array([lo], dtype=_F), np.array([hi], dtype=_F)


def _float_input(name: str, x: np.ndarray) -> None:
    if x.dtype != np.float32:
        raise ShapeError(f"{name}: expects float32 data, got {x.dtype.name}")


# -- quantize -------------------------------------------------------------------------------------------
def _quantize(attrs, data, min_range, max_range):
    """_contrib_quantize: float32 -> int8/uint8 over the given range (oneDNN reorder)."""
    _float_input("quantize", data)
    lo, hi = _scalar(min_range, "min_range"), _scalar(max_range, "max_range")
    real = _max_abs(lo, hi)
    if attrs.out_type == "uint8":
        out = _reorder(data, _F(255) / real, np.uint8)
        return (out,) + _range_outputs(lo, hi)
    out = _reorder(data, _F(127) / real, np.int8)
    return (out,) + _range_outputs(-real, real)


def _quantize_shape(attrs, in_shapes):
    ins = list(in_shapes)
    for i in (1, 2):
        ins[i] = merge_shape(ins[i], (1,), "quantize range")
    d = ins[0]
    return ins, [tuple(d) if d else None, (1,), (1,)]


def _qtype(out_type_of):
    def infer(attrs, in_dtypes):
        return [np.dtype(out_type_of(attrs, in_dtypes)), np.dtype(_F), np.dtype(_F)]
    return infer


register(OpDef(
    "_contrib_quantize", _quantize, inputs=("data", "min_range", "max_range"), num_outputs=3,
    params=(Param("out_type", Enum("int8", "uint8"), "uint8"),),
    infer_shape=_quantize_shape, infer_type=_qtype(lambda attrs, dts: attrs.out_type),
))


# -- quantize_v2 ----------------------------------------------------------------------------------------
def _calibrated(attrs) -> bool:
    return attrs.min_calib_range is not None and attrs.max_calib_range is not None


def _v2_out_type(attrs) -> str:
    if attrs.out_type == "auto":
        if _calibrated(attrs) and attrs.min_calib_range >= 0.0:
            return "uint8"
        return "int8"
    return attrs.out_type


def _quantize_v2(attrs, data):
    """_contrib_quantize_v2: float32 -> int8/uint8 over the calibrated (or the data's) range."""
    if data.dtype in (np.int8, np.uint8):
        if _calibrated(attrs):
            rng = _range_outputs(attrs.min_calib_range, attrs.max_calib_range)
        elif data.dtype == np.uint8:
            rng = _range_outputs(0.0, _UINT8_RANGE)
        else:
            rng = _range_outputs(-_INT8_RANGE, _INT8_RANGE)
        # MXNet copies the bytes into an output of the attribute's type (uint8 read as int8 wraps)
        return (data.view(np.dtype(_v2_out_type(attrs))).copy(),) + rng
    _float_input("quantize_v2", data)
    if _calibrated(attrs):
        lo, hi = _F(attrs.min_calib_range), _F(attrs.max_calib_range)
    elif data.size:
        lo, hi = _F(data.min()), _F(data.max())
    else:
        lo, hi = np.finfo(_F).max, np.finfo(_F).min
    real = _max_abs(lo, hi)
    if _v2_out_type(attrs) == "uint8":
        return (_reorder(data, _UINT8_RANGE / real, np.uint8),) + _range_outputs(lo, hi)
    return (_reorder(data, _INT8_RANGE / real, np.int8),) + _range_outputs(-real, real)


def _v2_type(attrs, in_dtypes):
    d = in_dtypes[0]
    if d is not None and np.dtype(d) not in (np.dtype(_F), np.dtype(np.int8), np.dtype(np.uint8)):
        raise ShapeError(f"quantize_v2: takes float32, int8 or uint8 data, got {np.dtype(d).name}")
    return [np.dtype(_v2_out_type(attrs)), np.dtype(_F), np.dtype(_F)]


register(OpDef(
    "_contrib_quantize_v2", _quantize_v2, num_outputs=3,
    params=(Param("out_type", Enum("auto", "int8", "uint8"), "int8"),
            Param("min_calib_range", FloatOrNone, None), Param("max_calib_range", FloatOrNone, None)),
    infer_shape=lambda attrs, s: (list(s), [tuple(s[0]) if s[0] else None, (1,), (1,)]),
    infer_type=_v2_type,
))


# -- dequantize -----------------------------------------------------------------------------------------
def _dequantize(attrs, data, min_range, max_range):
    """_contrib_dequantize: int8/uint8 -> float32 (``x * range / 127.5`` or ``/ 255.5``)."""
    if data.dtype not in (np.int8, np.uint8):
        raise ShapeError(f"dequantize: only supports int8 and uint8 input on CPU, got {data.dtype.name}")
    real = _max_abs(_scalar(min_range, "min_range"), _scalar(max_range, "max_range"))
    q = _UINT8_RANGE if data.dtype == np.uint8 else _INT8_RANGE
    return data.astype(_F) * _F(real / q)


def _dequantize_shape(attrs, in_shapes):
    ins = list(in_shapes)
    for i in (1, 2):
        ins[i] = merge_shape(ins[i], (1,), "dequantize range")
    return ins, [tuple(ins[0]) if ins[0] else None]


register(OpDef(
    "_contrib_dequantize", _dequantize, inputs=("data", "min_range", "max_range"),
    params=(Param("out_type", Enum("float32"), "float32"),),
    infer_shape=_dequantize_shape, infer_type=lambda attrs, dts: [np.dtype(_F)],
))


# -- requantize -----------------------------------------------------------------------------------------
def _requantize(attrs, data, min_range, max_range):
    """_contrib_requantize: int32 -> int8/uint8 over the calibrated (or the data's) range."""
    if data.dtype != np.int32:
        raise ShapeError(f"requantize: expects int32 data, got {data.dtype.name}")
    data_scale = _max_abs(_scalar(min_range, "min_range"), _scalar(max_range, "max_range"))
    if _calibrated(attrs):
        real = _max_abs(attrs.min_calib_range, attrs.max_calib_range)
    else:
        lo = int(data.min()) if data.size else 2 ** 31 - 1
        hi = int(data.max()) if data.size else -(2 ** 31)
        data_range = np.int32(_max_abs(lo, hi))       # MaxAbs gives a float, stored in an int32
        real = _F(_F(_F(data_range) * data_scale) / _INT32_RANGE)
    first = _F(data_scale / _INT32_RANGE)
    if _v2_out_type(attrs) == "uint8":
        scale = _F(first * _F(_F(255) / real))
        return (_reorder(data, scale, np.uint8),) + _range_outputs(0.0, real)
    scale = _F(first * _F(_F(127) / real))
    return (_reorder(data, scale, np.int8),) + _range_outputs(-real, real)


register(OpDef(
    "_contrib_requantize", _requantize, inputs=("data", "min_range", "max_range"), num_outputs=3,
    params=(Param("out_type", Enum("auto", "int8", "uint8"), "int8"),
            Param("min_calib_range", FloatOrNone, None), Param("max_calib_range", FloatOrNone, None)),
    infer_shape=_quantize_shape, infer_type=_qtype(lambda attrs, dts: _v2_out_type(attrs)),
))
