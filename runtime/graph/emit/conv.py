"""The emitter of ``_hy_conv``: the algorithm's kernel called on planned buffers, the residual
accumulated in place when its buffer is dead after the convolution."""
from __future__ import annotations

from typing import Any

from ..kernels import conv as KC
from ..kernels.conv import CONV, ConvOperands, ConvSpec, get_algo, operand_names
from .registry import emitter


@emitter(CONV)
def _emit_conv(em: Any) -> list[str]:
    a = em.node.resolved
    fn, scratch = KC.build_conv(a, em.in_shapes[0], em.in_dtypes[0])
    if getattr(fn, "parallel", False):
        em.plan.parallel = True
    k = em.bind(f"conv_{a.algo}", fn)
    ops = ConvOperands.bind(a, em.args)
    buf = None
    spec = ConvSpec.of(a, em.in_shapes[0], em.in_dtypes[0])
    if ops.residual is not None and get_algo(a.algo).residual_inplace(spec):
        # the residual's buffer, when nothing reads it later (and no other operand shares its
        # memory: conv(x) + x): the kernel accumulates into it (BLAS beta = 1) instead of adding it
        # in a pass of its own
        j = operand_names(a).index("residual")
        mine = em.plan.owner(em.node.inputs[j])
        if not any(em.plan.owner(e) & mine for k, e in enumerate(em.node.inputs) if k != j):
            buf = em.inplace(0, j)
    buf = buf or em.out_buffer(0)
    sc = [em.scratch(s, d) for s, d in scratch]
    kw = [f"{n}={v}" for n, v in ops.optional().items()]
    return [f"{k}({', '.join([ops.data, ops.weight, buf] + sc + kw)})", f"{em.outs[0]} = {buf}"]
