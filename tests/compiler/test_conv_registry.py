"""The convolution algorithm registry (``kernels/conv/``): every algorithm's own description (weight
layout, scratch, eligibility) agrees with its kernel, operands are bound by name, and the choice
is made among whatever is registered."""
import dataclasses
import types

import numpy as np
import pytest

from hybridize.runtime.graph.kernels import conv
from hybridize.runtime.graph.kernels.conv import ConvOperands, ConvSpec, tune
from hybridize.runtime.ops.registry import get_op


def _reference(x_nchw, w, b, a):
    ref = get_op("Convolution").compute
    attrs = get_op("Convolution").resolve({"kernel": a["kernel"], "stride": a["stride"], "pad": a["pad"],
                                           "dilate": a["dilate"], "num_filter": w.shape[0],
                                           "num_group": a["groups"], "no_bias": b is None})
    return ref(attrs, x_nchw, w, *([] if b is None else [b]))


SPECS = [   # (N, H, W, C, K, kernel, stride, pad, dilate, groups)
    (2, 7, 6, 5, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1),
    (1, 9, 9, 4, 6, (3, 3), (2, 2), (1, 1), (1, 1), 1),
    (1, 5, 6, 3, 5, (1, 1), (1, 1), (0, 0), (1, 1), 1),
    (1, 8, 8, 6, 6, (3, 3), (1, 1), (1, 1), (1, 1), 6),
    (1, 8, 7, 6, 4, (3, 3), (2, 2), (1, 1), (1, 1), 2),
    (1, 9, 9, 4, 4, (3, 3), (1, 1), (2, 2), (2, 2), 1),
]


@pytest.mark.parametrize("geom", SPECS)
def test_every_eligible_algorithm_equals_the_reference(geom):
    N, H, W, C, K, kernel, stride, pad, dilate, G = geom
    rng = np.random.default_rng(0)
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    w = rng.standard_normal((K, C // G, *kernel)).astype(np.float32)
    b = rng.standard_normal(K).astype(np.float32)
    spec = ConvSpec(N, H, W, C, K, kernel, stride, pad, dilate, G, np.dtype(np.float32), has_bias=True)
    attrs = dict(kernel=kernel, stride=stride, pad=pad, dilate=dilate, groups=G)
    ref = _reference(x, w, b, attrs).transpose(0, 2, 3, 1)
    eligible = [a for a in conv.all_algos() if a.eligible(spec)]
    assert eligible
    for algo in eligible:
        wl = algo.weight(w, G)
        assert wl.shape == algo.weight_shape(w.shape, G)
        a = types.SimpleNamespace(**attrs, num_filter=K, algo=algo.name, act=(), has_bias=True, has_res=False)
        fn, scratch = conv.build_conv(a, (N, H, W, C), np.float32)
        assert scratch == algo.scratch(spec)
        out = np.empty(ref.shape, np.float32)
        fn(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), wl, out, *[np.full(s, np.nan, d) for s, d in scratch],
           bias=b)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4, err_msg=algo.name)


def test_operands_are_bound_by_name():
    a = types.SimpleNamespace(has_bias=True, has_res=True, has_pre=True, pre_fold=True)
    assert conv.operand_names(a) == ("data", "weight", "bias", "residual", "pre_shift", "pre_bounds")
    ops = ConvOperands.bind(a, ["x", "w", "b", "r", "t", "lohi"])
    assert (ops.residual, ops.pre_shift, ops.pre_bounds, ops.pre_scale) == ("r", "t", "lohi", None)
    assert ops.flags() == {"has_bias": True, "has_res": True, "has_pre": True, "pre_fold": True}
    assert ops.optional() == {"bias": "b", "residual": "r", "pre_shift": "t", "pre_bounds": "lohi"}
    plain = ops.replace(residual=None, pre_shift=None, pre_bounds=None)
    assert plain.values() == ["x", "w", "b"] and plain.flags()["has_pre"] is False
    with pytest.raises(ValueError):
        ConvOperands.bind(a, ["x", "w"])
    with pytest.raises(ValueError):
        ops.replace(pre_scale="s").flags()          # scale+shift or shift+bounds, not both


def test_the_node_inputs_follow_the_operand_names():
    """What the interpreter and the emitted code see agree: the op's input names are the operands."""
    a = types.SimpleNamespace(has_bias=False, has_res=True, has_pre=True, pre_fold=False)
    assert conv.CONV.input_names(a) == ["data", "weight", "residual", "pre_scale", "pre_shift"]


def test_a_prologue_on_an_algorithm_without_one_is_refused():
    a = types.SimpleNamespace(kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), num_filter=4, groups=1,
                              algo="gemm", act=(), has_bias=False, has_res=False, has_pre=True, pre_act=(),
                              pre_fold=False)
    with pytest.raises(ValueError, match="fused input affine"):
        conv.build_conv(a, (1, 6, 6, 3), np.float32)


def _spec(**kw):
    base = dict(N=1, H=16, W=16, C=32, K=32, kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), groups=1)
    return ConvSpec(**{**base, **kw})


def test_choice_forced_tuned_and_by_rule(monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_AUTOTUNE", "0")
    assert conv.choose(_spec(), "f2") == "wino" and conv.choose(_spec(), True) == "wino"
    assert conv.choose(_spec(), "f4") == "wino4"
    assert conv.choose(_spec(), False) == "gemm"
    assert conv.choose(_spec()) == "wino4"                        # the fixed rule: 16 tiles, 32 channels
    assert conv.choose(_spec(H=7, W=7)) == "gemm"
    assert conv.choose(_spec(groups=32)) == "dw"
    assert conv.choose(_spec(groups=2, K=64)) == "group"
    assert conv.choose(_spec(stride=(2, 2)), "f4") == "gemm"      # not eligible: forcing falls back


def test_the_tuner_chooses_among_the_registered_algorithms(monkeypatch):
    """A newly registered tunable algorithm is timed with the others and wins when it is faster."""
    gemm = conv.get_algo("gemm")
    monkeypatch.setitem(conv._ALGOS, "fake", dataclasses.replace(gemm, name="fake", order=99, prologue=lambda a: False))
    monkeypatch.setattr(tune, "_TUNED", {})
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", "off")
    timed = []
    fake = {"gemm": 3.0, "wino": 2.0, "wino4": 2.5, "fake": 1.0}
    monkeypatch.setattr(tune, "time_conv", lambda shape, a, dtype: timed.append(a.algo) or fake[a.algo])
    assert conv.choose(_spec()) == "fake"
    assert timed == ["gemm", "wino", "wino4", "fake"]
