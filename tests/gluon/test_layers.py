"""Every layer of gluon.nn / gluon.contrib.nn: imperative and hybridized outputs agree.

Each case builds a fresh layer, initializes it with random (non-trivial) parameter values, runs it
imperatively, then hybridized, on random inputs; outputs must match. BatchNorm-style running
statistics are set to random positive values so that inference mode is exercised for real.
"""
from __future__ import annotations

import numpy as np
import pytest

from hybridize.runtime import autograd, init, nd
from hybridize.runtime.gluon import nn
from hybridize.runtime.gluon.contrib import nn as cnn


def R(*shape):
    return ("normal", shape)


def I(high, *shape):  # noqa: E743 - integer indices
    return ("int", high, shape)


CASES = [
    # (id, factory, input specs)
    ("dense", lambda: nn.Dense(5), [R(3, 4)]),
    ("dense_act_noflatten", lambda: nn.Dense(6, activation="tanh", flatten=False), [R(2, 3, 4)]),
    ("dense_nobias_inunits", lambda: nn.Dense(3, use_bias=False, in_units=12), [R(2, 3, 4)]),
    ("dense_sigmoid", lambda: nn.Dense(4, activation="sigmoid"), [R(2, 7)]),
    ("dropout_infer", lambda: nn.Dropout(0.5), [R(3, 4)]),
    ("dropout_axes", lambda: nn.Dropout(0.3, axes=(1,)), [R(2, 3, 4)]),
    ("batchnorm", lambda: nn.BatchNorm(), [R(2, 3, 4, 4)]),
    ("batchnorm_axis_last", lambda: nn.BatchNorm(axis=-1, epsilon=1e-3, center=False), [R(2, 5, 3)]),
    ("batchnorm_global", lambda: nn.BatchNorm(use_global_stats=True, scale=False, in_channels=3), [R(2, 3, 5)]),
    ("batchnormrelu", lambda: nn.BatchNormReLU(), [R(2, 3, 4, 4)]),
    ("instancenorm", lambda: nn.InstanceNorm(), [R(2, 3, 4, 4)]),
    ("instancenorm_scale_false", lambda: nn.InstanceNorm(scale=False, epsilon=1e-3), [R(2, 4, 5)]),
    ("layernorm", lambda: nn.LayerNorm(), [R(2, 3, 4)]),
    ("layernorm_axis1", lambda: nn.LayerNorm(axis=1, epsilon=1e-3), [R(2, 5, 3)]),
    ("groupnorm", lambda: nn.GroupNorm(num_groups=2), [R(2, 4, 3, 3)]),
    ("groupnorm1", lambda: nn.GroupNorm(), [R(2, 3, 5)]),
    ("embedding", lambda: nn.Embedding(10, 4), [I(10, 2, 5)]),
    ("embedding_f64", lambda: nn.Embedding(6, 3, dtype="float64"), [I(6, 4)]),
    ("flatten", lambda: nn.Flatten(), [R(2, 3, 4, 5)]),
    ("lambda_str", lambda: nn.Lambda("tanh"), [R(3, 4)]),
    ("lambda_fn", lambda: nn.Lambda(lambda x: nd.LeakyReLU(x, slope=0.1)), [R(3, 4)]),
    ("hybridlambda_str", lambda: nn.HybridLambda("sigmoid"), [R(3, 4)]),
    ("hybridlambda_fn", lambda: nn.HybridLambda(lambda F, x: F.LeakyReLU(x, slope=0.2)), [R(3, 4)]),
    ("conv1d", lambda: nn.Conv1D(4, 3, padding=1), [R(2, 3, 10)]),
    ("conv1d_stride_dilate", lambda: nn.Conv1D(2, 3, strides=2, dilation=2, activation="relu"), [R(1, 2, 12)]),
    ("conv2d", lambda: nn.Conv2D(4, (3, 3)), [R(2, 3, 8, 8)]),
    ("conv2d_stride_pad_nobias", lambda: nn.Conv2D(5, 3, strides=2, padding=1, use_bias=False), [R(1, 3, 9, 9)]),
    ("conv2d_groups", lambda: nn.Conv2D(6, 3, padding=1, groups=3, in_channels=6), [R(2, 6, 7, 7)]),
    ("conv2d_depthwise", lambda: nn.Conv2D(4, 3, padding=1, groups=4, use_bias=False), [R(1, 4, 6, 6)]),
    ("conv2d_rect_act", lambda: nn.Conv2D(3, (1, 3), strides=(1, 2), activation="relu"), [R(1, 2, 5, 9)]),
    ("conv2d_nhwc", lambda: nn.Conv2D(2, 3, padding=1, layout="NHWC"), [R(2, 5, 5, 3)]),
    ("conv3d", lambda: nn.Conv3D(2, 3, padding=1), [R(1, 2, 4, 5, 5)]),
    ("conv1dtranspose", lambda: nn.Conv1DTranspose(3, 3, strides=2), [R(2, 2, 5)]),
    ("conv2dtranspose", lambda: nn.Conv2DTranspose(4, 3, strides=2, padding=1, output_padding=1), [R(1, 3, 5, 5)]),
    ("conv2dtranspose_plain", lambda: nn.Conv2DTranspose(2, (2, 3)), [R(2, 3, 4, 4)]),
    ("conv3dtranspose", lambda: nn.Conv3DTranspose(2, 2, strides=2), [R(1, 2, 3, 3, 3)]),
    ("maxpool1d", lambda: nn.MaxPool1D(), [R(2, 3, 10)]),
    ("maxpool2d", lambda: nn.MaxPool2D(), [R(2, 3, 8, 8)]),
    ("maxpool2d_pad_ceil", lambda: nn.MaxPool2D(3, 2, 1, ceil_mode=True), [R(1, 2, 8, 8)]),
    ("maxpool2d_nhwc", lambda: nn.MaxPool2D(layout="NHWC"), [R(2, 6, 6, 3)]),
    ("maxpool3d", lambda: nn.MaxPool3D(), [R(1, 2, 4, 4, 4)]),
    ("avgpool1d", lambda: nn.AvgPool1D(3, 1, 1), [R(2, 3, 7)]),
    ("avgpool2d", lambda: nn.AvgPool2D(), [R(2, 3, 6, 6)]),
    ("avgpool2d_exclude_pad", lambda: nn.AvgPool2D(3, 1, 1, count_include_pad=False), [R(1, 2, 6, 6)]),
    ("avgpool3d", lambda: nn.AvgPool3D(2), [R(1, 2, 4, 4, 4)]),
    ("globalmaxpool1d", lambda: nn.GlobalMaxPool1D(), [R(2, 3, 7)]),
    ("globalmaxpool2d", lambda: nn.GlobalMaxPool2D(), [R(2, 3, 5, 7)]),
    ("globalmaxpool3d", lambda: nn.GlobalMaxPool3D(), [R(1, 2, 3, 4, 5)]),
    ("globalavgpool1d", lambda: nn.GlobalAvgPool1D(), [R(2, 3, 7)]),
    ("globalavgpool2d", lambda: nn.GlobalAvgPool2D(), [R(2, 3, 5, 7)]),
    ("globalavgpool2d_nhwc", lambda: nn.GlobalAvgPool2D(layout="NHWC"), [R(2, 5, 7, 3)]),
    ("globalavgpool3d", lambda: nn.GlobalAvgPool3D(), [R(1, 2, 3, 4, 5)]),
    ("reflectionpad2d", lambda: nn.ReflectionPad2D(2), [R(1, 2, 5, 5)]),
    ("activation_relu", lambda: nn.Activation("relu"), [R(3, 4)]),
    ("activation_softrelu", lambda: nn.Activation("softrelu"), [R(3, 4)]),
    ("activation_softsign", lambda: nn.Activation("softsign"), [R(3, 4)]),
    ("leakyrelu", lambda: nn.LeakyReLU(0.1), [R(3, 4)]),
    ("prelu", lambda: nn.PReLU(), [R(2, 3, 4)]),
    ("prelu_init", lambda: nn.PReLU(alpha_initializer=init.Constant(0.3)), [R(3, 4)]),
    ("elu", lambda: nn.ELU(0.5), [R(3, 4)]),
    ("selu", lambda: nn.SELU(), [R(3, 4)]),
    ("swish", lambda: nn.Swish(1.5), [R(3, 4)]),
    ("gelu", lambda: nn.GELU(), [R(3, 4)]),
    ("hybridsequential", lambda: _seq(nn.HybridSequential(), nn.Dense(8, activation="relu"), nn.Dropout(0.2),
                                      nn.Dense(3)), [R(2, 5)]),
    ("sequential", lambda: _seq(nn.Sequential(), nn.Dense(4), nn.Activation("tanh")), [R(2, 5)]),
    ("conv_bn_pool_net", lambda: _seq(nn.HybridSequential(), nn.Conv2D(4, 3, padding=1), nn.BatchNorm(),
                                      nn.Activation("relu"), nn.MaxPool2D(), nn.Flatten(), nn.Dense(3)),
     [R(2, 3, 8, 8)]),
    ("hybridconcurrent", lambda: _seq(cnn.HybridConcurrent(axis=1), nn.Dense(3), nn.Dense(2), cnn.Identity()),
     [R(2, 4)]),
    ("concurrent", lambda: _seq(cnn.Concurrent(axis=-1), nn.Dense(3), nn.Dense(2)), [R(2, 4)]),
    ("identity", lambda: cnn.Identity(), [R(3, 4)]),
    ("syncbatchnorm", lambda: cnn.SyncBatchNorm(), [R(2, 3, 4, 4)]),
    ("pixelshuffle1d", lambda: cnn.PixelShuffle1D(2), [R(2, 6, 5)]),
    ("pixelshuffle2d", lambda: cnn.PixelShuffle2D((2, 3)), [R(1, 12, 3, 4)]),
    ("pixelshuffle3d", lambda: cnn.PixelShuffle3D(2), [R(1, 16, 2, 3, 2)]),
    ("sparseembedding", lambda: cnn.SparseEmbedding(8, 3), [I(8, 2, 3)]),
]


def _seq(container, *blocks):
    container.add(*blocks)
    return container


def _make_input(spec, rng):
    if spec[0] == "normal":
        return rng.standard_normal(size=spec[1]).astype(np.float32)
    _, high, shape = spec
    return rng.integers(0, high, size=shape).astype(np.float32)


def _randomize(block, x_arrays, rng):
    """Runs once imperatively (finishing deferred init), then sets every parameter to random values."""
    block(*x_arrays)
    for name, p in block.collect_params().items():
        shape = p.shape
        if name.endswith(("running_var", "moving_var")):
            vals = rng.uniform(0.5, 2.0, size=shape)
        else:
            vals = rng.standard_normal(size=shape) * 0.5
        p.set_data(nd.array(vals, dtype=p.dtype))


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case_id,factory,specs", CASES, ids=[c[0] for c in CASES])
def test_imperative_equals_hybridized(case_id, factory, specs):
    rng = np.random.default_rng(abs(hash(case_id)) % (2 ** 32))
    block = factory()
    block.initialize()
    xs = [nd.array(_make_input(s, rng)) for s in specs]
    _randomize(block, xs, rng)
    y_imp = block(*xs)
    hybrid = hasattr(block, "_active")
    block.hybridize()
    y_hyb = block(*xs)
    y_again = block(*xs)
    a, b, c = (y.asnumpy() for y in (y_imp, y_hyb, y_again))
    assert a.shape == b.shape
    np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(c, a, rtol=1e-4, atol=1e-5)
    if hybrid:
        assert block._cached_op is not None and block._cached_op.programs
    # a second input shape (batch size) compiles a new program from the same trace
    if specs[0][0] == "normal" and len(specs) == 1 and case_id not in ("dense_nobias_inunits",):
        shape2 = (specs[0][1][0] + 1,) + tuple(specs[0][1][1:])
        x2 = nd.array(rng.standard_normal(size=shape2).astype(np.float32))
        y2 = block(x2).asnumpy()
        block.hybridize(False)
        np.testing.assert_allclose(y2, block(x2).asnumpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("factory", [lambda: nn.Dropout(0.5), lambda: nn.BatchNorm()], ids=["dropout", "batchnorm"])
def test_training_mode_programs_are_separate(factory):
    rng = np.random.default_rng(0)
    block = factory()
    block.initialize()
    x = nd.array(rng.standard_normal(size=(4, 3, 5)).astype(np.float32))
    block.hybridize()
    y_pred = block(x).asnumpy()
    with autograd.train_mode():
        y_train = block(x).asnumpy()
    assert len(block._cached_op.programs) == 2
    assert not np.allclose(y_pred, y_train)
