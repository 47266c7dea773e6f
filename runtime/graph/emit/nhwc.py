"""Emitters of the NHWC internal ops (``kernels/nhwc.py``): layout changes, pooling, dense, affine,
activations, adds, channel concat, reshapes, their epilogues in place."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ir import Entry
from ..kernels import nhwc as K
from ..kernels.common import apply_act
from ..kernels.dense import split_matmul
from ..kernels.fastpath import FAST_MIN_SIZE, clip_, zeros_like_view
from ..kernels.nhwc import (
    ACT,
    ADD,
    AFFINE,
    CONCAT,
    DENSE,
    LAYOUT,
    POOL,
    RESHAPE,
    build_affine,
    build_pool,
)
from ..kernels.parallel import chunks_for
from .registry import emitter


def _relu_fn(em: Any, act: tuple) -> str:
    """relu's maximum: ``np.fmax`` for oneDNN's (NaN gives 0), ``np.maximum`` for ``("relu", "nan")``."""
    return "_maximum" if len(act) > 1 else em.bind("fmax", np.fmax)


def act_lines(em: Any, buf: str, act: tuple, shape: tuple | None = None, dtype: Any = np.float32) -> list[str]:
    """Inline code applying ``act`` to ``buf`` (of ``shape``, when known) in place."""
    if not act:
        return []
    kind = act[0]
    big = shape is not None and int(math.prod(shape)) >= FAST_MIN_SIZE and np.dtype(dtype).kind == "f"
    if kind == "relu":
        mx = _relu_fn(em, act)
        if big:     # numpy's maximum with a scalar is an unvectorized loop: read a zeros view
            z = em.bind("zeros", zeros_like_view(tuple(shape), dtype))
            return [f"{mx}({buf}, {z}, out={buf})"]
        zero = em.bind("zero", np.dtype(dtype).type(0))     # a same-dtype scalar: no type resolution
        return [f"{mx}({buf}, {zero}, out={buf})"]
    if kind == "clip" and np.dtype(dtype).kind == "f":     # one vectorized pass (see fastpath.clip_)
        lo = em.bind("lo", np.dtype(dtype).type(act[1]))
        hi = em.bind("hi", np.dtype(dtype).type(act[2]))
        return [f"{buf}.clip({lo}, {hi}, out={buf})"]
    if kind == "clip" and big:
        f = em.bind("clip", clip_)
        return [f"{f}({buf}, {float(act[1])!r}, {float(act[2])!r})"]
    if kind == "clip":
        lo = em.bind("lo", np.float32(act[1]))
        hi = em.bind("hi", np.float32(act[2]))
        return [f"_maximum({buf}, {lo}, out={buf})", f"_minimum({buf}, {hi}, out={buf})"]
    if kind == "tanh":
        return [f"np.tanh({buf}, out={buf})"]
    f = em.bind("act", apply_act)
    a = em.bind("actspec", act)
    return [f"{f}({buf}, {a})"]


@emitter(LAYOUT)
def _emit_layout(em: Any) -> list[str]:
    perm = em.bind("perm", tuple(em.node.resolved.perm))
    view = em.node.resolved.view
    if view:
        em.alias(0)
        lines = [f"{em.outs[0]} = {em.args[0]}.transpose({perm})"]
        if view == 2:
            f = em.bind("contiguous", np.ascontiguousarray)
            lines.append(f"if not {em.outs[0]}.flags.c_contiguous: {em.outs[0]} = {f}({em.outs[0]})")
        return lines
    buf = em.out_buffer(0)
    return [f"_copyto({buf}, {em.args[0]}.transpose({perm}))", f"{em.outs[0]} = {buf}"]


@emitter(POOL)
def _emit_pool(em: Any) -> list[str]:
    fn, scratch = build_pool(em.node.resolved, em.in_shapes[0], em.in_dtypes[0])
    if getattr(fn, "parallel", False):
        em.plan.parallel = True
    k = em.bind("pool", fn)
    buf = em.out_buffer(0)
    sc = [em.scratch(s, d) for s, d in scratch]
    return [f"{k}({', '.join([em.args[0], buf] + sc)})", f"{em.outs[0]} = {buf}"]


@emitter(DENSE)
def _emit_dense(em: Any) -> list[str]:
    a = em.node.resolved
    if a.aug:
        return _emit_dense_aug(em)
    x = em.args[0]
    xs = em.in_shapes[0]
    lines = []
    if a.flatten and len(xs) != 2:
        x2 = em.names.make("flat")
        shp = em.bind("shape", (xs[0], int(math.prod(xs[1:]))))
        lines.append(f"{x2} = {x}.reshape({shp})")
        x = x2
    elif not a.flatten and len(xs) != 2:
        x2 = em.names.make("flat")
        shp = em.bind("shape", (int(math.prod(xs[:-1])), xs[-1]))
        lines.append(f"{x2} = {x}.reshape({shp})")
        x = x2
    buf = em.out_buffer(0)
    o2 = buf
    if not a.flatten and len(xs) != 2:
        o2 = em.names.make("flat")
        shp = em.bind("shape", (int(math.prod(xs[:-1])), a.num_hidden))
        lines.append(f"{o2} = {buf}.reshape({shp})")
    # np.dot: the same BLAS call as matmul for 2-D float operands, with less dispatch overhead
    # (0.5 us a call: a tenth of a batch-1 MLP layer); it needs one float dtype throughout
    dts = {np.dtype(d) for d in em.in_dtypes[:2]}
    mm = "_dot" if len(dts) == 1 and dts <= {np.dtype(np.float32), np.dtype(np.float64)} else "_matmul"
    rows = xs[0] if a.flatten else int(math.prod(xs[:-1]))
    split = split_matmul(rows, int(em.in_shapes[1][0]), int(a.num_hidden)) if em.plan.split_dense else None
    if split is not None:      # a training program's large GEMM: column chunks on the thread pool
        em.plan.parallel = True
        lines.append(f"{em.bind('split_matmul', split)}({x}, {em.args[1]}, {o2})")
    else:
        lines.append(f"{mm}({x}, {em.args[1]}, out={o2})")
    if a.has_bias:
        lines.append(f"_add({o2}, {em.args[2]}, out={o2})")
    o2_shape = (xs[0], a.num_hidden) if a.flatten else (int(math.prod(xs[:-1])), a.num_hidden)
    lines += act_lines(em, o2, tuple(a.act or ()), o2_shape, em.out_dtypes[0])
    lines.append(f"{em.outs[0]} = {buf}")
    return lines


def _emit_dense_aug(em: Any) -> list[str]:
    """A single-row dense layer with its bias folded into the matmul: ``[x, 1] @ [W^T; b]``.

    The input row needs a trailing 1. When it comes from another such layer, that layer wrote it
    into a ``(1, n + 1)`` buffer whose last element it set to 1 (``plan.augmented``), so the row is
    read where it is; otherwise it is copied into a scratch row first. Batch-1 MLPs: one add pass
    fewer per layer (1.1 us of a ~7 us layer on this machine) for one copy at the first layer.
    """
    a = em.node.resolved
    plan = em.plan
    xs = em.in_shapes[0]
    n_in, nh = int(math.prod(xs)), int(a.num_hidden)
    dt = np.dtype(em.out_dtypes[0])
    lines = []
    full_in = plan.augmented.get(em.node.inputs[0])
    if full_in is None:
        vb = plan.new((1, n_in + 1), dt, scratch=True)
        row = plan.slot(vb, 0, n_in)
        x = em.args[0] if tuple(xs) == (1, n_in) else f"{em.args[0]}.reshape({em.bind('shape', (1, n_in))})"
        lines += [f"_copyto({row}, {x})", f"{vb.name}[0, {n_in}] = 1"]
        full_in = vb.name
    # np.dot (less dispatch than matmul) needs one float dtype throughout
    dts = {np.dtype(d) for d in em.in_dtypes[:2]} | {dt}
    mm = "_dot" if len(dts) == 1 and dts <= {np.dtype(np.float32), np.dtype(np.float64)} else "_matmul"
    out_e = Entry(em.node, 0)
    users = em.users(out_e)
    chained = (not em.is_output[0] and len(em.out_shapes[0]) == 2 and bool(users)
               and all(u.op is DENSE and u.resolved.aug and u.inputs[0] == out_e and out_e not in u.inputs[1:]
                       for u in users))
    if chained:
        vb = plan.new((1, nh + 1), dt)
        em.owners[0] = frozenset({vb.index})
        buf = plan.slot(vb, 0, nh)
        lines += [f"{mm}({full_in}, {em.args[1]}, out={buf})", f"{vb.name}[0, {nh}] = 1"]
        plan.augmented[out_e] = vb.name
    elif em.is_output[0] and len(em.out_shapes[0]) == 2:
        buf = em.names.make(em.outs[0] + "_out")       # a fresh array, as outputs must be
        lines.append(f"{buf} = {mm}({full_in}, {em.args[1]})")
    else:
        buf = em.out_buffer(0)
        o2 = buf
        if len(em.out_shapes[0]) != 2:
            o2 = em.names.make("flat")
            lines.append(f"{o2} = {buf}.reshape({em.bind('shape', (1, nh))})")
        lines.append(f"{mm}({full_in}, {em.args[1]}, out={o2})")
        buf_act = o2
        lines += act_lines(em, buf_act, tuple(a.act or ()), (1, nh), dt)
        return lines + [f"{em.outs[0]} = {buf}"]
    lines += act_lines(em, buf, tuple(a.act or ()), (1, nh), dt)
    return lines + [f"{em.outs[0]} = {buf}"]


@emitter(AFFINE)
def _emit_affine(em: Any) -> list[str]:
    buf = em.inplace(0, 0) or em.out_buffer(0)
    x, s, t = em.args
    act = tuple(em.node.resolved.act or ())
    shape = tuple(em.in_shapes[0])
    rows = int(math.prod(shape[:-1])) if len(shape) > 1 else 1
    nch = chunks_for(float(math.prod(shape)) * (2 + bool(act)), rows, min_work=K.AFFINE_PARALLEL_WORK)
    if nch > 1 or int(math.prod(shape)) >= FAST_MIN_SIZE:
        # memory-bound passes over a big tensor: tiled rows, row chunks on the thread pool
        em.plan.parallel = em.plan.parallel or nch > 1
        k = em.bind("affine", build_affine(shape, act, nch))
        return [f"{k}({x}, {s}, {t}, {buf})", f"{em.outs[0]} = {buf}"]
    lines = [f"_multiply({x}, {s}, out={buf})", f"_add({buf}, {t}, out={buf})"]
    lines += act_lines(em, buf, act, shape, em.out_dtypes[0])
    return lines + [f"{em.outs[0]} = {buf}"]


@emitter(ACT)
def _emit_act(em: Any) -> list[str]:
    act = tuple(em.node.resolved.act)
    x = em.args[0]
    buf = em.inplace(0, 0)
    lines = []
    if buf is None:
        buf = em.out_buffer(0)
        if act[0] == "relu":
            shape = tuple(em.out_shapes[0])
            mx = _relu_fn(em, act)
            if int(math.prod(shape)) >= FAST_MIN_SIZE and np.dtype(em.out_dtypes[0]).kind == "f":
                z = em.bind("zeros", zeros_like_view(shape, em.out_dtypes[0]))
                return [f"{mx}({x}, {z}, out={buf})", f"{em.outs[0]} = {buf}"]
            return [f"{mx}({x}, 0, out={buf})", f"{em.outs[0]} = {buf}"]
        lines.append(f"_copyto({buf}, {x})")
    return lines + act_lines(em, buf, act, tuple(em.out_shapes[0]), em.out_dtypes[0]) + [f"{em.outs[0]} = {buf}"]


@emitter(ADD)
def _emit_add(em: Any) -> list[str]:
    buf = em.inplace(0, 0) or em.inplace(0, 1) or em.out_buffer(0)
    lines = [f"_add({em.args[0]}, {em.args[1]}, out={buf})"]
    lines += act_lines(em, buf, tuple(em.node.resolved.act or ()), tuple(em.out_shapes[0]), em.out_dtypes[0])
    return lines + [f"{em.outs[0]} = {buf}"]


@emitter(CONCAT)
def _emit_concat(em: Any) -> list[str]:
    buf = em.out_buffer(0)
    ax = int(em.node.resolved.axis)
    return [f"_concatenate(({', '.join(em.args)},), axis={ax}, out={buf})", f"{em.outs[0]} = {buf}"]


@emitter(RESHAPE)
def _emit_reshape(em: Any) -> list[str]:
    em.alias(0)
    shp = em.bind("shape", tuple(em.node.resolved.shape))
    return [f"{em.outs[0]} = {em.args[0]}.reshape({shp})"]
