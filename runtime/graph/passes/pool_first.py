"""Average pooling moved before the 1x1 convolution that feeds it.

A 1x1 convolution is the same linear map ``x -> W x + b`` at every pixel, and average pooling a
weighted sum over pixels whose weights sum to one (MXNet counts only the pixels inside the
input when there is no padding, partial windows of the ``full`` convention included), so

    Pooling(avg)(Convolution_1x1(x)) == Convolution_1x1(Pooling(avg)(x))

The right-hand side convolves the pooled, smaller image: DenseNet's transition layers
(BN-ReLU-conv1x1-avgpool 2x2) do a quarter of their multiplies. With zero padding the padded
zeros enter the average, which still commutes with ``W`` but not with the bias: padded pools
move only before bias-free convolutions. Applies when the pooling shrinks the image and is the
convolution's only reader.
"""
from __future__ import annotations

from ..ir import Entry, Graph, Node
from . import Pass, PassContext, registry_op

POOLING, CONVOLUTION = registry_op("Pooling"), registry_op("Convolution")


def _pair(v, default: int) -> tuple:
    v = tuple(v or ())
    return v if v else (default, default)


def pool_before_pointwise_conv(graph: Graph, ctx: PassContext) -> Graph:
    meta = None
    mapping: dict[Entry, Entry] = {}
    moved = 0
    for p in graph.nodes:
        if p.op is not POOLING or p.resolved.pool_type != "avg":
            continue
        pa = p.resolved
        src = p.inputs[0]
        c = src.node
        if c.op is not CONVOLUTION or src.index != 0 or graph.uses(src) != 1 \
                or src in graph.outputs:
            continue
        ca = c.resolved
        if (ca.layout or "NCHW") != "NCHW" or (pa.layout or "NCHW") != "NCHW" or len(tuple(ca.kernel)) != 2 \
                or tuple(ca.kernel) != (1, 1) or _pair(ca.stride, 1) != (1, 1) or _pair(ca.pad, 0) != (0, 0):
            continue
        padded = not pa.global_pool and any(_pair(pa.pad, 0))
        if padded and not ca.no_bias:
            continue
        if meta is None:
            meta = ctx.infer(graph)
        s_in, s_out = meta[c.entry()].shape, meta[p.entry()].shape
        if s_in is None or s_out is None or len(s_in) != 4 or s_out[2] * s_out[3] >= s_in[2] * s_in[3]:
            continue                          # only worth it when the pooling shrinks the image
        # the convolution now produces what the pooling did: it takes the pooling's name
        pooled = Node(p.op, ctx.fresh(c.name + "_pooled_input"), dict(p.attrs), [c.inputs[0]], p.extra)
        conv = Node(c.op, p.name, dict(c.attrs), [pooled.entry()] + list(c.inputs[1:]), c.extra)
        mapping[p.entry()] = conv.entry()
        moved += 1
    ctx.stats["pool_first"] = {"moved": moved}
    return graph.substitute(mapping)


PASS = Pass("pool_first", pool_before_pointwise_conv)
