"""Epilogue fusion: bias + residual add + activation folded into the producing kernel, applied
in place on its output buffer.

On the lowered graph: ``_hy_act(_hy_conv(...))`` (or after ``_hy_dense``, ``_hy_affine``,
``_hy_add``, the samples-last training BatchNorm) becomes the producer with ``act`` set; ``_hy_add(_hy_conv(...), r)`` becomes the
convolution with ``r`` as its residual input (added after the bias). Only when the producer's
output has no other user and is not a graph output.

Prologue fusion: ``_hy_conv(_hy_affine(x))`` for a convolution whose algorithm accepts a prologue
(``ConvAlgo.prologue``: a 1x1 stride-1 gemm) becomes the
convolution reading ``x`` with the affine (and its activation) applied per row chunk in cache
just before each chunk's matmul (pre-activation BatchNorm-ReLU before a 1x1 convolution). With
static parameters and a ReLU, the affine's scale moves into the convolution's weights
(``_hy_pre_fold``): ``relu(s x + t) @ W == clip(x + t/s, lo, hi) @ (s W)``, one pass fewer.
"""
from __future__ import annotations

from ..ir import Entry, Graph, Node
from ..kernels import nhwc as K
from ..kernels import train_sl as KS
from ..kernels.conv import CONV, ConvOperands, get_algo, set_operands
from . import Pass, PassContext

_ACT_HOSTS = {id(CONV), id(K.DENSE), id(K.AFFINE), id(K.ADD), id(KS.BN_TRAIN_SL)}


def fuse_epilogues(graph: Graph, ctx: PassContext) -> Graph:
    fused_res = fused_act = 0
    changed = True
    while changed:
        changed = False
        mapping: dict[Entry, Entry] = {}
        done: set[int] = set()
        for n in graph.nodes:
            if n.op is K.ADD and not n.resolved.act:
                for slot in (1, 0):
                    src = n.inputs[slot]
                    p = src.node
                    if p.op is CONV and id(p) not in done and not p.resolved.has_res and not p.resolved.act \
                            and n.inputs[1 - slot] != src \
                            and graph.uses(src) == 1:
                        set_operands(graph, p, ConvOperands.of(p).replace(residual=n.inputs[1 - slot]))
                        mapping[n.entry()] = src
                        done.add(id(p))
                        done.add(id(n))      # replaced: nothing may fuse into it this round
                        fused_res += 1
                        changed = True
                        break
            elif n.op is K.ACT:
                src = n.inputs[0]
                p = src.node
                if p.op is not None and id(p.op) in _ACT_HOSTS and id(p) not in done and not p.resolved.act \
                        and graph.uses(src) == 1:
                    graph.set_attrs(p, {**p.attrs, "act": n.resolved.act})
                    mapping[n.entry()] = src
                    done.add(id(p))
                    fused_act += 1
                    changed = True
        graph.substitute(mapping)
        if changed:
            graph.reorder()   # a residual input may come later in the old order
    # prologue: a per-channel affine (+activation) whose only reader is a 1x1 stride-1 gemm
    # convolution (pre-activation BatchNorm-ReLU, DenseNet's) is applied row chunk by row chunk
    # inside the convolution, just before each chunk's matmul
    fused_pre = folded_pre = 0
    dyn = ctx.dynamic(graph)
    for n in graph.nodes:
        a = n.resolved if n.op is CONV else None
        if a is None or a.has_pre or not get_algo(a.algo).prologue(a):
            continue
        src = n.inputs[0]
        p = src.node
        if p.op is K.AFFINE and graph.uses(src) == 1 and src not in graph.outputs:
            x, scale, shift = p.inputs
            pre_act = tuple(p.resolved.act or ())
            ops = ConvOperands.of(n)
            static = [e for e in (ops.weight, scale, shift, ops.bias) if e is not None]
            if pre_act[:1] == ("relu",) and not any(id(e.node) in dyn for e in static):
                # BN-ReLU before the 1x1 convolution: its scale moves into the weights (static,
                # recomputed at bind_params), leaving an add and a max per input element
                fold = Node(K.PRE_FOLD, ctx.fresh(n.name + "_prefold"), {"has_bias": ops.bias is not None},
                            [e for e in (ops.weight, scale, shift, ops.bias) if e is not None])
                set_operands(graph, n, ops.replace(data=x, weight=Entry(fold, 0), bias=Entry(fold, 1),
                                            pre_shift=Entry(fold, 2), pre_bounds=Entry(fold, 3)), pre_act=pre_act)
                folded_pre += 1
            else:
                set_operands(graph, n, ops.replace(data=x, pre_scale=scale, pre_shift=shift), pre_act=pre_act)
            fused_pre += 1
    if fused_pre:
        graph.reorder()
    ctx.stats["fuse"] = {"residual": fused_res, "activation": fused_act, "prologue": fused_pre,
                         "prologue_scale_folded": folded_pre}
    return graph


PASS = Pass("fuse", fuse_epilogues)
