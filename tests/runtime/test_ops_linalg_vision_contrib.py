"""The linear-algebra, vision and contrib operators (the linalg family, Correlation, histogram, ROI/proposal
contrib ops, all_finite, element_0index ops, onehot_encode, image ops, BatchNorm_v1, ...) against
MXNet 1.9.1's recorded answers (``data/make_extra_ops_cases.py`` -> ``data/extra_ops_cases.{json,npz}``;
no MXNet needed here).

Every recorded call runs imperatively (``nd.<func>``), as a one-op graph imported from symbol JSON
(reference interpreter and compiled executor), through symbolic shape inference, and checks the
attribute strings written to JSON and read back. Calls MXNet refuses must be refused here too."""
from __future__ import annotations

import json

import numpy as np
import pytest

from recorded_cases import Recorded, kwargs as _kwargs
from support import one_op_graph_json

_REC = Recorded("extra_ops_cases")
_DOC = _REC.doc
CASES = _REC.cases
ERRORS = _DOC["errors"]
_ARRAYS = _REC.npz
IDS = _REC.ids


def _resolve(root, func: str):
    obj = root
    for part in func.split("."):
        obj = getattr(obj, part)
    return obj


_arrays = _REC.arrays


def _call(root, case: dict, args: list):
    """``root.<func>(...)`` with the case's inputs (by keyword when MXNet's call used keywords)."""
    fn = _resolve(root, case["func"])
    if case.get("input_kw"):
        return fn(**dict(zip(case["input_kw"], args)), **_kwargs(case))
    return fn(*args, **_kwargs(case))


def _mode(case: dict):
    from hybridize.runtime import autograd

    return autograd.train_mode() if case.get("train") else autograd.predict_mode()


def _check(results, case: dict) -> None:
    _, outs = _arrays(case)
    assert len(results) == len(outs)
    tol = case["tol"]
    for k, (ours, theirs, dtype) in enumerate(zip(results, outs, case["output_dtypes"])):
        ours = np.asarray(ours)
        assert ours.shape == theirs.shape, (k, ours.shape, theirs.shape)
        assert ours.dtype.name == dtype, (k, ours.dtype, dtype)
        if k == 0 and case.get("unwritten"):      # elements MXNet never writes hold no defined value
            written = ~_ARRAYS[f"{case['case']}/unwritten0"]
            ours, theirs = ours[written], theirs[written]
        if tol == 0:
            np.testing.assert_array_equal(ours, theirs)
        else:
            np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def test_recorded_with_mxnet_1_9_1() -> None:
    assert _DOC["mxnet_version"] == "1.9.1"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_imperative_matches_mxnet(case: dict) -> None:
    from hybridize.runtime import nd

    ins, _ = _arrays(case)
    arrays = [nd.array(x, dtype=x.dtype) for x in ins]
    with _mode(case):
        res = _call(nd, case, arrays)
    res = res if isinstance(res, (list, tuple)) else [res]
    _check([r.asnumpy() for r in res], case)
    for i in case.get("mutated", []):            # states the op updates in place, as MXNet
        np.testing.assert_allclose(arrays[i].asnumpy(), _ARRAYS[f"{case['case']}/state{i}"],
                                   rtol=max(case["tol"], 1e-6), atol=max(case["tol"], 1e-6))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_op_graph_matches_mxnet(case: dict) -> None:
    from hybridize.runtime.graph import mxnet_json
    from hybridize.runtime.graph.codegen import compile_graph
    from hybridize.runtime.graph.interpret import evaluate

    text = one_op_graph_json(case["op"], case["case"], case["num_inputs"], case["num_outputs"], case["json_attrs"])
    graph = mxnet_json.loads(text, path=f"{case['case']}.json")
    ins, outs = _arrays(case)
    feed = {f"in{i}": a for i, a in enumerate(ins)}
    with _mode(case):
        _check(evaluate(graph, feed), case)
        prog = compile_graph(graph, input_names=list(feed), shapes={k: v.shape for k, v in feed.items()},
                             dtypes={k: v.dtype for k, v in feed.items()})
        assert [tuple(s) for s in prog.output_shapes] == [o.shape for o in outs]
        _check(prog(*ins), case)
    doc = json.loads(mxnet_json.dumps(graph))          # attribute strings survive a round trip
    assert doc["nodes"][-1]["op"] == case["op"]
    assert doc["nodes"][-1].get("attrs", {}) == case["json_attrs"]
    if "mx_num_outputs" in case:                       # hidden outputs counted as MXNet writes them
        assert doc["node_row_ptr"][-1] - doc["node_row_ptr"][-2] == case["mx_num_outputs"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_symbol_writes_mxnet_attrs_and_infers_shapes(case: dict) -> None:
    from hybridize.runtime import sym

    if not case["symbolic"]:
        pytest.skip("a legacy NDArray function: MXNet cannot make a Symbol of it")
    s = _call(sym, case, [sym.var(f"in{i}") for i in range(case["num_inputs"])])
    node = json.loads(s.tojson())["nodes"][-1]
    assert node["op"] == case["op"]
    assert node.get("attrs", {}) == case["json_attrs"]
    assert s.list_outputs() == [f"{node['name']}_{n}" for n in case["output_names"]]
    if case["out_shapes"] is not None:
        ins, _ = _arrays(case)
        _, out_shapes, _ = s.infer_shape(**{f"in{i}": x.shape for i, x in enumerate(ins)})
        assert [list(o) for o in out_shapes] == case["out_shapes"]


@pytest.mark.parametrize("case", ERRORS, ids=[c["case"] for c in ERRORS])
def test_refuses_what_mxnet_refuses(case: dict) -> None:
    from hybridize.runtime import nd
    from hybridize.runtime.base import MXNetError

    ins, _ = _arrays(case, prefix="error/")
    with pytest.raises((MXNetError, TypeError, ValueError)):
        res = _resolve(nd, case["func"])(*[nd.array(x, dtype=x.dtype) for x in ins], **_kwargs(case))
        for r in res if isinstance(res, (list, tuple)) else [res]:
            r.asnumpy()


# -- linalg specifics -------------------------------------------------------------------------------------
def test_linalg_names_as_mxnet_exposes_them() -> None:
    from hybridize.runtime import nd, sym
    from hybridize.runtime.ops.registry import get_op

    for name in ("gemm", "gemm2", "potrf", "potri", "trmm", "trsm", "sumlogdiag", "extractdiag", "makediag",
                 "extracttrian", "maketrian", "syrk", "gelqf", "syevd", "inverse", "det", "slogdet"):
        assert callable(getattr(nd.linalg, name)) and callable(getattr(sym.linalg, name))
        if name != "syevd":             # MXNet 1.9.1 registers no linalg_syevd alias
            assert get_op(f"linalg_{name}") is get_op(f"_linalg_{name}")
    assert get_op("_npi_inv") is get_op("_linalg_inverse")


def test_linalg_shape_inference_both_ways() -> None:
    from hybridize.runtime import sym

    a, b = sym.var("a"), sym.var("b")
    # trmm/trsm infer their inputs from the output (MXNet's backward shape rule)
    s = sym.linalg.trsm(a, b, rightside=True) + sym.var("c")
    args, outs, _ = s.infer_shape(c=(2, 3, 4))
    assert dict(zip(s.list_arguments(), args)) == {"a": (2, 4, 4), "b": (2, 3, 4), "c": (2, 3, 4)}
    # gemm: C is shaped like the output
    g = sym.linalg.gemm(a, b, sym.var("c"), transpose_a=True)
    args, outs, _ = g.infer_shape(a=(5, 2, 3), b=(5, 2, 4))
    assert outs == [(5, 3, 4)] and args[2] == (5, 3, 4)
    # syevd / gelqf: A from U / Q
    u, _ = sym.linalg.syevd(a)
    args, _, _ = (u + sym.var("x")).infer_shape(x=(3, 3))
    assert args[0] == (3, 3)


def test_potrf_potri_roundtrip_and_trsm_solves() -> None:
    from hybridize.runtime import nd

    rs = np.random.RandomState(0)
    m = rs.uniform(-1, 1, (3, 5, 5))
    a = (m @ np.swapaxes(m, -1, -2) + 5 * np.eye(5)).astype(np.float64)
    low = nd.linalg.potrf(nd.array(a, dtype="float64"))
    np.testing.assert_allclose(nd.linalg.potri(low).asnumpy(), np.linalg.inv(a), rtol=1e-10)
    b = rs.uniform(-1, 1, (3, 5, 2))
    x = nd.linalg.trsm(low, nd.array(b, dtype="float64")).asnumpy()
    np.testing.assert_allclose(np.tril(low.asnumpy()) @ x, b, atol=1e-12)


# -- ROI / proposal specifics ------------------------------------------------------------------------------
def test_roi_batch_index_outside_the_batch_is_refused() -> None:
    """MXNet reads memory outside the batch for such rois; the runtime names the problem instead."""
    from hybridize.runtime import nd
    from hybridize.runtime.base import ShapeError

    data = nd.zeros((1, 8, 4, 4))
    with pytest.raises(ShapeError, match="batch index 1"):
        nd.contrib.PSROIPooling(data, nd.array([[1, 0, 0, 2, 2]]), spatial_scale=1.0, output_dim=2, pooled_size=2)
    with pytest.raises(ShapeError, match="batch index"):
        nd.contrib.RROIAlign(data, nd.array([[-1, 1, 1, 2, 2, 0]]), pooled_size=(2, 2), spatial_scale=1.0)


def test_proposal_names_and_shapes() -> None:
    from hybridize.runtime import sym

    c, b, i = sym.var("c"), sym.var("b"), sym.var("i")
    p = sym.contrib.Proposal(c, b, i, rpn_post_nms_top_n=7, output_score=True, name="rpn")
    assert p.list_outputs() == ["rpn_output", "rpn_score"]
    args, outs, _ = p.infer_shape(c=(1, 24, 5, 6))
    assert args == [(1, 24, 5, 6), (1, 48, 5, 6), (1, 3)] and outs == [(7, 5), (7, 1)]
    m = sym.contrib.MultiProposal(c, b, i, rpn_post_nms_top_n=4)
    assert m.infer_shape(c=(3, 24, 5, 6))[1] == [(12, 5)]


# -- image specifics ---------------------------------------------------------------------------------------
_IMAGE_OPS = ("to_tensor", "normalize", "crop", "resize", "flip_left_right", "flip_top_bottom",
              "random_flip_left_right", "random_flip_top_bottom", "random_brightness", "random_contrast",
              "random_saturation", "random_hue", "random_color_jitter", "adjust_lighting", "random_lighting")


def test_image_names_as_mxnet_exposes_them() -> None:
    from hybridize.runtime import nd, sym
    from hybridize.runtime.ops.registry import get_op

    for name in _IMAGE_OPS:
        assert callable(getattr(nd.image, name)) and callable(getattr(sym.image, name))
        assert get_op(f"_npx__image_{name}") is get_op(f"_image_{name}")


def test_image_random_ops_draw_from_the_runtime_seed() -> None:
    from hybridize.runtime import nd, random

    x = nd.array(np.random.RandomState(0).uniform(0, 255, (4, 5, 3)), dtype="float32")
    outs = []
    for _ in range(2):
        random.seed(7)
        outs.append([nd.image.random_brightness(x, 0.5, 1.5).asnumpy(),
                     nd.image.random_color_jitter(x, brightness=0.3, contrast=0.3, saturation=0.3, hue=0.1).asnumpy(),
                     nd.image.random_lighting(x, alpha_std=0.1).asnumpy()])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)
    factor = outs[0][0] / x.asnumpy()
    assert 0.5 <= factor.min() and factor.max() <= 1.5 and np.allclose(factor, factor.flat[0], rtol=1e-5)


def test_image_random_flip_is_the_image_or_its_mirror() -> None:
    from hybridize.runtime import nd, random

    x = np.arange(2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)
    random.seed(3)
    seen = set()
    for _ in range(20):
        lr = nd.image.random_flip_left_right(nd.array(x)).asnumpy()
        tb = nd.image.random_flip_top_bottom(nd.array(x)).asnumpy()
        assert np.array_equal(lr, x) or np.array_equal(lr, x[:, ::-1])
        assert np.array_equal(tb, x) or np.array_equal(tb, x[::-1])
        seen.add(bool(np.array_equal(lr, x)))
    assert seen == {True, False}


def test_image_outputs_mxnet_leaves_unwritten_are_the_in_place_result() -> None:
    """MXNet's kernels skip some outputs (its values there are whatever memory held); the runtime
    gives what MXNet computes when the op runs in place: the input's values."""
    from hybridize.runtime import nd

    x = np.random.RandomState(1).randint(0, 256, (5, 5, 3)).astype(np.uint8)
    np.testing.assert_array_equal(nd.image.flip_left_right(nd.array(x, dtype="uint8")).asnumpy(), x[:, ::-1])
    np.testing.assert_array_equal(nd.image.flip_top_bottom(nd.array(x, dtype="uint8")).asnumpy(), x[::-1])
    gray = nd.array(x[..., :1], dtype="uint8")
    np.testing.assert_array_equal(nd.image.random_hue(gray, 0.3, 0.3).asnumpy(), x[..., :1])
    np.testing.assert_array_equal(nd.image.adjust_lighting(gray, alpha=(1, 1, 1)).asnumpy(), x[..., :1])
    none = nd.image.random_color_jitter(nd.array(x, dtype="uint8"), brightness=0, contrast=0, saturation=0, hue=0)
    np.testing.assert_array_equal(none.asnumpy(), x)


def test_image_resize_refuses_what_it_cannot_reproduce() -> None:
    from hybridize.runtime import nd
    from hybridize.runtime.base import ShapeError

    x = nd.zeros((4, 4, 3), dtype="uint8")
    with pytest.raises(ShapeError, match="interp=5 is not an OpenCV interpolation"):
        nd.image.resize(x, size=(2, 2), interp=5)
    with pytest.raises(ShapeError, match="int32"):
        nd.image.resize(nd.zeros((4, 4, 3), dtype="int32"), size=(2, 2))


# -- samplers (random numbers cannot match MXNet's; their distributions and shapes must) -----------------------
def test_more_samplers_shapes_seed_and_means() -> None:
    from hybridize.runtime import nd, random, sym

    random.seed(11)
    a = nd._internal._random_negative_binomial(k=3, p=0.4, shape=(20000,)).asnumpy()
    random.seed(11)
    b = nd.random_negative_binomial(k=3, p=0.4, shape=(20000,)).asnumpy()
    np.testing.assert_array_equal(a, b)
    assert abs(a.mean() - 3 * 0.6 / 0.4) < 0.1 and a.dtype == np.float32
    g = nd._internal._random_generalized_negative_binomial(mu=2.0, alpha=0.5, shape=(20000,)).asnumpy()
    assert abs(g.mean() - 2.0) < 0.1 and abs(g.var() - (2.0 + 0.5 * 4.0)) < 0.3
    like = nd.random.gamma_like(nd.zeros((3, 4), dtype="float64"), alpha=2.0, beta=3.0)
    assert like.shape == (3, 4) and like.dtype == np.float64
    s = nd.sample_poisson(nd.array([1.0, 30.0]), shape=(4000,)).asnumpy()
    assert s.shape == (2, 4000) and np.allclose(s.mean(axis=1), [1.0, 30.0], rtol=0.05)
    shape = sym.sample_gamma(sym.var("a"), sym.var("b"), shape=(5,)).infer_shape(a=(2, 3), b=(2, 3))[1]
    assert shape == [(2, 3, 5)]


def test_random_frontend_signatures_as_mxnet() -> None:
    """MXNet's Python-level nd.random functions: ``exponential`` takes a scale (the op a rate), a
    call without shape gives one value, tensors switch to the ``_sample_*`` ops."""
    from hybridize.runtime import nd, random, sym

    random.seed(5)
    assert nd.random.uniform().shape == (1,) and nd.random.poisson(3.0).shape == (1,)
    e = nd.random.exponential(2.0, shape=(20000,)).asnumpy()
    assert abs(e.mean() - 2.0) < 0.1
    assert nd.random.exponential(nd.array([1.0, 2.0]), shape=3).shape == (2, 3)
    assert nd.random.gamma(nd.array([1.0]), nd.array([2.0]), shape=(4,)).shape == (1, 4)
    assert nd.random.negative_binomial(3, 0.4, shape=(2, 2)).shape == (2, 2)
    assert nd.random.generalized_negative_binomial(nd.array([2.0, 1.0]), nd.array([0.5, 0.1])).shape == (2,)
    with pytest.raises(ValueError, match="same type"):
        nd.random.gamma(nd.array([1.0]), 2.0)
    assert sym.random.exponential(4.0, shape=(3,)).infer_shape()[1] == [(3,)]
