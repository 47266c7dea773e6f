"""Layout planning and lowering to the compiler's fast kernels (pass ``layout``).

Image tensors go NHWC inside the compiled program: a 2-D Convolution, Pooling, BatchNorm or
channel Concat on an NCHW tensor is replaced by its NHWC internal op (``kernels/nhwc.py``, ``kernels/conv/``), and
the tensor is transposed once where it enters the NHWC region (memoized: one transpose per
tensor). Elementwise ops (activations, same-shape adds) keep whatever layout their inputs have,
so chains of convolutions need no transposes at all; any other op, and the graph outputs, get
their inputs back in NCHW. Flatten of an NHWC tensor whose spatial size is 1x1 (after global
pooling) needs no transpose either.

A lowered convolution's algorithm is left open (``algo=""``): the next pass, ``conv_algo``, picks
it. Weights are re-laid-out by static ``_hy_conv_weight`` nodes (evaluated at ``bind_params``).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..ir import Entry, Graph, Node
from ..kernels import conv as KC
from ..kernels import nhwc as K
from ..kernels import train as KT
from ..kernels import train_sl as KS
from ..kernels.grad import CONV_DGRAD, CONV_WGRAD, SAMPLES_LAST, wgrad_samples_last
from . import Pass, PassContext, is_float, registry_op

CONVOLUTION, POOLING, BATCHNORM, CONCAT, FLATTEN, FULLY_CONNECTED = (registry_op(n) for n in (
    "Convolution", "Pooling", "BatchNorm", "Concat", "Flatten", "FullyConnected"))
ADDS = (registry_op("elemwise_add"), registry_op("broadcast_add"))       # + same shapes: _hy_add
RELU, ACTIVATION, SIGMOID, TANH, CLIP = (registry_op(n) for n in ("relu", "Activation", "sigmoid", "tanh", "clip"))
# gradients of training programs (the differentiate stage's nodes)
BACKWARD_BN, BACKWARD_POOL = registry_op("_backward_BatchNorm"), registry_op("_backward_Pooling")
BACKWARD_ACT = registry_op("_backward_Activation")
ELEMENTWISE_GRADS = (registry_op("_backward_Activation"), registry_op("add_n"))   # position by position


def act_spec(op: Any, attrs: Any, shape: tuple = (), dtype: Any = None) -> tuple | None:
    """The activation spec (``kernels``' ``act``) of an activation node, or None if it is not one we fuse.
    relu is ``("relu",)`` where MXNet runs oneDNN's (``Activation`` on float32 of 1 to 5 dimensions:
    NaN gives 0) and ``("relu", "nan")`` where it runs its native kernel (the ``relu`` op, other
    dtypes: NaN stays NaN)."""
    if op is ACTIVATION and attrs.act_type == "relu" and dtype is not None and np.dtype(dtype) == np.float32 \
            and 1 <= len(shape) <= 5:
        return ("relu",)
    if op is RELU or op is ACTIVATION and attrs.act_type == "relu":
        return ("relu", "nan")
    if op is ACTIVATION and attrs.act_type in ("sigmoid", "tanh"):
        return (attrs.act_type,)
    if op is SIGMOID:
        return ("sigmoid",)
    if op is TANH:
        return ("tanh",)
    if op is CLIP:
        return ("clip", float(attrs.a_min), float(attrs.a_max))
    return None


def _pair(v: Any, default: int) -> tuple[int, int] | None:
    v = tuple(v or ())
    if not v:
        return (default, default)
    if len(v) != 2:
        return None
    return (int(v[0]), int(v[1]))


def lower(graph: Graph, ctx: PassContext) -> Graph:
    meta = ctx.infer(graph)
    dyn = ctx.dynamic(graph)
    nhwc: set[Entry] = set()                   # new entries holding NHWC tensors
    sl: set[Entry] = set()                     # ... and samples-last (C, H, W, N) ones (training)
    conv_cache: dict[tuple[Entry, tuple], Entry] = {}
    emap: dict[Entry, Entry] = {}              # old entry -> new entry
    counts: dict[str, int] = {}

    def count(k: str) -> None:
        counts[k] = counts.get(k, 0) + 1

    def shape_of(e_old: Entry) -> tuple:
        return meta[e_old].shape

    def convert(e: Entry, perm: tuple, hint: str, view: int = 0) -> Entry:
        key = (e, perm, view)
        if key not in conv_cache:
            n = Node(K.LAYOUT, ctx.fresh(hint), {"perm": perm, "view": view}, [e])
            conv_cache[key] = n.entry()
            count("views" if view else "transposes")
        return conv_cache[key]

    def to_orig(e: Entry) -> Entry:
        if e in sl:
            return convert(e, KS.FROM_SL, "to_nchw")
        if e not in nhwc:
            return e
        return convert(e, K.TO_NCHW, "to_nchw")

    # a training program stays NHWC across its two calls: the forward returns its saved activations
    # as NCHW-shaped views of NHWC arrays, the backward views its 4-D inputs back (no copies)
    views = bool(ctx.options.get("nhwc_views"))
    saved_out = set()
    if ctx.backward is not None:
        saved_out = {i for kind, i in ctx.backward.saved_from if kind == "output" and i >= ctx.backward.n_outputs}

    def to_layout(e: Entry, mine: set, other: set, from_orig: Any, name: str) -> Entry:
        """``e`` in the layout whose entries are ``mine``: as it is, re-laid from the other
        channels-last layout, or from the original NCHW (a view of a 4-D graph input where
        ``views``)."""
        if e in mine:
            return e
        if e in other:
            return convert(e, _SL_NHWC, name)
        if views and e.node.op is None and len(meta[e].shape or ()) == 4:
            return convert(e, from_orig, name, view=2)
        return convert(e, from_orig, name)

    def to_nhwc(e: Entry) -> Entry:
        return to_layout(e, nhwc, sl, K.TO_NHWC, "to_nhwc")

    def to_sl(e: Entry) -> Entry:
        return to_layout(e, sl, nhwc, KS.TO_SL, "to_sl")

    lay = _Layouts(nhwc, sl, to_sl, to_orig)

    def static(e_old: Entry) -> bool:
        return id(e_old.node) not in dyn

    def floaty(e_old: Entry) -> bool:
        return is_float(meta[e_old].dtype)

    def samples_last(e: Entry) -> Entry:
        """The output gradient ``e`` as ``(F, *positions, N)``, once per tensor (the channel-first data
        and weight gradients of one convolution share it)."""
        key = (e, "samples_last", 0)
        if key not in conv_cache:
            conv_cache[key] = Node(SAMPLES_LAST, ctx.fresh("samples_last"), {}, [e]).entry()
            count("samples_last")
        return conv_cache[key]

    uses: dict[Entry, int] = {}
    for n in graph.nodes:
        for e in n.inputs:
            uses[e] = uses.get(e, 0) + 1
    for e in graph.outputs:
        uses[e] = uses.get(e, 0) + 1

    for n in graph.nodes:
        if n.op is None:
            emap[n.entry()] = n.entry()
            continue
        ins = [emap[e] for e in n.inputs]
        out: Node | None = None
        out_nhwc = False
        dynamic = id(n) in dyn
        fused = _relu_into_maxpool_bwd(n, ins, uses, lay, to_nhwc, count) if ctx.training else None
        if fused is not None:
            out, out_nhwc = fused
        elif dynamic and not (n.op.mode_dependent and ctx.training and n.op is not BATCHNORM) and n.inputs \
                and floaty(n.inputs[0]):
            out, out_nhwc = _lower_one(n, n.op, ins, shape_of, static, to_nhwc, to_orig, lay, ctx, count,
                                       lambda e: meta[e].dtype)
        if out is None:
            out = Node(n.op, n.name, n.attrs, [to_orig(e) for e in ins] if dynamic else ins, n.extra)
            out_nhwc = False
            if ctx.training and dynamic:
                out = _samples_last_ograd(out, n, shape_of, samples_last, count)
        for i in range(out.num_outputs):
            emap[Entry(n, i)] = Entry(out, i)
            flag = out_nhwc[i] if isinstance(out_nhwc, tuple) else out_nhwc
            if flag == SL:
                sl.add(Entry(out, i))
            elif flag is True:
                nhwc.add(Entry(out, i))
    # (an activation of fewer channels is read by channel-first kernels: it is saved channel-first,
    # strided views would slow them down several times)
    # (a samples-last one goes as a view too: the backward's samples-last kernels read it)
    outputs = [convert(emap[e], K.TO_NCHW, "saved", view=1)
               if i in saved_out and emap[e] in nhwc and not _train_channel_first(shape_of(e))
               else convert(emap[e], KS.FROM_SL, "saved", view=1) if i in saved_out and emap[e] in sl
               else to_orig(emap[e]) for i, e in enumerate(graph.outputs)]
    ctx.stats["layout"] = counts
    lowered = Graph(outputs)
    lowered.meta = {e: m for e, m in meta.items() if e.node.op is None}   # variables are shared
    return lowered


# A convolution whose every output sums at least this many products stays the registry's NCHW
# Convolution (the imperative kernel) instead of the NHWC gemm: float32 sums of ~1e5 terms taken in
# another order (kh, kw, c instead of c, kh, kw; gemm instead of gemv) differ by ~1e-5 absolute
# (a 224x224 kernel on a 224x224 input: 1.5e-5 to 2.3e-5, over MXNet's rtol=1e-5/atol=1e-6 between
# hybridized and imperative runs, which MXNet passes by using one kernel for both). Below it the
# reorder is ~1e-7 relative. Such convolutions are a single (or few) output positions: the NHWC
# lowering gains nothing there.
LONG_REDUCTION = 1 << 15


SL = "samples_last"          # a lowering's output-layout flag: samples-last (True: NHWC)
_SL_NHWC = (3, 1, 2, 0)      # (C, H, W, N) <-> (N, H, W, C), both ways


class _Layouts:
    """The lowering's layout sets and the samples-last conversion (one transpose per tensor)."""

    def __init__(self, nhwc: set, sl: set, to_sl, to_orig):
        self.nhwc, self.sl, self.to_sl, self.to_orig = nhwc, sl, to_sl, to_orig


def _lower_one(n: Node, op: Any, ins: list[Entry], shape_of, static, to_nhwc, to_orig, lay: _Layouts,
               ctx: PassContext, count, dtype_of=None) -> tuple[Node | None, Any]:
    a = n.resolved
    x_old = n.inputs[0]
    xs = shape_of(x_old)
    nhwc, sl = lay.nhwc, lay.sl
    if ctx.training:
        low = _lower_samples_last(n, op, a, xs, ins, shape_of, static, lay, count)
        if low is not None:
            return low
    few = _few_channels_cf(n, op, a, xs, ins, shape_of, static, to_orig, nhwc | sl, ctx, count)
    if few is not None:
        return few, False
    if op is CONVOLUTION and len(xs) == 4 and (a.layout or "NCHW") == "NCHW" \
            and all(static(e) for e in n.inputs[1:]):
        kernel = _pair(a.kernel, 1)
        stride, pad, dilate = _pair(a.stride, 1), _pair(a.pad, 0), _pair(a.dilate, 1)
        if None in (kernel, stride, pad, dilate):
            return None, False
        N, Cin, H, W = xs
        Kf, G = int(a.num_filter), int(a.num_group)
        if Cin // max(G, 1) * kernel[0] * kernel[1] >= LONG_REDUCTION:
            return None, False     # summed in the imperative kernel's order (see LONG_REDUCTION)
        wshape = shape_of(n.inputs[1])
        if G > 1 and not (G == Cin == Kf) and (Cin % G or Kf % G):
            return None, False
        if G > 1 and wshape[1] * G != Cin:
            return None, False
        w = Node(KC.CONV_WEIGHT, ctx.fresh(n.name + "_w"), {"algo": "", "groups": G}, [ins[1]])
        ops = KC.ConvOperands(data=to_nhwc(ins[0]), weight=w.entry(), bias=None if a.no_bias else ins[2])
        attrs = {"kernel": kernel, "stride": stride, "pad": pad, "dilate": dilate, "num_filter": Kf,
                 "groups": G, "algo": "", "act": (), **ops.flags()}
        return Node(KC.CONV, n.name, attrs, ops.values()), True
    if op is POOLING and len(xs) == 4 and (a.layout or "NCHW") == "NCHW" and a.pool_type in ("max", "avg") \
            and a.pooling_convention in ("valid", "full"):
        kernel, stride, pad = _pair(a.kernel, 1), _pair(a.stride, 1), _pair(a.pad, 0)
        if None in (kernel, stride, pad) and not a.global_pool:
            return None, False
        cip = True if a.count_include_pad is None else bool(a.count_include_pad)
        attrs = {"kernel": kernel, "stride": stride, "pad": pad, "pool_type": a.pool_type,
                 "full": a.pooling_convention == "full", "count_include_pad": cip, "global_pool": bool(a.global_pool)}
        count("pool")
        return Node(K.POOL, n.name, attrs, [to_nhwc(ins[0])]), True
    lowered = _lower_training(n, op, a, xs, ins, shape_of, to_nhwc, to_orig, nhwc, ctx, count)
    if lowered is not None:
        return lowered
    if op is BATCHNORM and not ctx.training and a.axis == 1 and len(xs) in (2, 4) \
            and all(static(e) for e in n.inputs[1:5]):
        C = xs[1]
        aff = Node(K.BN_AFFINE, ctx.fresh(n.name + "_affine"),
                   {"eps": float(a.eps), "fix_gamma": bool(a.fix_gamma), "bshape": (C,) if len(xs) == 4 else (1, C)},
                   ins[1:5])
        count("batchnorm_affine")
        x = to_nhwc(ins[0]) if len(xs) == 4 else ins[0]
        if len(xs) == 2:
            aff.set_attrs({**aff.attrs, "bshape": (C,)})
        return Node(K.AFFINE, n.name, {"act": ()}, [x, Entry(aff, 0), Entry(aff, 1)]), len(xs) == 4
    act = act_spec(op, a, xs, dtype_of(x_old) if dtype_of is not None else None)
    if act is not None:
        count("activation")
        return Node(K.ACT, n.name, {"act": act}, [ins[0]]), SL if ins[0] in sl else ins[0] in nhwc
    if op in ADDS and len(n.inputs) == 2 and tuple(shape_of(n.inputs[0])) == tuple(shape_of(n.inputs[1])):
        l, r = ins
        if l in sl or r in sl:
            count("add")
            return Node(K.ADD, n.name, {"act": ()}, [lay.to_sl(l), lay.to_sl(r)]), SL
        if l in nhwc or r in nhwc:
            l, r = to_nhwc(l), to_nhwc(r)
            count("add")
            return Node(K.ADD, n.name, {"act": ()}, [l, r]), True
        count("add")
        return Node(K.ADD, n.name, {"act": ()}, [l, r]), False
    if op is CONCAT and len(xs) == 4 and a.dim in (1, -3) and all(len(shape_of(e)) == 4 for e in n.inputs):
        count("concat")
        if any(e in nhwc for e in ins):
            return Node(K.CONCAT, n.name, {"axis": 3, "num_args": len(ins)}, [to_nhwc(e) for e in ins]), True
        return Node(K.CONCAT, n.name, {"axis": 1, "num_args": len(ins)}, [to_orig(e) for e in ins]), False
    if (op.has("elementwise") or op in ELEMENTWISE_GRADS) and n.num_outputs == 1 and any(e in sl for e in ins) \
            and all(tuple(shape_of(e)) == tuple(xs) for e in n.inputs):
        count("elementwise")
        return Node(op, n.name, n.attrs, [lay.to_sl(e) for e in ins], n.extra), SL
    if (op.has("elementwise") or op in ELEMENTWISE_GRADS) and n.num_outputs == 1 and any(e in nhwc for e in ins) \
            and all(tuple(shape_of(e)) == tuple(xs) for e in n.inputs):
        # position by position: computes the same in NHWC, no transpose back (and forth)
        count("elementwise")
        return Node(op, n.name, n.attrs, [to_nhwc(e) for e in ins], n.extra), True
    if op is FLATTEN and len(xs) >= 2:
        flat = (xs[0], int(np.prod(xs[1:])))
        x = ins[0]
        if x in nhwc and not (len(xs) == 4 and xs[2] * xs[3] == 1) or x in sl:
            x = to_orig(x)
        count("flatten")
        return Node(K.RESHAPE, n.name, {"shape": flat}, [x]), False
    if op is FULLY_CONNECTED and all(static(e) for e in n.inputs[1:]):
        x = ins[0]
        if x in nhwc and not (a.flatten and len(xs) == 4 and xs[2] * xs[3] == 1) or x in sl:
            x = to_orig(x)
        has_bias = not a.no_bias
        rows = xs[0] if a.flatten else int(np.prod(xs[:-1]))
        if rows == 1 and has_bias and len(shape_of(n.inputs[1])) == 2:
            # one row (batch-1 MLPs): the bias rides in the matmul as one more weight row
            wa = Node(K.DENSE_AUG, ctx.fresh(n.name + "_wa"), {}, [ins[1], ins[2]])
            count("dense")
            return Node(K.DENSE, n.name, {"num_hidden": int(a.num_hidden), "flatten": bool(a.flatten),
                                          "has_bias": False, "act": (), "aug": True}, [x, wa.entry()]), False
        wt = Node(K.TRANSPOSE2D, ctx.fresh(n.name + "_wt"), {"copy": not ctx.training}, [ins[1]])
        count("dense")
        return Node(K.DENSE, n.name, {"num_hidden": int(a.num_hidden), "flatten": bool(a.flatten),
                                      "has_bias": has_bias, "act": ()},
                    [x, wt.entry()] + ([ins[2]] if has_bias else [])), False
    return None, False


# below this many input channels a weight gradient's NHWC patches are runs too short to copy
# fast (a first convolution over RGB): it takes the channel-first kernel
_WGRAD_NHWC_MIN_CHANNELS = 16
# below this many channels every NHWC training kernel runs along rows of a few floats (LeNet's
# 6-channel BatchNorm forward and backward, max-pool backward, data gradient: 2-10x the CPU time
# of the channel-first kernels, the whole step 1.4x): such nodes stay channel-first
_TRAIN_NHWC_MIN_CHANNELS = 8
# ... and below this many on maps of at most _SMALL_MAP positions (LeNet's second layer, 16 x 8 x 8:
# BatchNorm's forward and backward 1.9x and 2.3x channels-last, the step 0.93x channel-first). The
# larger maps of few channels (mobilenet0.25's 8 and 16 channels at 112 x 112) keep their kernels
_SMALL_MAP_NHWC_MIN_CHANNELS = 32
_SMALL_MAP = 144


def _train_channel_first(shape: tuple) -> bool:
    """Do a training program's kernels keep this (NCHW) activation channel-first?"""
    C, positions = shape[1], int(np.prod(shape[2:]))
    return C < _TRAIN_NHWC_MIN_CHANNELS or C < _SMALL_MAP_NHWC_MIN_CHANNELS and positions <= _SMALL_MAP


# a training program's few-channel activations (``_train_channel_first``) of at least this many
# samples go samples-last, (C, H, W, N): the channel-first kernels' rows of a few floats become runs
# of the batch (LeNet at batch 64: its convolutions, BatchNorms and pools 1.6x faster). Fewer samples
# make short runs again: those stay channel-first
_SL_MIN_SAMPLES = 16
# a samples-last convolution's columns per output (C * kh * kw) at most
_SL_MAX_COLUMNS = 1024


def _samples_last(shape: tuple | None) -> bool:
    """Does a training program keep this (NCHW) activation samples-last?"""
    return shape is not None and len(shape) == 4 and shape[0] >= _SL_MIN_SAMPLES and _train_channel_first(shape)


def _lower_samples_last(n: Node, op: Any, a: Any, xs: tuple, ins: list[Entry], shape_of, static, lay: _Layouts,
                        count) -> tuple[Node, Any] | None:
    """A training program's few-channel convolutions, BatchNorms, max pools and their gradients onto
    the samples-last kernels (``kernels/train_sl.py``) when their tensors are ``_samples_last``; None
    for anything else."""
    if len(xs or ()) != 4:
        return None
    to_sl = lay.to_sl
    two_d = len(tuple(getattr(a, "kernel", ()) or ())) == 2
    if op is CONVOLUTION and two_d and (a.layout or "NCHW") == "NCHW" and int(a.num_group) == 1 \
            and _samples_last(shape_of(Entry(n, 0))) and (_samples_last(xs) or ins[0] in lay.sl) \
            and xs[1] * int(np.prod(tuple(a.kernel))) <= _SL_MAX_COLUMNS and all(static(e) for e in n.inputs[1:]):
        kernel, stride, pad, dilate = _pair(a.kernel, 1), _pair(a.stride, 1), _pair(a.pad, 0), _pair(a.dilate, 1)
        count("conv_sl")
        return Node(KS.CONV_SL, n.name, {"kernel": kernel, "stride": stride, "pad": pad, "dilate": dilate,
                                         "num_filter": int(a.num_filter), "no_bias": bool(a.no_bias)},
                    [to_sl(ins[0])] + ins[1:]), SL
    if op is POOLING and a.pool_type == "max" and not a.global_pool and two_d and (a.layout or "NCHW") == "NCHW" \
            and a.pooling_convention in ("valid", "full") and (_samples_last(xs) or ins[0] in lay.sl):
        kernel, stride, pad = _pair(a.kernel, 1), _pair(a.stride, 1), _pair(a.pad, 0)
        if stride != kernel or pad != (0, 0) or a.pooling_convention == "full" and (xs[2] % kernel[0] or xs[3] % kernel[1]):
            return None
        count("maxpool_sl")
        return Node(KS.MAXPOOL_SL, n.name, {"kernel": kernel}, [to_sl(ins[0])]), SL
    if op is BATCHNORM and a.axis in (1, -3) and not a.use_global_stats and not a.output_mean_var and _samples_last(xs):
        count("batchnorm_train_sl")
        return Node(KS.BN_TRAIN_SL, n.name, {"eps": float(a.eps), "fix_gamma": bool(a.fix_gamma)},
                    [to_sl(ins[0])] + ins[1:5]), SL
    if op is BACKWARD_BN and a.axis in (1, -3) and a.is_train and a.forward_train and not a.use_global_stats \
            and _samples_last(xs):
        count("batchnorm_train_backward_sl")
        return Node(KS.BN_TRAIN_BWD_SL, n.name, {"eps": float(a.eps), "momentum": float(a.momentum),
                                                  "fix_gamma": bool(a.fix_gamma)},
                    [to_sl(ins[0]), to_sl(ins[1])] + ins[2:6]), (SL, False, False)
    if op is BACKWARD_POOL and a.pool_type == "max" and not a.global_pool and two_d and (a.layout or "NCHW") == "NCHW" \
            and a.pooling_convention in ("valid", "full") and _samples_last(shape_of(n.inputs[1])):
        kernel, stride, pad = _pair(a.kernel, 1), _pair(a.stride, 1), _pair(a.pad, 0)
        N, C, H, W = shape_of(n.inputs[1])
        if stride == kernel and pad == (0, 0) and xs[2] * kernel[0] <= H and xs[3] * kernel[1] <= W:
            count("maxpool_backward_sl")
            return Node(KS.MAXPOOL_BWD_SL, n.name, {"kernel": kernel}, [to_sl(e) for e in ins[:3]]), SL
        return None
    if op is KS.POOL_TAPS and (_samples_last(xs) or ins[0] in lay.sl):
        count("pool_taps_sl")
        return Node(KS.POOL_TAPS_SL, n.name, dict(n.attrs), [to_sl(e) for e in ins]), SL
    if op is KS.MAXPOOL_BWD_TAPS and _samples_last((xs[0], xs[1], xs[2] * a.kernel[0], xs[3] * a.kernel[1])):
        count("maxpool_backward_taps_sl")
        return Node(KS.MAXPOOL_BWD_TAPS_SL, n.name, dict(n.attrs), [to_sl(e) for e in ins]), SL
    if op in (CONV_WGRAD, CONV_DGRAD) and a.num_group == 1 and two_d and _samples_last(xs):
        attrs = {k: tuple(getattr(a, k)) for k in ("kernel", "stride", "dilate", "pad")}
        data = shape_of(n.inputs[1] if op is CONV_WGRAD else n.inputs[2])
        if not _samples_last(data) or data[1] * int(np.prod(attrs["kernel"])) > _SL_MAX_COLUMNS:
            return None
        if op is CONV_WGRAD:
            count("conv_wgrad_sl")
            return Node(KS.WGRAD_SL, n.name, {**attrs, "no_bias": bool(a.no_bias)},
                        [to_sl(ins[0]), to_sl(ins[1]), ins[2]]), False
        N, C, H, W = data
        count("conv_dgrad_sl")
        return Node(KS.DGRAD_SL, n.name, {**attrs, "data_shape": (C, H, W, N)}, [to_sl(ins[0]), ins[1]]), SL
    return None


def _lower_training(n: Node, op: Any, a: Any, xs: tuple, ins: list[Entry], shape_of, to_nhwc, to_orig, nhwc: set,
                    ctx: PassContext, count) -> tuple[Node, Any] | None:
    """Training-mode BatchNorm and the gradients of a training program onto the NHWC kernels of
    ``kernels/train.py``; None when the node is not one of them (or not in a form they take)."""
    if not ctx.training or len(xs) != 4:
        return None
    # (a weight gradient's output-gradient channels are its GEMM's rows: its data's decide, below)
    if op is not CONV_WGRAD and _train_channel_first(shape_of(n.inputs[2]) if op is CONV_DGRAD else
                                                     shape_of(n.inputs[1]) if op is BACKWARD_POOL else xs):
        return _lower_training_cf(n, op, a, xs, ins, shape_of, to_orig, count)
    if op is BATCHNORM and a.axis in (1, -3) and not a.use_global_stats and not a.output_mean_var:
        count("batchnorm_train")
        return Node(KT.BN_TRAIN, n.name, {"eps": float(a.eps), "fix_gamma": bool(a.fix_gamma)},
                    [to_nhwc(ins[0])] + ins[1:5]), True
    if op is BACKWARD_BN and a.axis in (1, -3) and a.is_train and a.forward_train and not a.use_global_stats:
        count("batchnorm_train_backward")
        return Node(KT.BN_TRAIN_BWD, n.name, {"eps": float(a.eps), "momentum": float(a.momentum),
                                               "fix_gamma": bool(a.fix_gamma)},
                    [to_nhwc(ins[0]), to_nhwc(ins[1])] + ins[2:6]), (True, False, False)
    if op is BACKWARD_POOL and a.pool_type == "max" and not a.global_pool and (a.layout or "NCHW") == "NCHW" \
            and a.pooling_convention in ("valid", "full") and len(tuple(a.kernel)) == 2:
        count("maxpool_backward")
        attrs = {"kernel": _pair(a.kernel, 1), "stride": _pair(a.stride, 1), "pad": _pair(a.pad, 0)}
        return Node(KT.MAXPOOL_BWD, n.name, attrs, [to_nhwc(e) for e in ins]), True
    if op is CONV_WGRAD and a.num_group == 1 and len(tuple(a.kernel)) == 2 \
            and shape_of(n.inputs[1])[1] >= _WGRAD_NHWC_MIN_CHANNELS:
        count("conv_wgrad")
        attrs = {k: tuple(getattr(a, k)) for k in ("kernel", "stride", "dilate", "pad")}
        return Node(KT.WGRAD_NHWC, n.name, {**attrs, "no_bias": bool(a.no_bias)},
                    [to_nhwc(ins[0]), to_nhwc(ins[1]), ins[2]]), False
    if op is CONV_WGRAD and a.num_group == 1 and len(tuple(a.kernel)) == 2 and ins[0] in nhwc \
            and not a.g_samples_last and not wgrad_samples_last(a, shape_of(n.inputs[0])):
        # few input channels (a first convolution): channel-first columns, the output gradient read
        # channels-last where it is (no transposed copy of a network's largest gradient)
        count("conv_wgrad_nhwc_ograd")
        return Node(CONV_WGRAD, n.name, {**n.attrs, "g_nhwc": True}, [ins[0], to_orig(ins[1]), ins[2]]), False
    if op is CONV_DGRAD and a.num_group == 1 and len(tuple(a.kernel)) == 2:
        count("conv_dgrad")
        N, C, H, W = shape_of(n.inputs[2])
        attrs = {k: tuple(getattr(a, k)) for k in ("kernel", "stride", "dilate", "pad")}
        return Node(KT.DGRAD_NHWC, n.name, {**attrs, "data_shape": (N, H, W, C)}, [to_nhwc(ins[0]), ins[1]]), True
    return None


def _few_channels_cf(n: Node, op: Any, a: Any, xs: tuple, ins: list[Entry], shape_of, static, to_orig,
                     nhwc: set, ctx: PassContext, count) -> Node | None:
    """In a training program, a channel-first tensor of few channels (LeNet's first layer) stays
    channel-first through a convolution of few filters (channel-first columns, ``_hy_conv_cf``) and
    a max pool whose windows tile it (``_hy_maxpool_cf``): the channel-first BatchNorm between them
    then needs no transposes, and the pool's output (4x smaller) is the one transposed for the next
    convolution. None for anything else."""
    if op not in (CONVOLUTION, POOLING) or not ctx.training or len(xs) != 4 or ins[0] in nhwc \
            or (a.layout or "NCHW") != "NCHW":
        return None
    if op is CONVOLUTION and int(a.num_filter) < _TRAIN_NHWC_MIN_CHANNELS and int(a.num_group) == 1 \
            and xs[1] * int(np.prod(tuple(a.kernel) or (1,))) <= _CONV_CF_MAX_COLUMNS \
            and all(static(e) for e in n.inputs[1:]):
        kernel, stride, pad, dilate = _pair(a.kernel, 1), _pair(a.stride, 1), _pair(a.pad, 0), _pair(a.dilate, 1)
        if None in (kernel, stride, pad, dilate) or len(tuple(a.kernel)) != 2:
            return None
        count("conv_cf")
        return Node(KT.CONV_CF, n.name, {"kernel": kernel, "stride": stride, "pad": pad, "dilate": dilate,
                                         "num_filter": int(a.num_filter), "no_bias": bool(a.no_bias)},
                    [to_orig(e) for e in ins])
    if op is POOLING and a.pool_type == "max" and not a.global_pool and _train_channel_first(xs) \
            and a.pooling_convention in ("valid", "full") and len(tuple(a.kernel)) == 2:
        kernel, stride, pad = _pair(a.kernel, 1), _pair(a.stride, 1), _pair(a.pad, 0)
        if kernel is None or stride != kernel or pad != (0, 0):
            return None
        if a.pooling_convention == "full" and (xs[2] % kernel[0] or xs[3] % kernel[1]):
            return None          # a window past the edge
        count("maxpool_cf")
        return Node(KT.MAXPOOL_CF, n.name, {"kernel": kernel}, [ins[0]])
    return None


# the channel-first convolution's columns per output (C * kh * kw) at most: few-channel inputs
_CONV_CF_MAX_COLUMNS = 64


def _samples_last_ograd(out: Node, n: Node, shape_of, samples_last, count) -> Node:
    """A channel-first data gradient (and a weight gradient that reads its output gradient with the
    sample axis innermost) takes the output gradient from a shared ``_hy_samples_last`` node instead
    of transposing it itself: LeNet's second convolution's two gradients transposed the same 64 x 16
    x 8 x 8 gradient each."""
    if out.op is not CONV_DGRAD and not (out.op is CONV_WGRAD and wgrad_samples_last(n.resolved, shape_of(n.inputs[0]))):
        return out
    if out.attrs.get("g_samples_last") or len(shape_of(n.inputs[0]) or ()) < 3:
        return out
    count("conv_grad_samples_last")
    return Node(out.op, out.name, {**out.attrs, "g_samples_last": True},
                [samples_last(out.inputs[0])] + list(out.inputs[1:]), out.extra)


def _relu_into_maxpool_bwd(n: Node, ins: list[Entry], uses: dict, lay: _Layouts, to_nhwc,
                           count) -> tuple[Node, Any] | None:
    """relu's gradient right after the backward of the max pool that read relu's output (``relu ->
    MaxPool`` in the forward): the pool's training kernel applies it to the pool's output gradient
    (a quarter of the positions for 2x2 windows; the tap a gradient goes to holds the window's
    maximum, whose relu gradient is ``max > 0``), one pass fewer. None for anything else."""
    if n.op is not BACKWARD_ACT or n.resolved.act_type != "relu" or len(ins) != 3 or uses.get(n.inputs[0], 0) != 1:
        return None
    pool = ins[0].node
    if pool.op not in (KT.MAXPOOL_BWD, KT.MAXPOOL_BWD_CF, KS.MAXPOOL_BWD_SL) or pool.attrs.get("relu") \
            or ins[0].index != 0:
        return None
    y = ins[2]
    if pool.op is KS.MAXPOOL_BWD_SL:
        if pool.inputs[1] != lay.to_sl(y):
            return None
    elif pool.inputs[1] != (to_nhwc(y) if pool.op is KT.MAXPOOL_BWD and y not in lay.nhwc else y):
        return None
    count("relu_into_maxpool_backward")
    return Node(pool.op, n.name, {**pool.attrs, "relu": True}, list(pool.inputs)), \
        SL if pool.op is KS.MAXPOOL_BWD_SL else pool.op is KT.MAXPOOL_BWD


def _lower_training_cf(n: Node, op: Any, a: Any, xs: tuple, ins: list[Entry], shape_of, to_orig,
                       count) -> tuple[Node, Any] | None:
    """Training-mode BatchNorm and max-pool backward of few-channel layers onto the channel-first
    kernels of ``kernels/train.py`` (sample chunks on the pool); None for anything else."""
    if op not in (BATCHNORM, BACKWARD_BN, BACKWARD_POOL):
        return None
    ins = [to_orig(e) for e in ins]
    if op is BATCHNORM and a.axis in (1, -3) and not a.use_global_stats and not a.output_mean_var:
        count("batchnorm_train_cf")
        return Node(KT.BN_TRAIN_CF, n.name, {"eps": float(a.eps), "fix_gamma": bool(a.fix_gamma)}, ins[:5]), False
    if op is BACKWARD_BN and a.axis in (1, -3) and a.is_train and a.forward_train and not a.use_global_stats:
        count("batchnorm_train_backward_cf")
        return Node(KT.BN_TRAIN_BWD_CF, n.name, {"eps": float(a.eps), "momentum": float(a.momentum),
                                                  "fix_gamma": bool(a.fix_gamma)}, ins[:6]), False
    if op is BACKWARD_POOL and a.pool_type == "max" and not a.global_pool and (a.layout or "NCHW") == "NCHW" \
            and a.pooling_convention in ("valid", "full") and len(tuple(a.kernel)) == 2:
        kernel, stride, pad = _pair(a.kernel, 1), _pair(a.stride, 1), _pair(a.pad, 0)
        N, C, H, W = shape_of(n.inputs[1])
        OH, OW = xs[2:]
        if stride == kernel and pad == (0, 0) and OH * kernel[0] <= H and OW * kernel[1] <= W:
            count("maxpool_backward_cf")
            return Node(KT.MAXPOOL_BWD_CF, n.name, {"kernel": kernel}, ins[:3]), False
    return None


PASS = Pass("layout", lower)
