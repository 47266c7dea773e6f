"""Emitters of the NHWC training kernels (``kernels/train.py``) and of the elementwise gradients a
training program runs most: outputs in planned buffers (in place over a dead input when shapes
allow), so a backward program's activations' gradients live in the arena, reused step by step,
instead of fresh arrays held until the call returns."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...ops.registry import find_op
from ..kernels import train as KT
from ..kernels import train_sl as KS
from ..kernels.fastpath import FAST_MIN_SIZE, zeros_like_view
from ..kernels.parallel import num_threads
from .registry import emitter


def _parallel(em: Any) -> None:
    if num_threads() > 1:
        em.plan.parallel = True


def _into(em: Any, name: str, kernel: Any, *, inplace: bool = False, extra_outs: bool = False,
          n_args: int | None = None) -> list[str]:
    """``kernel(attrs, *inputs[:n_args], buf)`` writing output 0 into a planned buffer (over a dead
    input 0 when ``inplace``); with ``extra_outs`` the kernel returns the node's other outputs."""
    _parallel(em)
    buf = (em.inplace(0, 0) if inplace else None) or em.out_buffer(0)
    k = em.bind(name, kernel)
    a = em.bind("attrs", em.node.resolved)
    call = f"{k}({a}, {', '.join(em.args[:n_args])}, {buf})"
    return [f"{', '.join(em.outs[1:])} = {call}" if extra_outs else call, f"{em.outs[0]} = {buf}"]


@emitter(KT.BN_TRAIN)
def _emit_bn_train(em: Any) -> list[str]:
    return _into(em, "bn_train", KT.bn_train_into, inplace=True, n_args=3)   # data, gamma, beta


@emitter(KT.BN_TRAIN_BWD)
def _emit_bn_train_bwd(em: Any) -> list[str]:
    return _into(em, "bn_train_bwd", KT.bn_train_bwd_into, inplace=True, extra_outs=True)


@emitter(KT.BN_TRAIN_CF)
def _emit_bn_train_cf(em: Any) -> list[str]:
    return _into(em, "bn_train_cf", KT.bn_train_cf_into, inplace=True, n_args=3)


@emitter(KT.BN_TRAIN_BWD_CF)
def _emit_bn_train_bwd_cf(em: Any) -> list[str]:
    return _into(em, "bn_train_bwd_cf", KT.bn_train_bwd_cf_into, inplace=True, extra_outs=True)


@emitter(KT.CONV_CF)
def _emit_conv_cf(em: Any) -> list[str]:
    return _into(em, "conv_cf", KT.conv_cf_into)


@emitter(KT.MAXPOOL_CF)
def _emit_maxpool_cf(em: Any) -> list[str]:
    return _into(em, "maxpool_cf", KT.maxpool_cf_into)


@emitter(KT.MAXPOOL_BWD_CF)
def _emit_maxpool_bwd_cf(em: Any) -> list[str]:
    return _into(em, "maxpool_bwd_cf", KT.maxpool_bwd_cf_into)


@emitter(KT.MAXPOOL_BWD)
def _emit_maxpool_bwd(em: Any) -> list[str]:
    return _into(em, "maxpool_bwd", KT.maxpool_bwd_into)


@emitter(KT.DGRAD_NHWC)
def _emit_dgrad(em: Any) -> list[str]:
    """The strided data gradient into a planned buffer, its re-laid-out weight, columns and padded
    buffers in planned scratch."""
    _parallel(em)
    dt = np.result_type(em.in_dtypes[1], em.in_dtypes[0])
    fn, scratch = KT.build_dgrad(em.node.resolved, em.in_shapes[0], em.in_shapes[1], dt)
    k = em.bind("dgrad", fn)
    buf = em.out_buffer(0)
    sc = [em.scratch(s, d) for s, d in scratch]
    return [f"{k}({', '.join([em.args[0], em.args[1], buf] + sc)})", f"{em.outs[0]} = {buf}"]


@emitter(KT.WGRAD_NHWC)
def _emit_wgrad(em: Any) -> list[str]:
    """The weight (and bias) gradient written where its buffers are: the parameters' gradient
    buffers when the backward is given them (``output_args``), else planned buffers; its padded
    copies, patch columns and partial sums in planned scratch."""
    _parallel(em)
    fn, scratch = KT.build_wgrad(em.node.resolved, em.in_shapes[0], em.in_shapes[1], em.in_dtypes[0])
    k = em.bind("wgrad", fn)
    bufs = [em.out_buffer(i) for i in range(len(em.outs))]
    sc = [em.scratch(s, d) for s, d in scratch]
    args = [em.args[0], em.args[1], bufs[0], bufs[1] if len(bufs) > 1 else "None"] + sc
    return [f"{k}({', '.join(args)})"] + [f"{o} = {b}" for o, b in zip(em.outs, bufs)]


@emitter(KS.CONV_SL)
def _emit_conv_sl(em: Any) -> list[str]:
    return _into(em, "conv_sl", KS.conv_sl_into)


@emitter(KS.BN_TRAIN_SL)
def _emit_bn_train_sl(em: Any) -> list[str]:
    return _into(em, "bn_train_sl", KS.bn_train_sl_into, inplace=True, n_args=3)


@emitter(KS.BN_TRAIN_BWD_SL)
def _emit_bn_train_bwd_sl(em: Any) -> list[str]:
    return _into(em, "bn_train_bwd_sl", KS.bn_train_bwd_sl_into, inplace=True, extra_outs=True)


@emitter(KS.MAXPOOL_SL)
def _emit_maxpool_sl(em: Any) -> list[str]:
    return _into(em, "maxpool_sl", KS.maxpool_sl_into)


@emitter(KS.MAXPOOL_BWD_SL)
def _emit_maxpool_bwd_sl(em: Any) -> list[str]:
    return _into(em, "maxpool_bwd_sl", KS.maxpool_bwd_sl_into)


@emitter(KS.POOL_TAPS_SL)
def _emit_pool_taps_sl(em: Any) -> list[str]:
    return _into(em, "pool_taps_sl", KS.pool_taps_sl_into)


@emitter(KS.MAXPOOL_BWD_TAPS_SL)
def _emit_maxpool_bwd_taps_sl(em: Any) -> list[str]:
    return _into(em, "maxpool_bwd_taps_sl", KS.maxpool_bwd_taps_sl_into)


@emitter(KS.DGRAD_SL)
def _emit_dgrad_sl(em: Any) -> list[str]:
    return _into(em, "dgrad_sl", KS.dgrad_sl_into)


@emitter(KS.WGRAD_SL)
def _emit_wgrad_sl(em: Any) -> list[str]:
    k = em.bind("wgrad_sl", KS._wgrad_sl)
    a = em.bind("attrs", em.node.resolved)
    return [f"{', '.join(em.outs)}, *_ = {k}({a}, {', '.join(em.args)})"]


@emitter(find_op("_backward_Activation"))
def _emit_backward_activation(em: Any) -> list[str]:
    """relu's gradient ``g * (y > 0)`` into a planned buffer (over ``g`` when it is dead), the mask
    in a scratch buffer; other activations call the registry kernel."""
    a = em.node.resolved
    g, y = em.args[0], em.args[2]
    dt = np.dtype(em.out_dtypes[0])
    if a.act_type != "relu" or dt != np.float32 or np.dtype(em.in_dtypes[2]) != dt or np.dtype(em.in_dtypes[0]) != dt:
        k = em.bind("backward_activation", em.node.op.kernel(a, em.in_shapes, em.in_dtypes))
        return [f"{em.outs[0]} = {k}({', '.join(em.args)})"]
    shape = tuple(em.out_shapes[0])
    buf = em.inplace(0, 0) or em.out_buffer(0)
    mask = em.scratch(shape, np.bool_)
    zero = em.bind("zeros", zeros_like_view(shape, dt)) if int(np.prod(shape)) >= FAST_MIN_SIZE \
        else em.bind("zero", dt.type(0))
    return [f"np.greater({y}, {zero}, out={mask})", f"_multiply({g}, {mask}, out={buf})", f"{em.outs[0]} = {buf}"]


@emitter(find_op("add_n"))
def _emit_add_n(em: Any) -> list[str]:
    """The sum of same-shaped, same-dtype arrays in order (as the registry kernel), into a planned
    buffer, over a dead input when there is one; otherwise the registry kernel."""
    shapes = {tuple(s) for s in em.in_shapes}
    dts = {np.dtype(d) for d in em.in_dtypes} | {np.dtype(em.out_dtypes[0])}
    if len(shapes) != 1 or len(dts) != 1 or len(em.args) < 2 or shapes != {tuple(em.out_shapes[0])}:
        k = em.bind("add_n", em.node.op.kernel(em.node.resolved, em.in_shapes, em.in_dtypes))
        return [f"{em.outs[0]} = {k}({', '.join(em.args)})"]
    buf = em.inplace(0, 0) or em.out_buffer(0)
    lines = [f"_add({em.args[0]}, {em.args[1]}, out={buf})"]
    lines += [f"_add({buf}, {x}, out={buf})" for x in em.args[2:]]
    return lines + [f"{em.outs[0]} = {buf}"]
