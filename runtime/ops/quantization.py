"""INT8 quantization operators: ``_contrib_quantize``, ``_contrib_quantize_v2``,
``_contrib_dequantize``, ``_contrib_requantize`` and the quantized layers that keep their input's
scale (``_contrib_quantized_flatten``, ``_act``, ``_pooling``, ``_concat``) and the int8 x int8 ->
int32 layers (``_contrib_quantized_fully_connected``, ``_conv``: exact integer sums; oneDNN's
AVX2 kernels saturate int16 pair sums for large magnitudes, AVX-512 VNNI ones do not), with the
semantics of MXNet 1.9.1's CPU build (the pip wheel runs them with oneDNN:
``src/operator/quantization/mkldnn/``). The fused ``_sg_mkldnn_*`` subgraph operators of MXNet's
INT8 graphs (gluon-cv's ``*_int8`` models) are not implemented.

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
from ._nnutil import merge_shape
from .attrs import Enum, FloatOrNone, Int, Param
from .nn_detection import _NamedOutputs
from .registry import ZERO_GRAD, OpDef, defgrad, register

_Q_OUT_NAMES = ("output", "min_output", "max_output")   # MXNet's names for the quantized layers

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


# -- quantized layers that keep their input's scale (oneDNN in MXNet's CPU build) -------------------------------
def _range_pass(min_range, max_range):
    return min_range.astype(_F).reshape(1), max_range.astype(_F).reshape(1)


def _int8_input(name: str, x: np.ndarray) -> None:
    if x.dtype not in (np.int8, np.uint8):
        raise ShapeError(f"{name}: expects int8 or uint8 data, got {x.dtype.name}")


def _quantized_flatten(attrs, data, min_data, max_data):
    """_contrib_quantized_flatten: Flatten of quantized data; the range passes through."""
    _int8_input("quantized_flatten", data)
    return (data.reshape(data.shape[0], -1) if data.ndim else data.reshape(1, 1),) + _range_pass(min_data, max_data)


def _quantized_act(attrs, data, min_data, max_data):
    """_contrib_quantized_act: ReLU of quantized data (the only act_type MXNet quantizes); the range
    passes through."""
    _int8_input("quantized_act", data)
    if attrs.act_type != "relu":
        raise ShapeError(f"quantized_act: only act_type='relu' is quantized, got {attrs.act_type!r}")
    return (np.maximum(data, 0).astype(data.dtype),) + _range_pass(min_data, max_data)


def _quantized_pooling(attrs, data, min_data, max_data):
    """_contrib_quantized_pooling: Pooling of quantized NCHW data; average pooling rounds half to even
    and (counting padding) divides every window by the kernel area, also windows cut by the "full"
    convention (oneDNN); the range passes through."""
    from .registry import get_op
    _int8_input("quantized_pooling", data)
    if data.ndim not in (4, 5) or attrs.layout not in (None, "NCHW", "NCDHW"):
        raise ShapeError("quantized_pooling: only 4D/5D NCHW/NCDHW data is supported "
                         f"(MXNet's oneDNN quantized pooling), got shape {data.shape}")
    if attrs.pool_type not in ("max", "avg"):
        raise ShapeError(f"quantized_pooling: pool_type must be max or avg, got {attrs.pool_type!r}")
    pool = get_op("Pooling")
    if attrs.pool_type == "avg" and attrs.count_include_pad is not False and not attrs.global_pool:
        # oneDNN extends the padding to cover "full"-convention windows and divides by the whole
        # kernel area (MXNet's float Pooling divides a cut window by its clipped size)
        summed = pool.compute(pool.resolve({**attrs.as_dict(), "pool_type": "sum"}), data.astype(_F))
        out = summed / _F(np.prod(attrs.kernel))
    else:
        out = pool.compute(attrs, data.astype(_F))
    info = np.iinfo(data.dtype)
    out = np.clip(np.rint(out), info.min, info.max).astype(data.dtype)
    return (out,) + _range_pass(min_data, max_data)


def _q_pool_shape(attrs, in_shapes):
    from .registry import get_op
    ins = list(in_shapes)
    for i in (1, 2):
        ins[i] = merge_shape(ins[i], (1,), "quantized_pooling range")
    d = ins[0]
    if d is None or len(d) == 0 or not all(d):
        return ins, [None, (1,), (1,)]
    _, outs = get_op("Pooling").shapes(attrs, [d])
    return ins, [outs[0], (1,), (1,)]


def _q_flatten_shape(attrs, in_shapes):
    ins = list(in_shapes)
    for i in (1, 2):
        ins[i] = merge_shape(ins[i], (1,), "quantized range")
    d = ins[0]
    if d is None or len(d) == 0 or not all(d):
        return ins, [None, (1,), (1,)]
    return ins, [(d[0], int(np.prod(d[1:]))), (1,), (1,)]


def _same_type_and_ranges(attrs, in_dtypes):
    d = in_dtypes[0] if in_dtypes and in_dtypes[0] is not None else np.dtype(np.int8)
    return [np.dtype(d), np.dtype(_F), np.dtype(_F)]


_Q_INPUTS = ("data", "min_data", "max_data")
register(_NamedOutputs("_contrib_quantized_flatten", _quantized_flatten, inputs=_Q_INPUTS, num_outputs=3,
               infer_shape=_q_flatten_shape, infer_type=_same_type_and_ranges, out_names=_Q_OUT_NAMES))
register(_NamedOutputs("_contrib_quantized_act", _quantized_act, inputs=_Q_INPUTS, num_outputs=3,
               params=(Param("act_type", Enum("relu", "sigmoid", "tanh", "softrelu", "softsign")),),
               infer_shape=lambda attrs, s: (list(s[:1]) + [(1,), (1,)], [s[0] if s[0] else None, (1,), (1,)]),
               infer_type=_same_type_and_ranges, out_names=_Q_OUT_NAMES))


def _float_params(op: str) -> tuple:
    """The parameters of the float operator ``op``, which its quantized form takes as they are."""
    from .registry import get_op
    return tuple(get_op(op).params)


register(_NamedOutputs("_contrib_quantized_pooling", _quantized_pooling, inputs=_Q_INPUTS, num_outputs=3,
               params=_float_params("Pooling"), infer_shape=_q_pool_shape, infer_type=_same_type_and_ranges,
                             out_names=_Q_OUT_NAMES))


def _quantized_concat(attrs, *arrays):
    """_contrib_quantized_concat: inputs rescaled (oneDNN reorder) to the widest range among them, then
    joined along ``dim``; int8 output if any input is int8."""
    n = attrs.num_args
    data, ranges = arrays[:n], arrays[n:]
    for x in data:
        _int8_input("quantized_concat", x)
    out_t = np.int8 if any(x.dtype == np.int8 for x in data) else np.uint8
    mins = [_scalar(ranges[2 * i], "min") for i in range(n)]
    maxs = [_scalar(ranges[2 * i + 1], "max") for i in range(n)]
    lo, hi = _F(min([_F(0)] + mins)), _F(max([_F(0)] + maxs))

    def scale(dtype, a, b):
        return _F((_INT8_RANGE if np.dtype(dtype) == np.int8 else _UINT8_RANGE) / _max_abs(a, b))

    out_scale = scale(out_t, lo, hi)
    parts = []
    for x, a, b in zip(data, mins, maxs):
        s = scale(x.dtype, a, b)
        parts.append(x.astype(out_t) if s == out_scale else _reorder(x, _F(out_scale / s), out_t))
    ax = attrs.dim % data[0].ndim
    return (np.concatenate(parts, axis=ax),) + _range_outputs(lo, hi)


def _q_concat_shape(attrs, in_shapes):
    from .registry import get_op
    n = attrs.num_args
    ins = list(in_shapes)
    for i in range(n, 3 * n):
        ins[i] = merge_shape(ins[i], (1,), "quantized_concat range")
    if any(s is None or len(s) == 0 or not all(s) for s in ins[:n]):
        return ins, [None, (1,), (1,)]
    _, outs = get_op("Concat").shapes(attrs, ins[:n])
    return ins, [outs[0], (1,), (1,)]


def _q_concat_type(attrs, in_dtypes):
    ds = [np.dtype(d) for d in in_dtypes[:attrs.num_args] if d is not None]
    out = np.int8 if any(d == np.int8 for d in ds) else np.uint8
    return [np.dtype(out), np.dtype(_F), np.dtype(_F)]


def _q_concat_inputs(attrs):
    n = attrs.num_args
    return [f"arg{i}" for i in range(n)] + [f"arg{n + i}" for i in range(2 * n)]


register(_NamedOutputs("_contrib_quantized_concat", _quantized_concat, inputs=_q_concat_inputs, num_outputs=3,
               params=(Param("num_args", Int), Param("dim", Int, 1)),
               infer_shape=_q_concat_shape, infer_type=_q_concat_type, out_names=_Q_OUT_NAMES))


# -- quantized fully-connected / convolution (int8 x int8 -> int32) ---------------------------------------------
def _mult_range(min_a, max_a, min_b, max_b, signed_data: bool):
    """MXNet's QuantizationRangeForMultiplication: the int32 output's float range. For uint8 data
    MXNet uses its "S8U8" variant, which divides the *data* range by 127 and the *weight* range by
    255 (the template arguments are swapped); kept as is."""
    a_level = _F(_max_abs(min_a, max_a) / _F(127))
    b_level = _F(_max_abs(min_b, max_b) / _F(127 if signed_data else 255))
    hi = _F(_F(a_level * b_level) * _F(2 ** 31))
    return _range_outputs(-hi, hi)


def _fc_inputs(attrs) -> list:
    if attrs.no_bias:
        return ["data", "weight", "min_data", "max_data", "min_weight", "max_weight"]
    return ["data", "weight", "bias", "min_data", "max_data", "min_weight", "max_weight", "min_bias", "max_bias"]


def _split_q(attrs, arrays):
    if attrs.no_bias:
        data, weight, mind, maxd, minw, maxw = arrays
        return data, weight, None, mind, maxd, minw, maxw, None, None
    return arrays


def _quantized_fc(attrs, *arrays):
    """_contrib_quantized_fully_connected: int8/uint8 data x int8 weight -> int32 (exact integer
    products); the int8 bias is rescaled to the product's scale (``int(bias * rescale)``)."""
    data, weight, bias, mind, maxd, minw, maxw, minb, maxb = _split_q(attrs, arrays)
    _int8_input("quantized_fully_connected", data)
    if weight.dtype != np.int8:
        raise ShapeError(f"quantized_fully_connected: weight must be int8, got {weight.dtype.name}")
    x = data.reshape(data.shape[0], -1) if attrs.flatten else data
    out = np.matmul(x.astype(np.int64), weight.astype(np.int64).T)
    if bias is not None:
        data_scale = _F((_INT8_RANGE if data.dtype == np.int8 else _UINT8_RANGE)
                        / _max_abs(_scalar(mind, "min_data"), _scalar(maxd, "max_data")))
        weight_scale = _F(_INT8_RANGE / _max_abs(_scalar(minw, "min_weight"), _scalar(maxw, "max_weight")))
        rescale = _F(_F(_F(data_scale * weight_scale) * _max_abs(_scalar(minb, "min_bias"),
                                                                   _scalar(maxb, "max_bias"))) / _INT8_RANGE)
        out = out + np.trunc(bias.astype(_F) * rescale).astype(np.int64)
    rng = _mult_range(_scalar(mind, "min_data"), _scalar(maxd, "max_data"), _scalar(minw, "min_weight"),
                      _scalar(maxw, "max_weight"), data.dtype == np.int8)
    return (out.astype(np.int32),) + rng


def _q_weighted_shape(float_op: str, what: str):
    """Shape rule of a quantized FullyConnected / Convolution (inputs ``_fc_inputs``): data,
    weight and bias shaped by ``float_op``'s rule, every ``min_*`` / ``max_*`` range (1,); outputs
    the float operator's and the two (1,) ranges."""
    def infer(attrs, in_shapes):
        from .registry import get_op
        names = _fc_inputs(attrs)
        ins = list(in_shapes)
        for i, n in enumerate(names):
            if n.startswith(("min_", "max_")):
                ins[i] = merge_shape(ins[i], (1,), f"{what} {n}")
        k = 2 if attrs.no_bias else 3
        fins, fouts = get_op(float_op).shapes(attrs, ins[:k])
        ins[:k] = fins
        return ins, [fouts[0], (1,), (1,)]
    return infer


def _q_int32_type(attrs, in_dtypes):
    return [np.dtype(np.int32), np.dtype(_F), np.dtype(_F)]


register(_NamedOutputs("_contrib_quantized_fully_connected", _quantized_fc, inputs=_fc_inputs, num_outputs=3,
                       params=_float_params("FullyConnected"),
                       infer_shape=_q_weighted_shape("FullyConnected", "quantized_fully_connected"),
                       infer_type=_q_int32_type, out_names=_Q_OUT_NAMES))


def _quantized_conv(attrs, *arrays):
    """_contrib_quantized_conv: uint8 data (oneDNN's only input type here) convolved with int8 weights
    into int32 (exact integer sums); the int8 bias is added as is (MXNet hands it to oneDNN unscaled)."""
    from .registry import get_op
    data, weight, bias, mind, maxd, minw, maxw, minb, maxb = _split_q(attrs, arrays)
    if data.dtype != np.uint8:
        raise ShapeError(f"quantized_conv: mkldnn_quantized_conv op only supports uint8 as input type, "
                         f"got {data.dtype.name}")
    if weight.dtype != np.int8:
        raise ShapeError(f"quantized_conv: weight must be int8, got {weight.dtype.name}")
    conv = get_op("Convolution")
    fattrs = conv.resolve({**attrs.as_dict(), "no_bias": True})
    out = conv.compute(fattrs, data.astype(np.float64), weight.astype(np.float64))
    out = np.rint(out).astype(np.int64)
    if bias is not None:
        out = out + bias.astype(np.int64).reshape((1, -1) + (1,) * (out.ndim - 2))
    rng = _mult_range(_scalar(mind, "min_data"), _scalar(maxd, "max_data"), _scalar(minw, "min_weight"),
                      _scalar(maxw, "max_weight"), True)
    return (out.astype(np.int32),) + rng


register(_NamedOutputs("_contrib_quantized_conv", _quantized_conv, inputs=_fc_inputs, num_outputs=3,
                       params=_float_params("Convolution"),
                       infer_shape=_q_weighted_shape("Convolution", "quantized_conv"), infer_type=_q_int32_type,
                       out_names=_Q_OUT_NAMES))


# MXNet 1.9.1 gives these MakeZeroGradNodes (src/operator/quantization/*.cc); quantized_act has no FGradient
defgrad("_contrib_quantize", "_contrib_quantize_v2", "_contrib_dequantize", "_contrib_requantize",
        "_contrib_quantized_flatten", "_contrib_quantized_pooling", "_contrib_quantized_concat",
        "_contrib_quantized_conv", "_contrib_quantized_fully_connected")(ZERO_GRAD)
