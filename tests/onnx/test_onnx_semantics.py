"""MXNet semantics the op fixtures do not pin, checked against our interpreter (itself checked
against MXNet 1.9.1): pooling conventions with padding, loss outputs without their labels,
LayerNorm on an inner axis, integer-valued ops, and every supported opset."""
from __future__ import annotations

import numpy as np
import pytest

from onnx_support import checked, run
from support import assert_close

RNG = np.random.default_rng(7)


def _matches_interpreter(out, feeds: dict, opset: int | None = None) -> None:
    from hybridize.runtime.graph.interpret import evaluate
    from hybridize.runtime.onnx import export_graph
    from hybridize.runtime.onnx.export import graph_inputs

    graph = out.graph()
    names = [v.name for v in graph_inputs(graph, {})]
    model = checked(export_graph(graph, {}, {k: feeds[k].shape for k in names},
                                 [feeds[k].dtype for k in names], opset_version=opset))
    ours = run(model, {k: feeds[k] for k in names})
    refs = [np.asarray(v) for v in evaluate(graph, feeds)]
    assert len(ours) == len(refs)
    for a, b in zip(ours, refs):
        assert a.shape == b.shape and a.dtype == b.dtype
        assert_close(a, b)


# count_include_pad only concerns average pooling
_POOLS = [("max", True), ("avg", True), ("avg", False), ("sum", True), ("lp", True)]


@pytest.mark.parametrize("pool_type,count_include_pad", _POOLS)
@pytest.mark.parametrize("convention", ["valid", "full"])
@pytest.mark.parametrize("geometry", [((3, 3), (2, 2), (1, 1)), ((2, 3), (2, 1), (0, 1)), ((3,), (2,), (1,))])
def test_pooling_conventions_and_padding(pool_type, count_include_pad, convention, geometry) -> None:
    from hybridize.runtime import sym

    kernel, stride, pad = geometry
    x = sym.var("data")
    y = sym.Pooling(x, kernel=kernel, stride=stride, pad=pad, pool_type=pool_type, pooling_convention=convention,
                    count_include_pad=count_include_pad, p_value=2)
    shape = (2, 3) + (7, 8)[:len(kernel)]
    _matches_interpreter(y, {"data": RNG.normal(size=shape).astype(np.float32)})


def test_loss_outputs_export_without_their_labels() -> None:
    from hybridize.runtime import sym
    from hybridize.runtime.onnx.export import graph_inputs

    x = sym.var("data")
    fc = sym.FullyConnected(x, num_hidden=4, no_bias=True, name="fc")
    out = sym.Group([sym.SoftmaxOutput(fc, name="softmax"),
                     sym.LogisticRegressionOutput(fc, name="logistic"),
                     sym.SoftmaxOutput(sym.Reshape(fc, shape=(0, 2, 2)), multi_output=True, name="multi")])
    assert [v.name for v in graph_inputs(out.graph(), {})] == ["data", "fc_weight"]
    labels = {"softmax_label": np.zeros(3, np.float32), "logistic_label": np.zeros((3, 4), np.float32),
              "multi_label": np.zeros((3, 2), np.float32)}     # the interpreter wants them; ONNX does not
    _matches_interpreter(out, {"data": RNG.normal(size=(3, 5)).astype(np.float32),
                               "fc_weight": RNG.normal(size=(4, 5)).astype(np.float32), **labels})


def test_layer_norm_on_an_inner_axis_and_group_norm() -> None:
    from hybridize.runtime import sym

    x = sym.var("data")
    y = sym.LayerNorm(x, sym.var("g"), sym.var("b"), axis=1, eps=1e-3) + \
        sym.GroupNorm(x, sym.var("g2"), sym.var("b2"), num_groups=2)
    _matches_interpreter(y, {"data": RNG.normal(size=(2, 4, 3, 2)).astype(np.float32),
                             "g": RNG.normal(size=(4,)).astype(np.float32), "b": RNG.normal(size=(4,)).astype(np.float32),
                             "g2": RNG.normal(size=(2,)).astype(np.float32),
                             "b2": RNG.normal(size=(2,)).astype(np.float32)})


def test_rounding_modulo_and_comparisons_follow_mxnet() -> None:
    from hybridize.runtime import sym

    x, y = sym.var("x"), sym.var("y")
    out = sym.Group([sym.round(x), sym.fix(x), sym.broadcast_mod(x, y), sym.broadcast_greater(x, y),
                     sym.logical_not(x > 0), sym.argmax(x, axis=1), sym.topk(x, k=2, ret_typ="both"),
                     sym.sort(x, axis=0), sym.one_hot(sym.floor(sym.abs(x)), depth=3)])
    xv = np.array([[-2.5, -1.5, 0.5, 1.5], [2.5, -0.4, 3.7, -3.7]], np.float32)
    yv = np.array([[1.5, -2.0, 0.7, -1.0]], np.float32)
    _matches_interpreter(out, {"x": xv, "y": yv})


@pytest.mark.parametrize("opset", [13, 15, 17, 18, 21])
def test_every_opset_writes_the_same_meaning(opset: int) -> None:
    from hybridize.runtime import sym

    x = sym.var("data")
    parts = sym.split(x, num_outputs=2, axis=1)
    y = sym.mean(parts[0], axis=(2,), keepdims=True) + sym.max(parts[1], axis=2, keepdims=True)
    y = sym.broadcast_add(sym.broadcast_add(sym.tile(y, reps=(1, 2, 3)), sym.norm(x, axis=1, keepdims=True).sum()),
                          sym.LayerNorm(x, sym.var("g"), sym.var("b")))
    _matches_interpreter(sym.softmax(y, axis=1), {"data": RNG.normal(size=(2, 4, 3)).astype(np.float32),
                                                  "g": np.ones(3, np.float32), "b": np.zeros(3, np.float32)}, opset)


def test_sequence_ops_masked_softmax_and_bert_helpers() -> None:
    from hybridize.runtime import sym

    x, lens, mask_len = sym.var("x"), sym.var("lens"), sym.var("mask_len")
    outs = [sym.SequenceLast(x, lens, use_sequence_length=True), sym.SequenceLast(x),
            sym.SequenceReverse(x, lens, use_sequence_length=True), sym.SequenceReverse(x),
            sym.SequenceLast(sym.swapaxes(x, 0, 1), lens, use_sequence_length=True, axis=1),
            sym.softmax(x, mask_len, axis=0, use_length=True), sym.log_softmax(x, axis=1, temperature=0.5),
            sym.contrib.div_sqrt_dim(x), sym.contrib.arange_like(x, start=1.0, step=0.5, repeat=2),
            sym.contrib.arange_like(x, axis=1), sym.smooth_l1(x, scalar=2.0)]
    outs += list(sym.moments(x, axes=(0, 2)))
    _matches_interpreter(sym.Group(outs), {
        "x": RNG.normal(size=(5, 3, 2)).astype(np.float32),
        "lens": np.array([5, 2, 0], np.float32),
        "mask_len": np.array([[1, 2], [3, 5], [4, 1]], np.float32)})


def test_nd_dot_with_transposes() -> None:
    from hybridize.runtime import sym

    a, b, v = sym.var("a"), sym.var("b"), sym.var("v")
    outs = [sym.dot(a, b), sym.dot(a, b, transpose_a=True, transpose_b=True), sym.dot(v, b),
            sym.dot(a, v, transpose_a=True), sym.dot(b, b, transpose_b=True)]
    _matches_interpreter(sym.Group(outs), {"a": RNG.normal(size=(3, 2, 3)).astype(np.float32),
                                           "b": RNG.normal(size=(3, 4, 3)).astype(np.float32),
                                           "v": RNG.normal(size=(3,)).astype(np.float32)})


def test_adaptive_pooling_bilinear_resize_and_crop_as_mxnet_index_rules() -> None:
    from hybridize.runtime import sym

    x, like = sym.var("x"), sym.var("like")
    outs = [sym.contrib.AdaptiveAvgPooling2D(x, output_size=s) for s in (1, (3, 4), (2, 5))]
    outs += [sym.contrib.BilinearResize2D(x, height=9, width=4, align_corners=ac) for ac in (True, False)]
    outs += [sym.contrib.BilinearResize2D(x, like, mode="like"),
             sym.contrib.BilinearResize2D(x, mode="to_even_up"),
             sym.Crop(x, h_w=(3, 4), offset=(1, 2), num_args=1), sym.Crop(x, like, center_crop=True, num_args=2)]
    _matches_interpreter(sym.Group(outs), {"x": RNG.normal(size=(2, 3, 7, 6)).astype(np.float32),
                                           "like": np.zeros((1, 1, 5, 3), np.float32)})


def test_channels_last_convolutions_and_deconvolution_target_shape() -> None:
    from hybridize.runtime import sym

    x, w, b, xl, wl = sym.var("x"), sym.var("w"), sym.var("b"), sym.var("xl"), sym.var("wl")
    outs = [sym.Deconvolution(x, w, b, kernel=(3, 3), stride=(2, 2), num_filter=4, target_shape=(t, t), no_bias=False)
            for t in (10, 11)]
    outs += [sym.Convolution(xl, wl, kernel=(3, 3), pad=(1, 1), num_filter=4, no_bias=True, layout="NHWC"),
             sym.Pooling(xl, kernel=(2, 2), stride=(2, 2), pool_type="avg", layout="NHWC")]
    _matches_interpreter(sym.Group(outs), {"x": RNG.normal(size=(2, 3, 5, 5)).astype(np.float32),
                                           "w": RNG.normal(size=(3, 4, 3, 3)).astype(np.float32),
                                           "b": RNG.normal(size=(4,)).astype(np.float32),
                                           "xl": RNG.normal(size=(2, 6, 6, 3)).astype(np.float32),
                                           "wl": RNG.normal(size=(4, 3, 3, 3)).astype(np.float32)})


def test_issue12_ops_with_direct_onnx_forms() -> None:
    """Convolution_v1, SparseEmbedding, _grad_add, the STEs, cumsum, det, image.to_tensor/normalize."""
    from hybridize.runtime import sym

    x, w, e, m, img = sym.var("x"), sym.var("w"), sym.var("e"), sym.var("m"), sym.var("img")
    out = sym.Group([
        sym.Convolution_v1(x, w, kernel=(3, 3), num_filter=2, no_bias=True, pad=(1, 1)),
        sym.contrib.SparseEmbedding(sym.floor(sym.abs(e)), w.reshape((2, -1)), input_dim=2, output_dim=18),
        sym._internal._grad_add(e, e), sym._internal._CrossDeviceCopy(e),
        sym.contrib.round_ste(e), sym.contrib.sign_ste(e), sym.cumsum(e), sym.cumsum(e, axis=1),
        sym.linalg.det(m), sym.linalg.det(sym.stack(m, m)),
        sym.image.to_tensor(img), sym.image.normalize(sym.image.to_tensor(img), mean=(0.5, 0.4, 0.3), std=0.2),
    ])
    feeds = {"x": RNG.normal(size=(1, 2, 4, 4)).astype(np.float32),
             "w": RNG.normal(size=(2, 2, 3, 3)).astype(np.float32),
             "e": np.array([[-2.5, -1.5, 0.5], [1.5, 0.0, 2.4]], np.float32),
             "m": (RNG.normal(size=(3, 3)) + 2 * np.eye(3)).astype(np.float32),
             "img": RNG.uniform(0, 255, (4, 5, 3)).astype(np.float32)}
    _matches_interpreter(out, feeds)
