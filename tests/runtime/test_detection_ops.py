"""Object-detection contrib operators (box_nms, box_iou, bipartite_matching, box_encode/decode,
MultiBoxPrior/Target/Detection) against outputs recorded from real MXNet 1.9.1 by
``data/make_detection_cases.py`` (``data/detection_cases.{json,npz}``; no MXNet needed here).

Every case runs imperatively (``nd.contrib.<func>``), as a one-op graph imported from symbol JSON
through the reference interpreter and through the compiler, and checks that exporting the graph
writes the attributes exactly as MXNet serialized them."""
from __future__ import annotations

import json

import numpy as np
import pytest

from recorded_cases import Recorded, kwargs as _kwargs
from support import assert_close, one_op_graph_json

_REC = Recorded("detection_cases")
_DOC = _REC.doc
CASES = _REC.cases
IDS = _REC.ids
_arrays = _REC.arrays


def _graph_json(case: dict) -> str:
    return one_op_graph_json(case["op"], case["case"], case["num_inputs"], case["num_outputs"], case["json_attrs"])


def _check(results, outs, case) -> None:
    assert len(results) == len(outs)
    for ours, theirs, dtype in zip(results, outs, case["output_dtypes"]):
        ours = np.asarray(ours)
        assert ours.shape == theirs.shape
        assert ours.dtype.name == dtype
        assert_close(ours, theirs)


def test_cases_cover_every_op() -> None:
    ops = {c["op"] for c in CASES}
    assert ops == {"_contrib_box_nms", "_contrib_box_iou", "_contrib_bipartite_matching", "_contrib_box_encode",
                   "_contrib_box_decode", "_contrib_MultiBoxPrior", "_contrib_MultiBoxTarget",
                   "_contrib_MultiBoxDetection"}
    assert _DOC["mxnet_version"] == "1.9.1"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_imperative_matches_mxnet(case: dict) -> None:
    from hybridize.runtime import nd

    ins, outs = _arrays(case)
    res = getattr(nd.contrib, case["func"])(*[nd.array(x, dtype=x.dtype) for x in ins], **_kwargs(case))
    res = res if isinstance(res, (list, tuple)) else [res]
    _check([r.asnumpy() for r in res], outs, case)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_op_graph_matches_mxnet(case: dict) -> None:
    from hybridize.runtime.graph import mxnet_json
    from hybridize.runtime.graph.codegen import compile_graph
    from hybridize.runtime.graph.interpret import evaluate

    graph = mxnet_json.loads(_graph_json(case), path=f"{case['case']}.json")
    ins, outs = _arrays(case)
    feed = {f"in{i}": a for i, a in enumerate(ins)}
    _check(evaluate(graph, feed), outs, case)
    prog = compile_graph(graph, input_names=list(feed), shapes={k: v.shape for k, v in feed.items()},
                         dtypes={k: v.dtype for k, v in feed.items()})
    assert [tuple(s) for s in prog.output_shapes] == [o.shape for o in outs]
    _check(prog(*ins), outs, case)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_one_op_graph_exports_mxnet_attrs(case: dict) -> None:
    from hybridize.runtime.graph import mxnet_json

    doc = json.loads(mxnet_json.dumps(mxnet_json.loads(_graph_json(case))))
    node = doc["nodes"][-1]
    assert node["op"] == case["op"]
    assert node.get("attrs", {}) == case["json_attrs"]
    assert doc["heads"] == [[case["num_inputs"], k, 0] for k in range(case["num_outputs"])]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_symbol_call_writes_mxnet_attrs(case: dict) -> None:
    from hybridize.runtime import sym

    s = getattr(sym.contrib, case["func"])(*[sym.var(f"in{i}") for i in range(case["num_inputs"])],
                                           **_kwargs(case))
    node = json.loads(s.tojson())["nodes"][-1]
    assert node["op"] == case["op"]
    assert node.get("attrs", {}) == case["json_attrs"]
    assert len(s.list_outputs()) == case["num_outputs"]


def test_output_names_and_aliases() -> None:
    from hybridize.runtime import nd, sym
    from hybridize.runtime.ops.registry import get_op

    x = sym.var("x")
    (name,) = sym.contrib.box_nms(x, name="nms").list_outputs()
    assert name == "nms_output0"  # MXNet's second output (the kept-index record) is hidden
    names = sym.contrib.MultiBoxTarget(x, x, x, name="t").list_outputs()
    assert names == ["t_loc_target", "t_loc_mask", "t_cls_target"]
    assert len(sym.contrib.bipartite_matching(x, threshold=0.5).list_outputs()) == 2
    assert get_op("_contrib_box_non_maximum_suppression") is get_op("_contrib_box_nms")
    for npx, contrib in (("_npx_multibox_prior", "_contrib_MultiBoxPrior"),
                         ("_npx_multibox_target", "_contrib_MultiBoxTarget"),
                         ("_npx_multibox_detection", "_contrib_MultiBoxDetection")):
        assert get_op(npx) is get_op(contrib)
    assert nd.contrib.box_non_maximum_suppression is not None


def test_shape_inference_and_errors() -> None:
    from hybridize.runtime import sym
    from hybridize.runtime.base import ShapeError

    x = sym.var("x")
    assert sym.contrib.MultiBoxPrior(x, sizes=(0.5, 0.25), ratios=(1, 2, 0.5)).infer_shape(x=(2, 3, 4, 5))[1] == \
        [(1, 4 * 5 * 4, 4)]
    a, b = sym.var("a"), sym.var("b")
    assert sym.contrib.box_iou(a, b).infer_shape(a=(2, 3, 4), b=(5, 4))[1] == [(2, 3, 5)]
    assert sym.contrib.bipartite_matching(x, threshold=0.1).infer_shape(x=(2, 5, 3))[1] == [(2, 5), (2, 3)]
    s = sym.contrib.box_encode(*[sym.var(n) for n in ("s", "m", "an", "r", "mu", "sd")])
    args, outs, _ = s.infer_shape(s=(2, 6), m=(2, 6), an=(2, 6, 4), r=(2, 3, 4))
    assert outs == [(2, 6, 4), (2, 6, 4)]
    assert dict(zip(s.list_arguments(), args))["mu"] == (4,)
    t = sym.contrib.MultiBoxTarget(sym.var("an"), sym.var("lab"), sym.var("cp"))
    assert t.infer_shape(an=(1, 64, 4), lab=(3, 4, 5), cp=(3, 4, 64))[1] == [(3, 256), (3, 256), (3, 64)]
    d = sym.contrib.MultiBoxDetection(sym.var("cp"), sym.var("lp"), sym.var("an"))
    assert d.infer_shape(cp=(2, 4, 64), lp=(2, 256), an=(1, 64, 4))[1] == [(2, 64, 6)]
    with pytest.raises(ShapeError):
        sym.contrib.box_nms(x, id_index=0, score_index=0).infer_shape(x=(2, 5, 6))
    with pytest.raises(ShapeError):
        sym.contrib.box_nms(x).infer_shape(x=(2, 5, 4))
    with pytest.raises(ShapeError):
        sym.contrib.box_iou(a, b).infer_shape(a=(2, 3, 5), b=(5, 4))


def test_box_nms_large_input_is_vectorized() -> None:
    """A few thousand candidates (an SSD head after topk) stay quick: suppression is one numpy
    step per live reference box."""
    from hybridize.runtime import nd

    rs = np.random.RandomState(0)
    n = 3000
    xy = rs.uniform(0, 1, (2, n, 2)).astype(np.float32)
    data = np.concatenate([rs.randint(0, 5, (2, n, 1)), rs.uniform(0, 1, (2, n, 1)), xy, xy + 0.05], axis=-1)
    out = nd.contrib.box_nms(nd.array(data.astype(np.float32)), overlap_thresh=0.5, topk=400, id_index=0).asnumpy()
    kept = out[..., 1] >= 0
    for b in range(2):
        k = int(kept[b].sum())
        assert 0 < k <= 400 and kept[b, :k].all() and not kept[b, k:].any()
        assert np.all(np.diff(out[b, :k, 1]) <= 0)
