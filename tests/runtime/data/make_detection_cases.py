"""Records MXNet 1.9.1's outputs of the object-detection contrib operators for
``tests/runtime/test_detection_ops.py``. Run by hand with a Python that has real MXNet 1.9.1
(CI has none and never runs this)::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_detection_cases.py

It writes, next to this file:

- ``detection_cases.json``: one entry per case: ``case`` (name), ``func`` (the ``contrib``
  function called), ``op`` (the operator name MXNet writes in symbol JSON), ``kwargs`` (the Python
  attributes of the call; lists stand for tuples), ``json_attrs`` (the attribute strings MXNet's
  ``tojson()`` wrote), ``num_inputs``, ``num_outputs`` (visible), ``output_dtypes``.
- ``detection_cases.npz``: ``<case>/in<i>`` and ``<case>/out<i>`` arrays.

Inputs are small and deterministic (fixed seeds, hand-placed boxes with overlaps and score ties).
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CASES: list[dict] = []
ARRAYS: dict[str, np.ndarray] = {}


def _tuples(v):
    return tuple(v) if isinstance(v, list) else v


def record(case: str, func: str, inputs: list, **kwargs) -> None:
    inputs = [np.asarray(x) for x in inputs]
    call = {k: _tuples(v) for k, v in kwargs.items()}
    nd_in = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    res = getattr(mx.nd.contrib, func)(*nd_in, **call)
    outs = [r.asnumpy() for r in (res if isinstance(res, (list, tuple)) else [res])]
    vars_ = [mx.sym.var(f"in{i}") for i in range(len(inputs))]
    s = getattr(mx.sym.contrib, func)(*vars_, **call)
    doc = json.loads(s.tojson())
    node = doc["nodes"][-1]
    assert len(s.list_outputs()) == len(outs), (case, s.list_outputs(), len(outs))
    CASES.append({"case": case, "func": func, "op": node["op"], "kwargs": kwargs,
                  "json_attrs": node.get("attrs", {}), "num_inputs": len(inputs), "num_outputs": len(outs),
                  "output_dtypes": [o.dtype.name for o in outs]})
    for i, x in enumerate(inputs):
        ARRAYS[f"{case}/in{i}"] = x
    for i, o in enumerate(outs):
        ARRAYS[f"{case}/out{i}"] = o


def f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


# -- box_nms ---------------------------------------------------------------------------------------
def nms_data(seed: int, batch=(2,), n=14, with_id=True) -> np.ndarray:
    """Rows [id, score, x1, y1, x2, y2]: clusters of overlapping boxes, some score ties, low scores."""
    rs = np.random.RandomState(seed)
    centers = rs.uniform(0.2, 0.8, size=batch + (n // 3 + 1, 2))
    pick = rs.randint(0, centers.shape[-2], size=batch + (n,))
    c = np.take_along_axis(centers, pick[..., None], axis=-2) + rs.normal(0, 0.03, size=batch + (n, 2))
    wh = rs.uniform(0.1, 0.3, size=batch + (n, 2))
    boxes = np.concatenate([c - wh / 2, c + wh / 2], axis=-1)
    scores = np.round(rs.uniform(0, 1, size=batch + (n,)), 1)          # rounding makes ties
    ids = rs.randint(0, 3, size=batch + (n,)).astype(np.float64)
    cols = [ids, scores] if with_id else [scores, rs.uniform(0, 1, size=batch + (n,))]
    return f32(np.concatenate([np.stack(cols, axis=-1), boxes], axis=-1))


def nms_cases() -> None:
    d = nms_data(1)
    record("box_nms_default", "box_nms", [d])
    record("box_nms_thresh_topk", "box_nms", [d], overlap_thresh=0.3, valid_thresh=0.25, topk=5)
    record("box_nms_per_class", "box_nms", [d], id_index=0, overlap_thresh=0.4)
    record("box_nms_per_class_bg", "box_nms", [d], id_index=0, background_id=0, valid_thresh=0.1)
    record("box_nms_force", "box_nms", [d], id_index=0, force_suppress=True, overlap_thresh=0.4)
    record("box_nms_topk0", "box_nms", [d], topk=0)
    record("box_nms_none_valid", "box_nms", [d], valid_thresh=2.0)
    record("box_nms_alias", "box_non_maximum_suppression", [d], overlap_thresh=0.6)
    # layout: [x1, y1, x2, y2, score, id]
    e = d[..., [2, 3, 4, 5, 1, 0]]
    record("box_nms_layout", "box_nms", [e], coord_start=0, score_index=4, id_index=5, topk=8)
    # center input (x, y, w, h), converted to corner on output; and corner -> center with boxes left of 0
    c = d.copy()
    c[..., 2:4] = (d[..., 2:4] + d[..., 4:6]) / 2
    c[..., 4:6] = d[..., 4:6] - d[..., 2:4]
    record("box_nms_center_in", "box_nms", [f32(c)], in_format="center", out_format="corner")
    record("box_nms_center_both", "box_nms", [f32(c)], in_format="center", out_format="center", overlap_thresh=0.3)
    s = d.copy()
    s[..., [2, 4]] -= 0.35                                                # some xmin < 0
    record("box_nms_to_center", "box_nms", [f32(s)], out_format="center")
    record("box_nms_4d", "box_nms", [nms_data(2, batch=(2, 3), n=9)], overlap_thresh=0.45, topk=6, id_index=0)
    record("box_nms_float64", "box_nms", [nms_data(3).astype(np.float64)], overlap_thresh=0.5, valid_thresh=0.3)
    record("box_nms_2d", "box_nms", [nms_data(4, batch=(), n=10)], overlap_thresh=0.35)
    # 5-wide rows (score + box), exact duplicates and a zero-area box
    t = f32([[0.9, 0, 0, 1, 1], [0.9, 0, 0, 1, 1], [0.8, 0.5, 0.5, 0.5, 0.5], [0.7, 0.5, 0.5, 0.5, 0.5],
             [0.6, 0.1, 0.1, 1.1, 1.1], [0.5, 2, 2, 3, 3]])
    record("box_nms_dups", "box_nms", [t], score_index=0, coord_start=1)


# -- box_iou -------------------------------------------------------------------------------------------
def iou_cases() -> None:
    rs = np.random.RandomState(7)
    a = rs.uniform(0, 1, (2, 3, 2))
    lhs = f32(np.concatenate([a, a + rs.uniform(0.05, 0.6, (2, 3, 2))], axis=-1))
    b = rs.uniform(0, 1, (5, 2))
    rhs = f32(np.concatenate([b, b + rs.uniform(0.05, 0.6, (5, 2))], axis=-1))
    rhs[0] = lhs[0, 0]                                  # identical box
    rhs[1] = [5, 5, 6, 6]                               # disjoint
    rhs[2] = [0.3, 0.3, 0.3, 0.8]                       # zero width
    record("box_iou_corner", "box_iou", [lhs, rhs])
    record("box_iou_center", "box_iou", [lhs, rhs], format="center")
    record("box_iou_2d", "box_iou", [lhs[0], rhs[:3]], format="corner")
    record("box_iou_float64", "box_iou", [lhs.astype(np.float64), rhs.astype(np.float64)])


# -- bipartite_matching -----------------------------------------------------------------------------
def matching_cases() -> None:
    rs = np.random.RandomState(11)
    s = f32(np.round(rs.uniform(0, 1, (2, 5, 4)), 1))
    record("bipartite_default", "bipartite_matching", [s], threshold=0.1)
    record("bipartite_high_thresh", "bipartite_matching", [s], threshold=0.65)
    record("bipartite_ascend", "bipartite_matching", [s], is_ascend=True, threshold=0.6)
    record("bipartite_topk1", "bipartite_matching", [s], threshold=0.05, topk=1)
    record("bipartite_topk2", "bipartite_matching", [s], threshold=0.05, topk=2)
    record("bipartite_2d", "bipartite_matching", [s[0].T.copy()], threshold=0.2)
    record("bipartite_float64", "bipartite_matching", [s.astype(np.float64)], threshold=0.3)
    record("bipartite_ties", "bipartite_matching", [f32(np.full((3, 3), 0.5))], threshold=0.1)
    record("bipartite_3d_batch", "bipartite_matching", [f32(rs.uniform(0, 1, (2, 2, 3, 4)))], threshold=0.3)


# -- box_encode / box_decode --------------------------------------------------------------------------
def encode_decode_cases() -> None:
    rs = np.random.RandomState(13)
    B, N, M = 2, 6, 3
    a = rs.uniform(0, 0.6, (B, N, 2))
    anchors = f32(np.concatenate([a, a + rs.uniform(0.1, 0.4, (B, N, 2))], axis=-1))
    g = rs.uniform(0, 0.6, (B, M, 2))
    refs = f32(np.concatenate([g, g + rs.uniform(0.1, 0.4, (B, M, 2))], axis=-1))
    samples = f32(rs.choice([-1, 0, 1], size=(B, N)))
    matches = f32(rs.randint(0, M, size=(B, N)))
    record("box_encode_basic", "box_encode", [samples, matches, anchors, refs, f32([0, 0, 0, 0]), f32([1, 1, 1, 1])])
    record("box_encode_meanstd", "box_encode",
           [samples, matches, anchors, refs, f32([0.1, -0.1, 0.05, 0.0]), f32([0.1, 0.1, 0.2, 0.2])])
    off = f32(rs.normal(0, 1, (B, N, 4)))
    record("box_decode_center", "box_decode", [off, anchors[:1]])
    record("box_decode_corner_std", "box_decode", [off, anchors[:1]], std0=0.1, std1=0.1, std2=0.2, std3=0.2,
           format="corner")
    record("box_decode_clip", "box_decode", [off * 3, anchors[:1]], clip=1.5, format="corner")


# -- MultiBox* ------------------------------------------------------------------------------------------
def prior(data_shape, **kw) -> np.ndarray:
    return mx.nd.contrib.MultiBoxPrior(mx.nd.zeros(data_shape), **kw).asnumpy()


def multibox_cases() -> None:
    record("prior_default", "MultiBoxPrior", [f32(np.zeros((1, 2, 3, 5)))])
    record("prior_sizes_ratios", "MultiBoxPrior", [f32(np.zeros((2, 1, 4, 4)))], sizes=[0.5, 0.25, 0.1],
           ratios=[1, 2, 0.5])
    record("prior_clip", "MultiBoxPrior", [f32(np.zeros((1, 1, 3, 2)))], sizes=[0.9, 0.6], ratios=[1, 3], clip=True)
    record("prior_steps_offsets", "MultiBoxPrior", [f32(np.zeros((1, 1, 5, 3)))], sizes=[0.3], ratios=[1, 2, 0.5],
           steps=[0.1, 0.25], offsets=[0.2, 0.7])
    record("prior_wide", "MultiBoxPrior", [f32(np.zeros((1, 1, 2, 7)))], sizes=[0.4, 0.2], ratios=[1, 2],
           steps=[0.5, 0.1])

    # SSD-like targets: 4x4 feature map, 4 anchors per position (64 anchors), 3 classes + background
    anchors = f32(prior((1, 1, 4, 4), sizes=[0.3, 0.5], ratios=[1, 2, 0.5]))
    N = anchors.shape[1]
    rs = np.random.RandomState(17)
    label = np.full((3, 4, 5), -1, dtype=np.float32)
    label[0, 0] = [0, 0.1, 0.1, 0.45, 0.5]
    label[0, 1] = [2, 0.5, 0.4, 0.9, 0.95]
    label[0, 2] = [1, 0.55, 0.05, 0.8, 0.3]
    label[1, 0] = [1, 0.2, 0.3, 0.7, 0.7]
    label[1, 1] = [0, 0.2, 0.125, 0.8, 0.625]           # IoU 0.63 with two anchors: one greedy, one > 0.5
    label[1, 2] = [2, 0.6, 0.35, 0.95, 0.9]
    # batch item 2 has no ground truth at all
    cls_pred = f32(rs.normal(0, 1, (3, 4, N)))
    record("target_default", "MultiBoxTarget", [anchors, label, cls_pred])
    record("target_mining", "MultiBoxTarget", [anchors, label, cls_pred], negative_mining_ratio=3,
           negative_mining_thresh=0.5, minimum_negative_samples=2)
    record("target_no_overlap_pass", "MultiBoxTarget", [anchors, label, cls_pred], overlap_threshold=0.0,
           negative_mining_ratio=2, ignore_label=-2, variances=[0.2, 0.2, 0.5, 0.5])
    wide = np.concatenate([label, np.zeros((3, 4, 1), np.float32)], axis=-1)   # e.g. a 'difficult' column
    record("target_wide_label", "MultiBoxTarget", [anchors, wide, cls_pred], negative_mining_ratio=3)
    record("target_thresh", "MultiBoxTarget", [anchors, label[:2], cls_pred[:2]], overlap_threshold=0.3,
           negative_mining_ratio=1.5, negative_mining_thresh=0.4)

    # detections: softmax class probabilities, small offsets
    logits = rs.normal(0, 2, (2, 4, N))
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    prob = f32(np.round(prob, 2))                      # ties in scores
    loc = f32(rs.normal(0, 0.5, (2, N * 4)))
    record("detection_default", "MultiBoxDetection", [prob, loc, anchors])
    record("detection_force", "MultiBoxDetection", [prob, loc, anchors], force_suppress=True, nms_threshold=0.3)
    record("detection_topk", "MultiBoxDetection", [prob, loc, anchors], nms_topk=12, threshold=0.2)
    record("detection_no_clip", "MultiBoxDetection", [prob, loc, anchors], clip=False,
           variances=[0.1, 0.1, 0.3, 0.3], nms_threshold=0.45)
    record("detection_no_nms", "MultiBoxDetection", [prob, loc, anchors], nms_threshold=0.0, threshold=0.3)
    record("detection_background_id", "MultiBoxDetection", [prob, loc, anchors], background_id=2, threshold=0.25)


def main() -> None:
    nms_cases()
    iou_cases()
    matching_cases()
    encode_decode_cases()
    multibox_cases()
    np.savez_compressed(os.path.join(HERE, "detection_cases.npz"), **ARRAYS)
    with open(os.path.join(HERE, "detection_cases.json"), "w") as f:
        json.dump({"mxnet_version": mx.__version__, "cases": CASES}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(CASES)} cases written to {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main()
