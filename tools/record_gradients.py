"""Records MXNet 1.9.1's input gradients of representative operator calls, for the gradient rules' tests.

Run with the MXNet 1.9.1 interpreter (never by the test suite)::

    /tmp/mxnet-venv/bin/python tools/record_gradients.py [--only NAME ...]

Each case calls one operator imperatively under ``mx.autograd.record()`` and back-propagates seeded
head gradients with ``mx.autograd.backward``; it writes ``tests/autograd/fixtures/<case>.npz`` (the
inputs, MXNet's outputs, the head gradients, the gradient of every input marked ``wrt``, and a
``meta`` JSON string: op name, attributes as MXNet strings, training mode) and the manifest
``tests/autograd/fixtures/manifest.json`` listing the cases. ``tests/gradcheck.py`` reads them
(``check_vjp_against``).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "tests" / "autograd" / "fixtures"


def _x(*shape, seed=0):
    return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


def _pos(*shape, seed=0):
    return (np.random.RandomState(seed).uniform(0.5, 2.0, shape)).astype(np.float32)


def _f(values):
    return np.asarray(values, dtype=np.float32)


def _spd(n, batch=(), seed=0):
    a = _x(*batch, n, n, seed=seed)
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n, dtype=np.float32)).astype(np.float32)


def _lower(n, seed=0):
    return (np.tril(_x(n, n, seed=seed)) + 3 * np.eye(n, dtype=np.float32)).astype(np.float32)


# (case id, op, inputs, attrs, indices of the inputs to differentiate)
CASES = [
    # shape ops
    ("tile", "tile", [_x(2, 3)], {"reps": (2, 2)}, [0]),
    ("repeat_axis", "repeat", [_x(2, 3)], {"repeats": 2, "axis": 1}, [0]),
    ("repeat_flat", "repeat", [_x(2, 3)], {"repeats": 3}, [0]),
    ("swapaxis", "SwapAxis", [_x(2, 3, 4)], {"dim1": 0, "dim2": 2}, [0]),
    ("stack", "stack", [_x(2, 3), _x(2, 3, seed=1)], {"axis": 1, "num_args": 2}, [0, 1]),
    ("split_squeeze", "SliceChannel", [_x(3, 2)], {"num_outputs": 3, "axis": 0, "squeeze_axis": True}, [0]),
    ("split_v2", "_split_v2", [_x(5, 2)], {"indices": (0, 2), "axis": 0}, [0]),
    ("broadcast_to", "broadcast_to", [_x(2, 1, 3)], {"shape": (2, 4, 3)}, [0]),
    ("broadcast_axis", "broadcast_axis", [_x(1, 3, 1)], {"axis": (0, 2), "size": (2, 4)}, [0]),
    ("broadcast_like", "broadcast_like", [_x(1, 3), _x(4, 3, seed=1)], {}, [0, 1]),
    ("reverse", "reverse", [_x(2, 3)], {"axis": (1,)}, [0]),
    ("squeeze", "squeeze", [_x(2, 1, 3)], {"axis": (1,)}, [0]),
    ("reshape_like", "reshape_like", [_x(2, 3), _x(3, 2, seed=1)], {}, [0, 1]),
    ("depth_to_space", "depth_to_space", [_x(1, 8, 2, 3)], {"block_size": 2}, [0]),
    ("space_to_depth", "space_to_depth", [_x(1, 2, 4, 6)], {"block_size": 2}, [0]),
    ("diag_k1", "diag", [_x(3, 4)], {"k": 1}, [0]),
    ("diag_1d", "diag", [_x(3)], {"k": -1}, [0]),
    ("shape_array", "shape_array", [_x(2, 3)], {}, [0]),
    # indexing
    ("pick", "pick", [_x(3, 4), _f([0, 3, 1])], {"axis": 1}, [0, 1]),
    ("pick_wrap", "pick", [_x(3, 4), _f([5, -1, 2])], {"axis": 1, "mode": "wrap", "keepdims": True}, [0]),
    ("gather_nd", "gather_nd", [_x(3, 4), _f([[0, 2, 2], [1, 3, 3]])], {}, [0, 1]),
    ("scatter_nd", "scatter_nd", [_x(3), _f([[0, 2, 1], [1, 3, 0]])], {"shape": (3, 4)}, [0]),
    ("index_copy", "_contrib_index_copy", [_x(4, 3), _f([2, 0]), _x(2, 3, seed=1)], {}, [0, 2]),
    ("one_hot", "one_hot", [_f([0, 2, 1])], {"depth": 3}, [0]),
    # smaller tensor ops
    ("smooth_l1", "smooth_l1", [_f([-2.0, -0.3, 0.0, 0.2, 0.9, 3.0])], {"scalar": 1.5}, [0]),
    ("moments", "moments", [_x(2, 3, 4)], {"axes": (0, 2)}, [0]),
    ("amp_cast", "amp_cast", [_x(2, 3)], {"dtype": "float16"}, [0]),
    ("quadratic", "_contrib_quadratic", [_x(2, 3)], {"a": 1.5, "b": -2.0, "c": 0.5}, [0]),
    ("div_sqrt_dim", "_contrib_div_sqrt_dim", [_x(2, 4)], {}, [0]),
    ("gradientmultiplier", "_contrib_gradientmultiplier", [_x(2, 3)], {"scalar": -0.5}, [0]),
    ("boolean_mask", "_contrib_boolean_mask", [_x(4, 2), _f([1, 0, 1, 1])], {}, [0]),
    ("cumsum", "_np_cumsum", [_x(3, 4)], {"axis": 1}, [0]),
    ("round_ste", "_contrib_round_ste", [_x(5)], {}, [0]),
    ("sign_ste", "_contrib_sign_ste", [_x(5)], {}, [0]),
    # sequences
    ("sequence_mask", "SequenceMask", [_x(4, 2, 3), _f([2, 4])], {"use_sequence_length": True, "value": -1.0}, [0]),
    ("sequence_reverse", "SequenceReverse", [_x(4, 2, 3), _f([2, 4])], {"use_sequence_length": True}, [0]),
    ("sequence_last", "SequenceLast", [_x(2, 4, 3), _f([1, 3])], {"use_sequence_length": True, "axis": 1}, [0]),
    # image and detection
    ("image_normalize", "_image_normalize", [_x(3, 2, 2)], {"mean": (0.1, 0.2, 0.3), "std": (0.5, 2.0, 4.0)}, [0]),
    ("image_crop", "_image_crop", [_x(4, 5, 3)], {"x": 1, "y": 2, "width": 3, "height": 2}, [0]),
    ("image_flip", "_image_flip_left_right", [_x(4, 6, 1)], {}, [0]),
    ("box_nms", "_contrib_box_nms",
     [_f([[[0, 0.5, 0, 0, 1, 1], [0, 0.9, 0, 0, 1, 1], [1, 0.7, 2, 2, 3, 3], [1, 0.8, 2.1, 2, 3, 3]]])],
     {"overlap_thresh": 0.5}, [0]),
    ("box_iou", "_contrib_box_iou", [_pos(2, 4), _pos(3, 4, seed=1)], {}, [0, 1]),
    # connectionist temporal classification (the data gradient; labels and lengths get none)
    ("ctc_loss", "CTCLoss", [_x(5, 3, 4), _f([[1, 2, 0], [3, 0, 0], [1, 1, 0]])], {}, [0]),
    ("ctc_loss_lengths", "CTCLoss", [_x(6, 3, 4), _f([[1, 2, 2], [3, 1, 0], [1, 1, 0]]), _f([6, 3, 5]), _f([3, 1, 2])],
     {"use_data_lengths": True, "use_label_lengths": True}, [0]),
    ("ctc_loss_blank_last", "CTCLoss", [_x(5, 2, 5), _f([[0, 1, -1], [2, 2, 3]])], {"blank_label": "last"}, [0]),
]

EXTRA_CASES: list = []   # filled by later families (linalg, resize, rnn, ...), see _more_cases()


def _more_cases() -> list:
    """Cases of the numerically heavier families (linear algebra, resizing, spatial, RNN, ...)."""
    return [
        ("linalg_gemm", "_linalg_gemm", [_x(2, 3), _x(3, 4, seed=1), _x(2, 4, seed=2)],
         {"alpha": 1.5, "beta": 0.5}, [0, 1, 2]),
        ("linalg_gemm2_t", "_linalg_gemm2", [_x(3, 2), _x(4, 3, seed=1)],
         {"transpose_a": True, "transpose_b": True, "alpha": 2.0}, [0, 1]),
        ("linalg_potrf", "_linalg_potrf", [_spd(3)], {}, [0]),
        ("linalg_potri", "_linalg_potri", [_lower(3)], {}, [0]),
        ("linalg_trmm", "_linalg_trmm", [_lower(3), _x(3, 2, seed=1)], {"alpha": 0.5}, [0, 1]),
        ("linalg_trmm_right_t", "_linalg_trmm", [_lower(2), _x(3, 2, seed=1)],
         {"rightside": True, "transpose": True}, [0, 1]),
        ("linalg_trsm", "_linalg_trsm", [_lower(3), _x(3, 2, seed=1)], {"alpha": 2.0}, [0, 1]),
        ("linalg_trsm_right_lower_false", "_linalg_trsm", [np.ascontiguousarray(_lower(2).T), _x(3, 2, seed=1)],
         {"rightside": True, "lower": False}, [0, 1]),
        ("linalg_sumlogdiag", "_linalg_sumlogdiag", [_spd(3)], {}, [0]),
        ("linalg_extractdiag", "_linalg_extractdiag", [_x(3, 3)], {"offset": 1}, [0]),
        ("linalg_makediag", "_linalg_makediag", [_x(2, 3)], {"offset": -1}, [0]),
        ("linalg_extracttrian", "_linalg_extracttrian", [_x(3, 3)], {"offset": 0, "lower": True}, [0]),
        ("linalg_maketrian", "_linalg_maketrian", [_x(6)], {"lower": False}, [0]),
        ("linalg_syrk", "_linalg_syrk", [_x(2, 3)], {"transpose": True, "alpha": 0.5}, [0]),
        ("linalg_gelqf", "_linalg_gelqf", [_x(2, 3)], {}, [0]),
        ("linalg_syevd", "_linalg_syevd", [_spd(3)], {}, [0]),
        ("linalg_inverse", "_linalg_inverse", [_spd(3)], {}, [0]),
        ("linalg_det", "_linalg_det", [_spd(3, batch=(2,))], {}, [0]),
        ("linalg_slogdet", "_linalg_slogdet", [_x(3, 3)], {}, [0]),
        *_rnn_cases(),
        ("rnn_param_concat", "_rnn_param_concat", [_x(4, 2), _x(4, 3, seed=1)], {"num_args": 2, "dim": 1}, [0, 1]),
        # attention
        ("selfatt_qk", "_contrib_interleaved_matmul_selfatt_qk", [_x(3, 2, 12)], {"heads": 2}, [0]),
        ("selfatt_valatt", "_contrib_interleaved_matmul_selfatt_valatt", [_x(3, 2, 12), _x(4, 3, 3, seed=1)],
         {"heads": 2}, [0, 1]),
        ("encdec_qk", "_contrib_interleaved_matmul_encdec_qk", [_x(3, 2, 4), _x(4, 2, 8, seed=1)], {"heads": 2},
         [0, 1]),
        ("encdec_valatt", "_contrib_interleaved_matmul_encdec_valatt", [_x(4, 2, 8), _x(4, 3, 4, seed=1)],
         {"heads": 2}, [0, 1]),
        # resizing
        ("pad_constant", "Pad", [_x(1, 2, 3, 4)], {"mode": "constant", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1),
                                                  "constant_value": 0.5}, [0]),
        ("pad_edge", "Pad", [_x(1, 2, 3, 4)], {"mode": "edge", "pad_width": (0, 0, 0, 0, 1, 2, 2, 1)}, [0]),
        ("pad_reflect", "Pad", [_x(1, 2, 3, 4)], {"mode": "reflect", "pad_width": (0, 0, 0, 0, 2, 1, 1, 2)}, [0]),
        ("upsampling_nearest", "UpSampling", [_x(1, 2, 2, 3)], {"scale": 2, "sample_type": "nearest",
                                                                "num_args": 1}, [0]),
        ("upsampling_concat", "UpSampling", [_x(1, 2, 2, 3), _x(1, 1, 4, 6, seed=1)],
         {"scale": 2, "sample_type": "nearest", "num_args": 2}, [0, 1]),
        ("adaptive_avg_pool", "_contrib_AdaptiveAvgPooling2D", [_x(1, 2, 5, 7)], {"output_size": (3, 2)}, [0]),
        ("bilinear_resize", "_contrib_BilinearResize2D", [_x(1, 2, 3, 4)], {"height": 5, "width": 7}, [0]),
        ("bilinear_resize_half", "_contrib_BilinearResize2D", [_x(1, 2, 3, 4)],
         {"height": 5, "width": 3, "align_corners": False}, [0]),
        ("crop", "Crop", [_x(1, 2, 5, 6)], {"num_args": 1, "offset": (1, 2), "h_w": (3, 3)}, [0]),
        ("crop_like", "Crop", [_x(1, 2, 5, 6), _x(1, 1, 2, 4, seed=1)], {"num_args": 2, "center_crop": True},
         [0, 1]),
        # densities
        ("pdf_normal", "_random_pdf_normal", [_x(2, 3), _x(2, seed=1), _pos(2, seed=2)], {}, [0, 1, 2]),
        ("pdf_normal_log", "_random_pdf_normal", [_x(2, 3), _x(2, seed=1), _pos(2, seed=2)], {"is_log": True},
         [0, 1, 2]),
        ("pdf_uniform", "_random_pdf_uniform", [_pos(2, 3), _f([0.1, 0.2]), _f([3.0, 2.5])], {}, [0, 1, 2]),
        ("pdf_gamma", "_random_pdf_gamma", [_pos(2, 3), _pos(2, seed=1), _pos(2, seed=2)], {}, [0, 1, 2]),
        ("pdf_exponential", "_random_pdf_exponential", [_pos(2, 3), _pos(2, seed=1)], {"is_log": True}, [0, 1]),
        ("pdf_poisson", "_random_pdf_poisson", [_f([[0, 1, 3], [2, 2, 5]]), _pos(2, seed=1)], {}, [0, 1]),
        ("pdf_negative_binomial", "_random_pdf_negative_binomial", [_f([[0, 1, 3], [2, 2, 5]]), _pos(2, seed=1),
                                                                    _f([0.3, 0.6])], {}, [0, 1, 2]),
        ("pdf_gen_negative_binomial", "_random_pdf_generalized_negative_binomial",
         [_f([[0, 1, 3], [2, 2, 5]]), _pos(2, seed=1), _pos(2, seed=2)], {"is_log": True}, [0, 1, 2]),
        ("pdf_dirichlet", "_random_pdf_dirichlet", [_f([[[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]]]), _pos(1, 3, seed=1)],
         {}, [0, 1]),
        # legacy operators
        # spatial transformers and regions of interest
        ("bilinear_sampler", "BilinearSampler", [_x(2, 3, 4, 5), np.random.RandomState(1).uniform(-1.1, 1.1, (2, 2, 3, 4))
                                                 .astype(np.float32)], {}, [0, 1]),
        ("grid_generator_affine", "GridGenerator", [_x(2, 6)], {"transform_type": "affine", "target_shape": (3, 4)},
         [0]),
        ("grid_generator_warp", "GridGenerator", [_x(2, 2, 3, 4)], {"transform_type": "warp"}, [0]),
        ("spatial_transformer", "SpatialTransformer",
         [_x(2, 3, 4, 5), _f([[0.9, 0.1, 0.05, -0.1, 0.8, 0.02], [1.07, -0.23, 0.11, 0.13, 0.93, -0.05]])],
         {"target_shape": (3, 4), "transform_type": "affine", "sampler_type": "bilinear"}, [0, 1]),
        ("roi_pooling", "ROIPooling", [_x(2, 3, 8, 8), _ROIS], {"pooled_size": (2, 3), "spatial_scale": 1.0}, [0, 1]),
        ("roi_align", "_contrib_ROIAlign", [_x(2, 3, 8, 8), _ROIS], {"pooled_size": (2, 2), "spatial_scale": 0.9},
         [0, 1]),
        ("roi_align_aligned", "_contrib_ROIAlign", [_x(2, 3, 8, 8), _ROIS],
         {"pooled_size": (2, 2), "spatial_scale": 0.9, "sample_ratio": 2, "aligned": True}, [0]),
        ("roi_align_position_sensitive", "_contrib_ROIAlign", [_x(2, 8, 8, 8), _ROIS],
         {"pooled_size": (2, 2), "spatial_scale": 0.9, "position_sensitive": True}, [0]),
        ("correlation", "Correlation", [_x(1, 2, 6, 7), _x(1, 2, 6, 7, seed=1)],
         {"kernel_size": 3, "max_displacement": 2, "stride2": 2, "pad_size": 2}, [0, 1]),
        ("correlation_abs", "Correlation", [_x(2, 3, 7, 7), _x(2, 3, 7, 7, seed=1)],
         {"kernel_size": 1, "max_displacement": 1, "stride1": 2, "pad_size": 1, "is_multiply": False}, [0, 1]),
        ("psroi_pooling", "_contrib_PSROIPooling", [_x(2, 8, 8, 8), _ROIS],
         {"spatial_scale": 0.9, "output_dim": 2, "pooled_size": 2}, [0, 1]),
        ("psroi_pooling_group", "_contrib_PSROIPooling", [_x(2, 18, 8, 8), _ROIS],
         {"spatial_scale": 1.0, "output_dim": 2, "pooled_size": 3, "group_size": 3}, [0]),
        ("deformable_conv", "_contrib_DeformableConvolution",
         [_x(1, 4, 6, 6), np.random.RandomState(2).uniform(-1.3, 1.3, (1, 16, 7, 7)).astype(np.float32),
          0.5 * _x(4, 2, 2, 2, seed=3), _x(4, seed=4)],
         {"kernel": (2, 2), "pad": (1, 1), "num_filter": 4, "num_group": 2, "num_deformable_group": 2}, [0, 1, 2, 3]),
        ("deformable_psroi_pooling", "_contrib_DeformablePSROIPooling",
         [_x(2, 8, 8, 8), _ROIS, np.random.RandomState(3).uniform(-0.3, 0.3, (3, 4, 2, 2)).astype(np.float32)],
         {"spatial_scale": 0.9, "output_dim": 2, "group_size": 2, "pooled_size": 2, "sample_per_part": 2,
          "trans_std": 0.1}, [0, 2]),
        ("im2col", "im2col", [_x(1, 2, 5, 5)], {"kernel": (2, 3), "stride": (2, 1), "pad": (1, 0)}, [0]),
        ("col2im", "col2im", [_x(1, 12, 9)], {"output_size": (5, 5), "kernel": (2, 3), "stride": (2, 1),
                                              "pad": (1, 0)}, [0]),
        ("pooling_v1_max", "Pooling_v1", [_x(1, 2, 5, 6)], {"kernel": (2, 3), "stride": (2, 2), "pad": (1, 1)}, [0]),
        ("pooling_v1_avg_full", "Pooling_v1", [_x(1, 2, 5, 6)],
         {"kernel": (2, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "avg", "pooling_convention": "full"}, [0]),
        ("pooling_v1_sum", "Pooling_v1", [_x(1, 2, 4, 4)], {"kernel": (2, 2), "stride": (1, 1), "pool_type": "sum"},
         [0]),
    ]


_ROIS = _f([[0, 1.2, 0.7, 6.3, 5.1], [1, 0, 0, 7, 7], [0, 3.1, 2.2, 4.9, 6.8]])


def _rnn_param_size(mode, hidden, layers, bidirectional, inputs):
    gates = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode]
    d = 2 if bidirectional else 1
    size, ni = 0, inputs
    for _ in range(layers):
        size += d * (gates * hidden * (ni + hidden) + 2 * gates * hidden)
        ni = d * hidden
    return size


def _rnn_cases() -> list:
    cases = []
    for mode, layers, bi in (("lstm", 1, False), ("lstm", 2, True), ("gru", 2, True), ("rnn_tanh", 1, True),
                             ("rnn_relu", 2, False)):
        t, n, i, h = 4, 2, 3, 3
        d = 2 if bi else 1
        ins = [_x(t, n, i), 0.5 * _x(_rnn_param_size(mode, h, layers, bi, i), seed=1), _x(layers * d, n, h, seed=2)]
        if mode == "lstm":
            ins.append(_x(layers * d, n, h, seed=3))
        attrs = {"state_size": h, "num_layers": layers, "mode": mode, "bidirectional": bi, "state_outputs": True}
        cases.append((f"rnn_{mode}_{layers}{'_bi' if bi else ''}", "RNN", ins, attrs, list(range(len(ins)))))
    return cases


def _mx_fn(mx, name: str):
    if name == "_np_cumsum":  # MXNet 1.9.1 exposes it as nd.cumsum only
        return mx.nd.cumsum
    for prefix, space in (("_contrib_", mx.nd.contrib), ("_linalg_", mx.nd.linalg), ("_image_", mx.nd.image),
                          ("_random_", mx.nd.random)):
        if name.startswith(prefix) and hasattr(space, name[len(prefix):]):
            return getattr(space, name[len(prefix):])
    if name.startswith("_"):
        return getattr(mx.nd._internal, name)
    return getattr(mx.nd, name)


def _mx_string(v) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, tuple):
        return "(" + ", ".join(str(e) for e in v) + ("," if len(v) == 1 else "") + ")"
    return str(v)


def record(mx, case, out: Path) -> dict:
    cid, op, inputs, attrs, wrt = case[:5]
    train = case[5] if len(case) > 5 else True
    arrays = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    for i in wrt:
        arrays[i].attach_grad()
    with mx.autograd.record(train_mode=train):
        res = _mx_fn(mx, op)(*arrays, **attrs)
    outs = list(res) if isinstance(res, (list, tuple)) else [res]
    rng = np.random.RandomState(1234)
    heads = [rng.standard_normal(o.shape).astype(o.dtype) if np.dtype(o.dtype).kind == "f"
             else np.zeros(o.shape, o.dtype) for o in outs]
    mx.autograd.backward(outs, [mx.nd.array(h, dtype=h.dtype) for h in heads])
    payload = {f"input{i}": x for i, x in enumerate(inputs)}
    payload.update({f"output{k}": o.asnumpy() for k, o in enumerate(outs)})
    payload.update({f"head_grad{k}": h for k, h in enumerate(heads)})
    payload.update({f"grad{i}": arrays[i].grad.asnumpy() for i in wrt})
    meta = {"op": op, "attrs": {k: _mx_string(v) for k, v in attrs.items()}, "train": train, "case": cid,
            "num_inputs": len(inputs), "num_outputs": len(outs)}
    np.savez_compressed(out / f"{cid}.npz", meta=np.asarray(json.dumps(meta)), **payload)
    return {"case": cid, "op": op, "file": f"{cid}.npz"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", help="case ids to (re-)record; the manifest keeps the others")
    args = ap.parse_args()
    import mxnet as mx

    OUT.mkdir(parents=True, exist_ok=True)
    manifest_path = OUT / "manifest.json"
    manifest = {c["case"]: c for c in json.loads(manifest_path.read_text())} if manifest_path.exists() else {}
    for case in CASES + _more_cases():
        if args.only and case[0] not in args.only:
            continue
        try:
            manifest[case[0]] = record(mx, case, OUT)
        except Exception as e:  # noqa: BLE001 - report and go on: one refused case must not stop the rest
            print(f"{case[0]}: MXNet refused: {str(e).splitlines()[0][:200]}")
    manifest_path.write_text(json.dumps(sorted(manifest.values(), key=lambda c: c["case"]), indent=1) + "\n")
    print(f"{len(manifest)} cases in {manifest_path}")


if __name__ == "__main__":
    main()
