"""Shape manipulation: Reshape (MXNet's special codes resolved by shape inference; dynamic
dimensions from ``Shape``/``Gather``/``Concat``), Flatten, transpose, expand_dims/squeeze,
Concat/stack/split, slicing, tile/repeat/reverse, broadcast_to/like/axis, Pad, UpSampling,
shape_array/size_array, depth_to_space/space_to_depth."""
from __future__ import annotations

import numpy as np

from .registry import converter

_BIG = np.iinfo(np.int64).max
_SMALL = np.iinfo(np.int64).min


def _axis(a: int, nd: int) -> int:
    return a + nd if a < 0 else a


@converter("Reshape", "reshape_like")
def reshape(n):
    return [n.op("Reshape", n.inputs[0], n.target_shape(0))]


@converter("Flatten")
def flatten(n):
    return [n.op("Flatten", n.inputs[0], axis=1)]


@converter("transpose")
def transpose(n):
    axes = list(n.attrs.axes)
    nd = n.ndim
    perm = [_axis(int(a), nd) for a in axes] if axes else list(range(nd))[::-1]
    return [n.op("Transpose", n.inputs[0], perm=perm)]


@converter("SwapAxis")
def swap_axis(n):
    nd = n.ndim
    perm = list(range(nd))
    i, j = _axis(int(n.attrs.dim1), nd), _axis(int(n.attrs.dim2), nd)
    perm[i], perm[j] = perm[j], perm[i]
    return [n.op("Transpose", n.inputs[0], perm=perm)]


@converter("expand_dims")
def expand_dims(n):
    a = int(n.attrs.axis)
    return [n.unsqueeze(n.inputs[0], [a + n.ndim + 1 if a < 0 else a])]


@converter("squeeze")
def squeeze(n):
    shape = n.in_shape(0)
    ax = n.attrs.axis
    if ax is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        axes = sorted({_axis(int(a), len(shape)) for a in ((ax,) if isinstance(ax, int) else ax)})
    if len(axes) == len(shape):      # MXNet keeps one axis: shape (1,)
        return [n.reshape(n.inputs[0], [1])]
    return [n.squeeze(n.inputs[0], axes)]


@converter("Concat")
def concat(n):
    return [n.op("Concat", *n.inputs, axis=_axis(int(n.attrs.dim), n.ndim))]


@converter("stack")
def stack(n):
    a = int(n.attrs.axis)
    a = a + n.ndim + 1 if a < 0 else a
    return [n.op("Concat", *[n.unsqueeze(x, [a]) for x in n.inputs], axis=a)]


@converter("SliceChannel")
def split(n):
    a = n.attrs
    k = int(a.num_outputs)
    ax = _axis(int(a.axis), n.ndim)
    size = n.in_shape(0)[ax]
    if n.in_dyn(0)[ax]:
        n.fail("splitting a dynamic axis")
    outs = n.ops("Split", [n.inputs[0], n.ints([size // k] * k)], k, axis=ax)
    if a.squeeze_axis:
        outs = [n.squeeze(o, [ax]) for o in outs]
    return outs


@converter("_split_v2")
def split_v2(n):
    a = n.attrs
    ax = _axis(int(a.axis), n.ndim)
    size = n.in_shape(0)[ax]
    if n.in_dyn(0)[ax]:
        n.fail("splitting a dynamic axis")
    if a.sections:
        bounds = [size // a.sections * i for i in range(a.sections)] + [size]
    else:
        bounds = list(a.indices) + [size]
    sizes = [bounds[i + 1] - bounds[i] for i in range(len(bounds) - 1)]
    outs = n.ops("Split", [n.inputs[0], n.ints(sizes)], len(sizes), axis=ax)
    if a.squeeze_axis:
        outs = [n.squeeze(o, [ax]) for o in outs]
    return outs


def _slice(n, x: str, axes: list[int], begins: list, ends: list, steps: list) -> str:
    starts, stops = [], []
    for b, e, s in zip(begins, ends, steps):
        starts.append((0 if s > 0 else _BIG) if b is None else int(b))
        stops.append((_BIG if s > 0 else _SMALL) if e is None else int(e))
    return n.op("Slice", x, n.ints(starts), n.ints(stops), n.ints(axes), n.ints(steps))


@converter("slice")
def slice_(n):
    a = n.attrs
    k = len(a.begin)
    steps = [1 if s is None else int(s) for s in a.step] if a.step else [1] * k
    steps += [1] * (k - len(steps))
    if any(s == 0 for s in steps):
        n.fail("step 0")
    return [_slice(n, n.inputs[0], list(range(k)), list(a.begin), list(a.end), steps)]


@converter("slice_axis")
def slice_axis(n):
    a = n.attrs
    return [_slice(n, n.inputs[0], [_axis(int(a.axis), n.ndim)], [a.begin], [a.end], [1])]


@converter("slice_like")
def slice_like(n):
    a = n.attrs
    nd = n.ndim
    axes = [_axis(int(x), nd) for x in a.axes] if len(a.axes) else list(range(len(n.in_shape(1))))
    like = n.op("Shape", n.inputs[1])
    ends = n.op("Gather", like, n.ints(axes), axis=0)
    return [n.op("Slice", n.inputs[0], n.ints([0] * len(axes)), ends, n.ints(axes))]


@converter("tile")
def tile(n):
    reps = [int(r) for r in n.attrs.reps]
    x = n.inputs[0]
    nd = n.ndim
    if len(reps) > nd:
        x = n.unsqueeze(x, list(range(len(reps) - nd)))
    elif len(reps) < nd:
        reps = [1] * (nd - len(reps)) + reps
    return [n.op("Tile", x, n.ints(reps))]


@converter("repeat")
def repeat(n):
    a = n.attrs
    x = n.inputs[0]
    r = int(a.repeats)
    if a.axis is None:
        x = n.reshape(x, [-1])
        ax, nd = 0, 1
    else:
        nd = n.ndim
        ax = _axis(int(a.axis), nd)
    reps = [1] * (nd + 1)
    reps[ax + 1] = r
    y = n.op("Tile", n.unsqueeze(x, [ax + 1]), n.ints(reps))
    return [n.op("Reshape", y, n.target_shape(0))]


@converter("reverse")
def reverse(n):
    ax = n.attrs.axis
    axes = [_axis(int(a), n.ndim) for a in ((ax,) if isinstance(ax, int) else ax)]
    return [_slice(n, n.inputs[0], axes, [None] * len(axes), [None] * len(axes), [-1] * len(axes))]


@converter("broadcast_to")
def broadcast_to(n):
    # Expand broadcasts both ways: a 1 keeps the input's size, as MXNet's 0 does
    target = [1 if int(t) == 0 else int(t) for t in n.attrs.shape]
    return [n.op("Expand", n.inputs[0], n.ints(target))]


@converter("broadcast_like")
def broadcast_like(n):
    a = n.attrs
    if a.lhs_axes is None or a.rhs_axes is None:
        return [n.op("Expand", n.inputs[0], n.op("Shape", n.inputs[1]))]
    nd = n.ndim
    parts = []
    lmap = {_axis(int(la), nd): _axis(int(ra), len(n.in_shape(1))) for la, ra in zip(a.lhs_axes, a.rhs_axes)}
    for i in range(nd):
        parts.append(n.dim(n.inputs[1], lmap[i]) if i in lmap else n.ints([1]))
    return [n.op("Expand", n.inputs[0], n.op("Concat", *parts, axis=0))]


@converter("broadcast_axis")
def broadcast_axis(n):
    a = n.attrs
    target = [1] * n.ndim
    for ax, size in zip(a.axis, a.size):
        target[_axis(int(ax), n.ndim)] = int(size)
    return [n.op("Expand", n.inputs[0], n.ints(target))]


@converter("Pad")
def pad(n):
    a = n.attrs
    pw = [int(v) for v in a.pad_width]
    pads = pw[0::2] + pw[1::2]
    mode = a.mode
    if mode == "constant":
        return [n.op("Pad", n.inputs[0], n.ints(pads), n.scalar(float(a.constant_value)), mode="constant")]
    return [n.op("Pad", n.inputs[0], n.ints(pads), mode=mode)]


@converter("UpSampling")
def upsampling(n):
    a = n.attrs
    if a.sample_type != "nearest" or len(n.inputs) != 1:
        n.fail("only nearest upsampling of one input is supported")
    s = float(a.scale)
    scales = n.const(np.asarray([1.0, 1.0] + [s] * (n.ndim - 2), np.float32))
    return [n.op("Resize", n.inputs[0], "", scales, mode="nearest",
                 coordinate_transformation_mode="asymmetric", nearest_mode="floor")]


@converter("shape_array")
def shape_array(n):
    y = n.op("Shape", n.inputs[0])
    return [n.reshape(y, [1]) if n.ndim == 0 else y]


@converter("size_array")
def size_array(n):
    return [n.reshape(n.op("Size", n.inputs[0]), [1])]


@converter("depth_to_space")
def depth_to_space(n):
    return [n.op("DepthToSpace", n.inputs[0], blocksize=int(n.attrs.block_size), mode="DCR")]


@converter("space_to_depth")
def space_to_depth(n):
    return [n.op("SpaceToDepth", n.inputs[0], blocksize=int(n.attrs.block_size))]
