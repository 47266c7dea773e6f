"""MXNet 1.9.1's ``image`` operators (``nd.image.*``, ``src/operator/image/``): to_tensor,
normalize, crop, flips, brightness/contrast/saturation/hue/lighting adjustments and their
``random_*`` forms, resize (OpenCV's nearest and bilinear rules).

Images are ``(H, W, C)`` (``to_tensor``, ``crop`` and ``resize`` also take ``(N, H, W, C)``;
``normalize`` takes ``(C, H, W)`` or ``(N, C, H, W)``). MXNet's kernels are reproduced with their
quirks, since they are the specification:

- results are written with MXNet's ``saturate_cast``: uint8 is clamped to [0, 255] then truncated;
  other types are converted as C does (float to integer truncates, wrapping for uint8 in
  ``normalize``, which does not saturate);
- some outputs MXNet's kernels never write: the middle row/column of a flip of odd size, the whole
  output of hue and ``adjust_lighting`` on one-channel images and of a color jitter that applies
  nothing. MXNet's values there are whatever the output memory held (garbage for a new array, the
  input when the executor runs the op in place); the runtime gives the in-place result (the
  input's values), the only deterministic choice among MXNet's;
- saturation's "gray" is only the blue channel times 0.114 (the kernel assigns instead of adding);
- contrast's mean gray level is a sequential float32 sum, as the C loop computes it.

The ``random_*`` operators draw their factors from the runtime's seedable generator
(``mx.random.seed``), not MXNet's: same distributions, different numbers.
"""
from __future__ import annotations

import numpy as np

from ..base import ShapeError
from ._grad import backward_op, internal
from ._tuple_attrs import FloatOrTuple, IntOrTuple, as_tuple
from .attrs import Bool, Float, Int, Param
from .registry import OpDef, checked_same_shape, defgrad, register
from .tensor_random import generator

_F = np.float32
_COEF = (_F(0.299), _F(0.587), _F(0.114))


def _saturate(v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """MXNet's ``saturate_cast<DType>(float)``: clamp for uint8, a C conversion otherwise."""
    dtype = np.dtype(dtype)
    if dtype == np.uint8:
        return np.clip(v, 0, 255).astype(np.uint8)
    return _c_cast(v, dtype)


def _c_cast(v: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A C float-to-``dtype`` conversion (integers truncate; small integer types wrap)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        with np.errstate(invalid="ignore"):
            return np.trunc(v).astype(np.int64).astype(dtype)
    return v.astype(dtype)


def _as_f32(x: np.ndarray) -> np.ndarray:
    return x.astype(_F, copy=False)


def _hwc(name: str, shape, allow_batch: bool = False) -> None:
    ok_nd = (3, 4) if allow_batch else (3,)
    if len(shape) not in ok_nd:
        raise ShapeError(f"{name}: Input image must have shape (height, width, channels)"
                         f"{' or (N, height, width, channels)' if allow_batch else ''}, but got {tuple(shape)}")
    if shape[-1] not in (1, 3):
        raise ShapeError(f"{name}: The last dimension of input image must be the channel dimension with "
                         f"either 1 or 3 elements, but got input with shape {tuple(shape)}")


def _image_shape(name: str):
    return checked_same_shape(lambda attrs, s: _hwc(name, s))


# -- to_tensor / normalize ---------------------------------------------------------------------------------
def _to_tensor(attrs, x):
    """_image_to_tensor: (H, W, C) -> (C, H, W) float32 in [0, 1] (value / 255); batches too."""
    if x.ndim not in (3, 4):
        raise ShapeError(f"image.to_tensor: Input image must have shape (height, width, channels), or "
                         f"(N, height, width, channels) but got {x.shape}")
    v = (x / 255.0).astype(_F) if x.dtype == np.float64 else _as_f32(x) / _F(255.0)
    return np.ascontiguousarray(np.moveaxis(v, -1, -3))


def _to_tensor_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) == 0 or not all(s):
        return list(in_shapes), [None]
    if len(s) not in (3, 4):
        raise ShapeError(f"image.to_tensor: Input image must have shape (height, width, channels), or "
                         f"(N, height, width, channels) but got {tuple(s)}")
    return list(in_shapes), [tuple(s[:-3]) + (s[-1], s[-3], s[-2])]


register(OpDef("_image_to_tensor", _to_tensor, infer_shape=_to_tensor_shape,
               infer_type=lambda attrs, dts: [np.dtype(_F)], aliases=("_npx__image_to_tensor",)))


def _norm_channels(attrs, shape) -> int:
    if len(shape) not in (3, 4):
        raise ShapeError(f"image.normalize: Input tensor must have shape (channels, height, width), or "
                         f"(N, channels, height, width), but got {tuple(shape)}")
    c = shape[0] if len(shape) == 3 else shape[1]
    if c not in (1, 3):
        raise ShapeError(f"image.normalize: the channel dimension must have 1 or 3 elements, got shape {tuple(shape)}")
    for what in ("mean", "std"):
        n = len(as_tuple(getattr(attrs, what)))
        if n not in (1, c):
            raise ShapeError(f"image.normalize: Invalid {what} for input with shape {tuple(shape)}. {what} must "
                             f"have either 1 or {c} elements, but got {getattr(attrs, what)}")
    return c


def _normalize(attrs, x):
    """_image_normalize: (x - mean[c]) / std[c] per channel of a (C, H, W) or (N, C, H, W) tensor."""
    c = _norm_channels(attrs, x.shape)
    m, s = as_tuple(attrs.mean), as_tuple(attrs.std)
    mean = np.asarray([m[0]] * c if len(m) == 1 else m[:c], dtype=_F)
    std = np.asarray([s[0]] * c if len(s) == 1 else s[:c], dtype=_F)
    shape = (c, 1, 1)
    acc = np.float64 if x.dtype == np.float64 else _F
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (x.astype(acc, copy=False) - mean.astype(acc).reshape(shape)) / std.astype(acc).reshape(shape)
    return _c_cast(v, x.dtype)


register(OpDef("_image_normalize", _normalize, infer_shape=checked_same_shape(_norm_channels),
               params=(Param("mean", FloatOrTuple, (0.0, 0.0, 0.0, 0.0)), Param("std", FloatOrTuple, (1.0, 1.0, 1.0, 1.0))),
               aliases=("_npx__image_normalize",)))


# -- crop ---------------------------------------------------------------------------------------------------
def _crop_check(attrs, shape) -> tuple:
    _hwc("image.crop", shape, allow_batch=True)
    if attrs.height <= 0 or attrs.width <= 0:
        raise ShapeError("image.crop: Input height and width must be greater than 0")
    if attrs.x + attrs.width > shape[-2]:
        raise ShapeError("image.crop: x + width should not be greater than input width")
    if attrs.y + attrs.height > shape[-3]:
        raise ShapeError("image.crop: y + height should not be greater than input height")
    return tuple(shape[:-3]) + (attrs.height, attrs.width, shape[-1])


def _crop(attrs, x):
    """_image_crop: the (height, width) window at (y, x) of an (H, W, C) or (N, H, W, C) image."""
    _crop_check(attrs, x.shape)
    if attrs.x < 0 or attrs.y < 0:
        raise ShapeError("image.crop: x and y must not be negative")
    return x[..., attrs.y:attrs.y + attrs.height, attrs.x:attrs.x + attrs.width, :].copy()


def _crop_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) == 0 or not all(s):
        return list(in_shapes), [None]
    return list(in_shapes), [_crop_check(attrs, s)]


register(OpDef("_image_crop", _crop, infer_shape=_crop_shape,
               params=(Param("x", Int), Param("y", Int), Param("width", Int), Param("height", Int)),
               aliases=("_npx__image_crop",)))


# -- flips --------------------------------------------------------------------------------------------------
def _flip(x: np.ndarray, axis: int) -> np.ndarray:
    """MXNet's FlipImpl swaps the pairs; the middle slice of an odd size keeps the input's values
    (the in-place result; MXNet does not write it when the output is a new array)."""
    return np.flip(x, axis=axis).copy()


def _flip_left_right(attrs, x):
    """_image_flip_left_right: mirror an (H, W, C) image horizontally."""
    _hwc("image.flip_left_right", x.shape)
    return _flip(x, 1)


def _flip_top_bottom(attrs, x):
    """_image_flip_top_bottom: mirror an (H, W, C) image vertically."""
    _hwc("image.flip_top_bottom", x.shape)
    return _flip(x, 0)


def _random_flip(axis: int, name: str):
    def compute(attrs, x):
        _hwc(name, x.shape)
        return x.copy() if generator().random() < 0.5 else _flip(x, axis)
    compute.__doc__ = f"{name}: flips with probability 0.5 (the runtime's generator)."
    return compute


# -- brightness / contrast / saturation / hue ---------------------------------------------------------------
def _brightness(x: np.ndarray, alpha: float) -> np.ndarray:
    return _saturate(_as_f32(x) * _F(alpha), x.dtype)


def _contrast(x: np.ndarray, alpha: float) -> np.ndarray:
    h, w, c = x.shape
    xf = _as_f32(x)
    if c > 1:
        terms = (xf[..., :3] * np.asarray(_COEF, dtype=_F)).reshape(-1)
    else:
        terms = xf.reshape(-1)
    total = np.cumsum(terms, dtype=_F)[-1] if terms.size else _F(0)   # the C loop's sequential float sum
    gray_mean = _F(total / _F(h * w))
    beta = _F((_F(1) - _F(alpha)) * gray_mean)
    return _saturate(xf * _F(alpha) + beta, x.dtype)


def _saturation(x: np.ndarray, alpha: float) -> np.ndarray:
    if x.shape[-1] == 1:
        return x.copy()
    xf = _as_f32(x)
    gray = xf[..., 2:3] * _COEF[2] * (_F(1) - _F(alpha))     # MXNet's loop keeps only the last channel
    return _saturate(gray + xf[..., :3] * _F(alpha), x.dtype)


def _rgb_to_hls(r, g, b):
    b, g, r = b / _F(255), g / _F(255), r / _F(255)
    vmax = np.fmax(np.fmax(r, g), b)
    vmin = np.fmin(np.fmin(r, g), b)
    diff = vmax - vmin
    l = (vmax + vmin) * _F(0.5)
    big = diff > np.finfo(_F).eps
    with np.errstate(divide="ignore", invalid="ignore"):
        s = (l < _F(0.5)).astype(_F) * diff / (vmax + vmin)
        s = s + (l >= _F(0.5)).astype(_F) * diff / (_F(2.0) - vmax - vmin)
        d = _F(60.0) / diff
        h = (vmax == r).astype(_F) * (g - b) * d
        h = h + ((vmax != r) & (vmax == g)).astype(_F) * ((b - r) * d + _F(120.0))
        h = h + ((vmax != r) & (vmax != g)).astype(_F) * ((r - g) * d + _F(240.0))
        h = h + (h < _F(0)).astype(_F) * _F(360.0)
    zero = _F(0)
    return np.where(big, h, zero), l, np.where(big, s, zero)


_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def _hls_to_rgb(h, l, s):
    p2 = (l <= _F(0.5)).astype(_F) * l * (_F(1) + s)
    p2 = p2 + (l > _F(0.5)).astype(_F) * (l + s - l * s)
    p1 = _F(2) * l - p2
    h = h * _F(1.0 / 60.0)
    for _ in range(64):   # MXNet's do/while loops, one step at a time
        neg, over = h < 0, h >= 6
        if not (neg.any() or over.any()):
            break
        h = np.where(neg, h + _F(6), np.where(over, h - _F(6), h))
    sector = np.clip(h.astype(np.int64), 0, 5)
    h = h - sector.astype(_F)
    tab = np.stack([p2, p1, p1 + (p2 - p1) * (_F(1) - h), p1 + (p2 - p1) * h], axis=-1)
    pick = lambda k: np.take_along_axis(tab, _SECTORS[sector, k][..., None], axis=-1)[..., 0]  # noqa: E731
    b, g, r = pick(0), pick(1), pick(2)
    grey = s == 0
    b, g, r = (np.where(grey, l, v) for v in (b, g, r))
    return r * _F(255), g * _F(255), b * _F(255)


def _hue(x: np.ndarray, alpha: float) -> np.ndarray:
    if x.shape[-1] == 1:
        return x.copy()                       # unwritten by MXNet's kernel: the in-place result
    xf = _as_f32(x)
    h, l, s = _rgb_to_hls(xf[..., 0], xf[..., 1], xf[..., 2])
    h = h + _F(alpha) * _F(360.0)
    r, g, b = _hls_to_rgb(h, l, s)
    return _saturate(np.stack([r, g, b], axis=-1), x.dtype)


def _factor(attrs) -> float:
    if attrs.min_factor < 0 or attrs.max_factor < 0:
        raise ShapeError("image: min_factor and max_factor must not be negative")
    return float(generator().uniform(attrs.min_factor, attrs.max_factor))


def _random_enhance(fn, name: str):
    def compute(attrs, x):
        _hwc(name, x.shape)
        return fn(x, _factor(attrs))
    compute.__doc__ = f"{name}: the adjustment by a factor drawn uniformly from [min_factor, max_factor]."
    return compute


def _color_jitter(attrs, x):
    """_image_random_color_jitter: brightness, contrast, saturation and hue jitter in a random order."""
    _hwc("image.random_color_jitter", x.shape)
    rng = generator()
    out = x
    for k in rng.permutation(4):
        if k == 0 and attrs.brightness > 0:
            out = _brightness(out, 1.0 + rng.uniform(-attrs.brightness, attrs.brightness))
        elif k == 1 and attrs.contrast > 0:
            out = _contrast(out, 1.0 + rng.uniform(-attrs.contrast, attrs.contrast))
        elif k == 2 and attrs.saturation > 0:
            out = _saturation(out, 1.0 + rng.uniform(-attrs.saturation, attrs.saturation))
        elif k == 3 and attrs.hue > 0:
            out = _hue(out, rng.uniform(-attrs.hue, attrs.hue))
    return out.copy() if out is x else out


# -- lighting ---------------------------------------------------------------------------------------------------
_EIG = np.array([[55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
                 [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
                 [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203]]).astype(_F)


def _lighting(x: np.ndarray, alpha) -> np.ndarray:
    if x.shape[-1] == 1:
        return x.copy()                       # unwritten by MXNet's kernel: the in-place result
    a = np.asarray(alpha[:3], dtype=_F)
    pca = (_EIG[:, 0] * a[0] + _EIG[:, 1] * a[1]) + _EIG[:, 2] * a[2]
    return _saturate(_as_f32(x) + pca, x.dtype)


def _adjust_lighting(attrs, x):
    """_image_adjust_lighting: AlexNet-style PCA lighting with the given (r, g, b) alphas."""
    _hwc("image.adjust_lighting", x.shape)
    alpha = as_tuple(attrs.alpha)
    if len(alpha) < 3 and x.shape[-1] == 3:
        raise ShapeError(f"image.adjust_lighting: alpha needs 3 values, got {attrs.alpha}")
    return _lighting(x, alpha)


def _random_lighting(attrs, x):
    """_image_random_lighting: PCA lighting with alphas drawn from N(0, alpha_std)."""
    _hwc("image.random_lighting", x.shape)
    return _lighting(x, generator().normal(0.0, attrs.alpha_std, 3))


_ENHANCE = (Param("min_factor", Float), Param("max_factor", Float))
for _name, _fn in (("_image_flip_left_right", _flip_left_right), ("_image_flip_top_bottom", _flip_top_bottom)):
    register(OpDef(_name, _fn, infer_shape=_image_shape(_name), aliases=("_npx_" + _name,)))
for _name, _axis in (("_image_random_flip_left_right", 1), ("_image_random_flip_top_bottom", 0)):
    register(OpDef(_name, _random_flip(_axis, _name), infer_shape=_image_shape(_name), aliases=("_npx_" + _name,),
                   traits=("random",)))
for _name, _fn in (("_image_random_brightness", _brightness), ("_image_random_contrast", _contrast),
                   ("_image_random_saturation", _saturation), ("_image_random_hue", _hue)):
    register(OpDef(_name, _random_enhance(_fn, _name), params=_ENHANCE, infer_shape=_image_shape(_name),
                   aliases=("_npx_" + _name,), traits=("random",)))
register(OpDef("_image_random_color_jitter", _color_jitter,
               params=(Param("brightness", Float), Param("contrast", Float), Param("saturation", Float),
                       Param("hue", Float)),
               infer_shape=_image_shape("image.random_color_jitter"), aliases=("_npx__image_random_color_jitter",),
               traits=("random",)))
register(OpDef("_image_adjust_lighting", _adjust_lighting, params=(Param("alpha", FloatOrTuple),),
               infer_shape=_image_shape("image.adjust_lighting"), aliases=("_npx__image_adjust_lighting",)))
register(OpDef("_image_random_lighting", _random_lighting, params=(Param("alpha_std", Float, 0.05),),
               infer_shape=_image_shape("image.random_lighting"), aliases=("_npx__image_random_lighting",),
               traits=("random",)))


# -- resize (OpenCV 3.4.2's cv::resize, which MXNet 1.9.1's wheel links) ---------------------------------------
_RESIZE_TYPES = (np.dtype(np.uint8), np.dtype(np.float32), np.dtype(np.float64))


def _resize_size(attrs, h: int, w: int) -> tuple[int, int]:
    """(new_h, new_w) as MXNet's GetHeightAndWidth: (width, height), or one size for both / the short side."""
    size = as_tuple(attrs.size)
    if len(size) not in (1, 2):
        raise ShapeError(f"image.resize: Input size dimension must be 1 or 2, but got {len(size)}")
    if len(size) == 2:
        if size[0] <= 0 or size[1] <= 0:
            raise ShapeError(f"image.resize: Input width and height should be greater than 0, got {size}")
        return size[1], size[0]
    if size[0] <= 0:
        raise ShapeError(f"image.resize: Input size should be greater than 0, but got {size[0]}")
    if not attrs.keep_ratio:
        return size[0], size[0]
    if h > w:
        return h * size[0] // w, size[0]
    return size[0], w * size[0] // h


def _linear_taps(src: int, dst: int, clamp: bool) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's source index and float32 fraction per destination index (half-pixel centres).
    Columns clamp the fraction at the borders; rows keep it (their indices are clipped instead)."""
    scale = 1.0 / (dst / src)                       # OpenCV: scale_x = 1. / inv_scale_x
    f = ((np.arange(dst) + 0.5) * scale - 0.5).astype(_F)
    i = np.floor(f).astype(np.int64)
    f = (f - i.astype(_F)).astype(_F)
    if clamp:
        low, high = i < 0, i >= src - 1
        f = np.where(low | high, _F(0), f)
        i = np.where(low, 0, np.where(high, src - 1, i))
    return i, f


def _fixed(c: np.ndarray) -> np.ndarray:
    """``saturate_cast<short>(c * INTER_RESIZE_COEF_SCALE)`` (2048, rounding half to even)."""
    return np.clip(np.rint(c * _F(2048)), -32768, 32767).astype(np.int64)


def _resize_linear(img: np.ndarray, h: int, w: int, taps=None) -> np.ndarray:
    """Bilinear resize of the (H, W, C) trailing axes (leading axes are a batch); ``taps`` gives the
    source indices and fractions (INTER_AREA's enlarging passes its own)."""
    taps = taps or _linear_taps
    H, W = img.shape[-3], img.shape[-2]
    sx, fx = taps(W, w, clamp=True)
    sy, fy = taps(H, h, clamp=False)
    sx1 = np.minimum(sx + 1, W - 1)
    y0, y1 = np.clip(sy, 0, H - 1), np.clip(sy + 1, 0, H - 1)
    if img.dtype == np.uint8:
        # fixed point: horizontal sums scaled by 2048, then the SSE vertical pass
        # ((S0 >> 4) * b0 >> 16) + ((S1 >> 4) * b1 >> 16), rounded by (+2) >> 2
        a0, a1 = _fixed(_F(1) - fx)[:, None], _fixed(fx)[:, None]
        b0, b1 = _fixed(_F(1) - fy)[:, None, None], _fixed(fy)[:, None, None]
        s = img.astype(np.int64)
        hor = s[..., sx, :] * a0 + s[..., sx1, :] * a1
        v = ((((hor[..., y0, :, :] >> 4) * b0) >> 16) + (((hor[..., y1, :, :] >> 4) * b1) >> 16) + 2) >> 2
        return np.clip(v, 0, 255).astype(np.uint8)
    a0, a1 = (_F(1) - fx).astype(img.dtype)[:, None], fx.astype(img.dtype)[:, None]
    hor = img[..., sx, :] * a0 + img[..., sx1, :] * a1
    b0 = (_F(1) - fy).astype(img.dtype)[:, None, None]
    b1 = fy.astype(img.dtype)[:, None, None]
    return (hor[..., y0, :, :] * b0 + hor[..., y1, :, :] * b1).astype(img.dtype, copy=False)


def _resize_nearest(img: np.ndarray, h: int, w: int) -> np.ndarray:
    H, W = img.shape[-3], img.shape[-2]
    xs = np.minimum(np.floor(np.arange(w) * (1.0 / (w / W))).astype(np.int64), W - 1)
    ys = np.minimum(np.floor(np.arange(h) * (1.0 / (h / H))).astype(np.int64), H - 1)
    return img[..., ys, :, :][..., xs, :]


def _resize_supported(name: str, dtype: np.dtype, interp: int) -> None:
    """What ``_resize_one`` reproduces of OpenCV's resize (``image.resize`` and ``_cvimresize``):
    uint8 / float32 / float64 images, nearest (0), bilinear (1), bicubic (2), area (3) or Lanczos (4)."""
    if dtype not in _RESIZE_TYPES:
        raise ShapeError(f"{name}: OpenCV's resize takes uint8, float32 or float64 images, got {dtype.name}")
    if interp not in (0, 1, 2, 3, 4):
        raise ShapeError(f"{name}: interp={interp} is not an OpenCV interpolation "
                         "(0: nearest, 1: bilinear, 2: bicubic, 3: area, 4: Lanczos)")


def _cubic_taps(src: int, dst: int) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's INTER_CUBIC: the 4 source indices (replicated at the borders) and float32 weights
    (A = -0.75) per destination index."""
    f = ((np.arange(dst) + 0.5) * (1.0 / (dst / src)) - 0.5).astype(_F)
    i = np.floor(f).astype(np.int64)
    x = (f - i.astype(_F)).astype(_F)
    a = _F(-0.75)
    c0 = ((a * (x + 1) - 5 * a) * (x + 1) + 8 * a) * (x + 1) - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + 1
    c2 = ((a + 2) * (1 - x) - (a + 3)) * (1 - x) * (1 - x) + 1
    c3 = 1 - c0 - c1 - c2
    idx = np.clip(i[:, None] + np.arange(-1, 3)[None, :], 0, src - 1)
    return idx, np.stack([c0, c1, c2, c3], axis=1).astype(_F)


def _resize_cubic(img: np.ndarray, h: int, w: int) -> np.ndarray:
    """Bicubic resize of the (H, W, C) trailing axes; uint8 in OpenCV's fixed point (weights scaled
    by 2048, the two passes' product rounded by (+2^21) >> 22)."""
    xi, xc = _cubic_taps(img.shape[-2], w)
    yi, yc = _cubic_taps(img.shape[-3], h)
    if img.dtype == np.uint8:
        a, b, s = _fixed(xc), _fixed(yc), img.astype(np.int64)
        hor = sum(s[..., xi[:, k], :] * a[:, k][:, None] for k in range(4))
        v = sum(hor[..., yi[:, k], :, :] * b[:, k][:, None, None] for k in range(4))
        return np.clip((v + (1 << 21)) >> 22, 0, 255).astype(np.uint8)
    a, b = xc.astype(img.dtype), yc.astype(img.dtype)
    hor = sum(img[..., xi[:, k], :] * a[:, k][:, None] for k in range(4))
    return sum(hor[..., yi[:, k], :, :] * b[:, k][:, None, None] for k in range(4)).astype(img.dtype)


def _area_mode_taps(src: int, dst: int, clamp: bool) -> tuple[np.ndarray, np.ndarray]:
    """INTER_AREA when enlarging (OpenCV emulates it by a bilinear kernel): source index
    ``floor(d * scale)`` and fraction ``(d + 1) - (s + 1) / scale`` wrapped to [0, 1), 0 when not
    positive; the columns clamp at the borders as the bilinear ones."""
    inv = dst / src
    scale = 1.0 / inv
    i = np.floor(np.arange(dst) * scale).astype(np.int64)
    f = ((np.arange(dst) + 1) - (i + 1) * inv).astype(_F)
    f = np.where(f <= 0, _F(0), (f - np.floor(f)).astype(_F)).astype(_F)
    if clamp:
        low, high = i < 0, i >= src - 1
        f = np.where(low | high, _F(0), f)
        i = np.where(low, 0, np.where(high, src - 1, i))
    return i, f


def _area_tab(src: int, dst: int, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's ``computeResizeAreaTab``, as (dst, n) source indices and float32 weights per
    destination index in OpenCV's order (n: the most entries of one destination; unused ones
    weigh 0 at index 0, which adds nothing to a float sum)."""
    entries: list[list[tuple[int, float]]] = []
    for d in range(dst):            # one destination index at a time: a table, not pixels
        fs1 = d * scale
        fs2 = fs1 + scale
        cell = min(scale, src - fs1)
        s1, s2 = int(np.ceil(fs1)), int(np.floor(fs2))
        s2 = min(s2, src - 1)
        s1 = min(s1, s2)
        row = []
        if s1 - fs1 > 1e-3:
            row.append((s1 - 1, float(np.float32((s1 - fs1) / cell))))
        row += [(sx, float(np.float32(1.0 / cell))) for sx in range(s1, s2)]
        if fs2 - s2 > 1e-3:
            row.append((s2, float(np.float32(min(min(fs2 - s2, 1.0), cell) / cell))))
        entries.append(row)
    n = max(len(r) for r in entries)
    idx = np.zeros((dst, n), np.int64)
    wts = np.zeros((dst, n), _F)
    for d, row in enumerate(entries):
        for k, (si, a) in enumerate(row):
            idx[d, k], wts[d, k] = si, a
    return idx, wts


def _resize_area(img: np.ndarray, h: int, w: int) -> np.ndarray:
    """OpenCV's INTER_AREA: shrinking by whole factors averages blocks (uint8 2x2: (sum + 2) >> 2;
    else the block sum times 1/area, rounded half to even); shrinking by fractions weighs every
    source pixel by the part of it under the destination pixel (float32 sums in OpenCV's order,
    rounded half to even for uint8); enlarging (either axis) is a bilinear kernel with INTER_AREA's
    fractions."""
    H, W = img.shape[-3], img.shape[-2]
    scale_x, scale_y = 1.0 / (w / W), 1.0 / (h / H)
    if scale_x < 1 or scale_y < 1:
        return _resize_linear(img, h, w, _area_mode_taps)
    ix, iy = int(round(scale_x)), int(round(scale_y))
    if abs(scale_x - ix) < np.finfo(np.float64).eps and abs(scale_y - iy) < np.finfo(np.float64).eps:
        blocks = img.reshape(img.shape[:-3] + (h, iy, w, ix, img.shape[-1]))
        if img.dtype == np.uint8:
            total = blocks.astype(np.int64).sum(axis=(-4, -2))
            if ix == 2 and iy == 2 and img.shape[-1] in (1, 3, 4):
                return ((total + 2) >> 2).astype(np.uint8)
            out = np.rint(total.astype(_F) * _F(1.0 / (ix * iy)))
            return np.clip(out, 0, 255).astype(np.uint8)
        parts = [blocks[..., sy, :, sx, :] for sy in range(iy) for sx in range(ix)]
        total = np.zeros_like(parts[0])
        k = 0
        while k + 4 <= len(parts):          # OpenCV's unrolled sum: four at a time, then the rest
            total = total + (((parts[k] + parts[k + 1]) + parts[k + 2]) + parts[k + 3])
            k += 4
        for p in parts[k:]:
            total = total + p
        return (total * img.dtype.type(1.0 / (ix * iy))).astype(img.dtype)
    xi, xa = _area_tab(W, w, scale_x)
    yi, ya = _area_tab(H, h, scale_y)
    wt = _F if img.dtype != np.float64 else np.float64
    src = img.astype(wt)
    buf = np.zeros(img.shape[:-2] + (w, img.shape[-1]), wt)
    for k in range(xi.shape[1]):
        buf = buf + src[..., xi[:, k], :] * xa[:, k].astype(wt)[:, None]
    out = np.zeros(img.shape[:-3] + (h, w, img.shape[-1]), wt)
    for k in range(yi.shape[1]):
        out = out + ya[:, k].astype(wt)[:, None, None] * buf[..., yi[:, k], :, :]
    if img.dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(img.dtype)


_S45 = 0.70710678118654752440084436210485
_LANCZOS_CS = ((1, 0), (-_S45, -_S45), (0, 1), (_S45, -_S45), (-1, 0), (_S45, _S45), (0, -1), (-_S45, _S45))


def _lanczos4_taps(src: int, dst: int) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV's INTER_LANCZOS4 (``interpolateLanczos4``): the 8 source indices sx-3 .. sx+4
    (replicated at the borders) and float32 weights, computed in double, cast to float and
    normalized by their float sum; a fraction under FLT_EPSILON takes the pixel itself."""
    f = ((np.arange(dst) + 0.5) * (1.0 / (dst / src)) - 0.5).astype(_F)
    i = np.floor(f).astype(np.int64)
    x = (f - i.astype(_F)).astype(_F)
    exact = x < np.finfo(np.float32).eps
    x3 = (np.where(exact, _F(0.5), x) + _F(3)).astype(_F)      # exact ones are overwritten below
    y0 = -x3.astype(np.float64) * np.pi * 0.25
    s0, c0 = np.sin(y0), np.cos(y0)
    coeffs = np.empty((dst, 8), _F)
    total = np.zeros(dst, _F)
    for k in range(8):
        y = -(x3 - _F(k)).astype(_F).astype(np.float64) * np.pi * 0.25
        coeffs[:, k] = ((_LANCZOS_CS[k][0] * s0 + _LANCZOS_CS[k][1] * c0) / (y * y)).astype(_F)
        total = (total + coeffs[:, k]).astype(_F)
    coeffs = (coeffs * (_F(1) / total)[:, None]).astype(_F)
    coeffs[exact] = 0
    coeffs[exact, 3] = 1
    idx = np.clip(i[:, None] + np.arange(-3, 5)[None, :], 0, src - 1)
    return idx, coeffs


def _resize_taps(img: np.ndarray, h: int, w: int, taps) -> np.ndarray:
    """A separable resize with ``taps(src, dst) -> (indices, float32 weights)`` per axis; uint8 in
    OpenCV's fixed point (weights scaled by 2048, the two passes' product rounded by (+2^21) >> 22)."""
    xi, xc = taps(img.shape[-2], w)
    yi, yc = taps(img.shape[-3], h)
    n = xi.shape[1]
    if img.dtype == np.uint8:
        a, b, s = _fixed(xc), _fixed(yc), img.astype(np.int64)
        hor = sum(s[..., xi[:, k], :] * a[:, k][:, None] for k in range(n))
        v = sum(hor[..., yi[:, k], :, :] * b[:, k][:, None, None] for k in range(n))
        return np.clip((v + (1 << 21)) >> 22, 0, 255).astype(np.uint8)
    a, b = xc.astype(img.dtype), yc.astype(img.dtype)
    hor = sum(img[..., xi[:, k], :] * a[:, k][:, None] for k in range(n))
    return sum(hor[..., yi[:, k], :, :] * b[:, k][:, None, None] for k in range(n)).astype(img.dtype)


def _resize_one(img: np.ndarray, h: int, w: int, interp: int) -> np.ndarray:
    if (h, w) == img.shape[-3:-1]:
        return img.copy()
    if interp == 0:
        return _resize_nearest(img, h, w)
    if interp == 2:
        return _resize_cubic(img, h, w)
    if interp == 4:
        return _resize_taps(img, h, w, _lanczos4_taps)
    H, W = img.shape[-3:-1]
    if interp == 3 or (interp == 1 and H == 2 * h and W == 2 * w):   # OpenCV: a bilinear halving is INTER_AREA's
        return _resize_area(img, h, w)
    return _resize_linear(img, h, w)


def _resize(attrs, x):
    """_image_resize: OpenCV's resize of an (H, W, C) or (N, H, W, C) image to ``size`` (width, height)."""
    if x.ndim not in (3, 4):
        raise ShapeError(f"image.resize: Input image dimension should be 3 or 4 but got {x.ndim}")
    _resize_supported("image.resize", x.dtype, attrs.interp)
    h, w = _resize_size(attrs, x.shape[-3], x.shape[-2])
    return _resize_one(x, h, w, attrs.interp)


def _resize_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) == 0 or not all(s):
        return list(in_shapes), [None]
    if len(s) not in (3, 4):
        raise ShapeError(f"image.resize: Input image dimension should be 3 or 4 but got {len(s)}")
    h, w = _resize_size(attrs, s[-3], s[-2])
    return list(in_shapes), [tuple(s[:-3]) + (h, w, s[-1])]


register(OpDef("_image_resize", _resize, infer_shape=_resize_shape,
               params=(Param("size", IntOrTuple, ()), Param("keep_ratio", Bool, False), Param("interp", Int, 1)),
               aliases=("_npx__image_resize",)))


# -- _cvimresize / _cvcopyMakeBorder (mx.image.imresize / copyMakeBorder: OpenCV on one HWC image) ----------------
def _cvimresize(attrs, x):
    """_cvimresize: OpenCV's resize of an (H, W, C) image to (h, w) (``mx.image.imresize``)."""
    if x.ndim != 3:
        raise ShapeError(f"_cvimresize: expects an (H, W, C) image, got shape {x.shape}")
    _resize_supported("_cvimresize", x.dtype, attrs.interp)
    if attrs.w <= 0 or attrs.h <= 0:
        raise ShapeError(f"_cvimresize: w and h must be positive, got {attrs.w}, {attrs.h}")
    return _resize_one(x, attrs.h, attrs.w, attrs.interp)


def _cvimresize_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) != 3:
        return list(in_shapes), [None]
    return list(in_shapes), [(attrs.h, attrs.w, s[2])]


register(OpDef("_cvimresize", _cvimresize, inputs=("data",), infer_shape=_cvimresize_shape,
               params=(Param("w", Int), Param("h", Int), Param("interp", Int, 1)), aliases=("_npi_cvimresize",)))

# OpenCV border types -> numpy pad modes (BORDER_CONSTANT, REPLICATE, REFLECT, WRAP, REFLECT_101)
_BORDERS = {1: "edge", 2: "symmetric", 3: "wrap", 4: "reflect"}


def _cv_border_value(v: float, dtype: np.dtype):
    """cv::Scalar -> pixel: rounded (half to even) and saturated for integer images."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.rint(v), info.min, info.max)
    return v


def _cvcopymakeborder(attrs, x):
    """_cvcopyMakeBorder: OpenCV's copyMakeBorder of an (H, W, C) image (``mx.image.copyMakeBorder``)."""
    if x.ndim != 3:
        raise ShapeError(f"_cvcopyMakeBorder: expects an (H, W, C) image, got shape {x.shape}")
    if min(attrs.top, attrs.bot, attrs.left, attrs.right) < 0:
        raise ShapeError("_cvcopyMakeBorder: border sizes must not be negative")
    pads = ((attrs.top, attrs.bot), (attrs.left, attrs.right), (0, 0))
    border = attrs.type & ~16     # cv::BORDER_ISOLATED (16) only matters for a view into a larger image
    if border == 0:
        vals = as_tuple(attrs.values)
        per = [vals[c] if c < len(vals) else 0.0 for c in range(x.shape[2])] if vals else [attrs.value] * x.shape[2]
        out = np.empty((x.shape[0] + attrs.top + attrs.bot, x.shape[1] + attrs.left + attrs.right, x.shape[2]),
                       dtype=x.dtype)
        out[...] = np.asarray([_cv_border_value(v, x.dtype) for v in per]).astype(x.dtype)
        out[attrs.top:attrs.top + x.shape[0], attrs.left:attrs.left + x.shape[1]] = x
        return out
    if border not in _BORDERS:
        raise ShapeError(f"_cvcopyMakeBorder: unknown border type {attrs.type} (0-4: constant, replicate, "
                         "reflect, wrap, reflect_101; + 16, isolated)")
    return np.pad(x, pads, mode=_BORDERS[border])


def _cvcopymakeborder_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or len(s) != 3:
        return list(in_shapes), [None]
    return list(in_shapes), [(s[0] + attrs.top + attrs.bot, s[1] + attrs.left + attrs.right, s[2])]


register(OpDef("_cvcopyMakeBorder", _cvcopymakeborder, inputs=("data",), infer_shape=_cvcopymakeborder_shape,
               params=(Param("top", Int), Param("bot", Int), Param("left", Int), Param("right", Int),
                       Param("type", Int, 0), Param("value", Float, 0.0), Param("values", FloatOrTuple, ()))))


# -- gradients (MXNet 1.9.1: src/operator/image/*.cc) ----------------------------------------------------
def _backward_image_copy(attrs, og, data):
    """The gradient of MXNet's image augmenters: the output gradient copied unchanged (``_copy``, a
    straight-through convention even for flips), which MXNet's backward shape check refuses when the
    output's shape differs from the input's (to_tensor, resize)."""
    if og.shape != data.shape:
        raise ShapeError(f"Incompatible attr in the image operator's backward node at 0-th output: expected "
                         f"{list(data.shape)}, got {list(og.shape)} (MXNet's _copy gradient needs equal shapes)")
    return og.astype(data.dtype, copy=True)


backward_op("_backward_image_copy", _backward_image_copy, ("ograd", "data"))


@defgrad("_image_to_tensor", "_image_resize", "_image_flip_left_right", "_image_flip_top_bottom",
         "_image_random_flip_left_right", "_image_random_flip_top_bottom", "_image_random_brightness",
         "_image_random_contrast", "_image_random_saturation", "_image_random_hue", "_image_random_color_jitter",
         "_image_adjust_lighting", "_image_random_lighting")
def _image_copy_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_image_copy")(out_grads[0], inputs[0])]


def _backward_image_normalize(attrs, og, data):
    """normalize's backward: the output gradient divided by each channel's std."""
    c = _norm_channels(attrs, data.shape)
    s = as_tuple(attrs.std)
    std = np.asarray([s[0]] * c if len(s) == 1 else s[:c], dtype=_F).reshape(c, 1, 1)
    return (og * (1.0 / std)).astype(data.dtype, copy=False)


backward_op("_backward_image_normalize", _backward_image_normalize, ("ograd", "data"),
            params=(Param("mean", FloatOrTuple, (0.0, 0.0, 0.0, 0.0)), Param("std", FloatOrTuple, (1.0, 1.0, 1.0, 1.0))))


@defgrad("_image_normalize")
def _image_normalize_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_image_normalize")(out_grads[0], inputs[0], mean=attrs.mean, std=attrs.std)]


def _backward_image_crop(attrs, og, data):
    """crop's backward: the output gradient placed at the window, zero elsewhere."""
    g = np.zeros_like(data)
    g[..., attrs.y:attrs.y + attrs.height, attrs.x:attrs.x + attrs.width, :] = og
    return g


backward_op("_backward_image_crop", _backward_image_crop, ("ograd", "data"),
            params=(Param("x", Int), Param("y", Int), Param("width", Int), Param("height", Int)))


@defgrad("_image_crop")
def _image_crop_grad(F, attrs, inputs, outputs, out_grads):
    return [internal(F, "_backward_image_crop")(out_grads[0], inputs[0], x=attrs.x, y=attrs.y, width=attrs.width,
                                                height=attrs.height)]
