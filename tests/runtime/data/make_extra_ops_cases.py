"""Records MXNet 1.9.1's answers for ``tests/runtime/test_ops_linalg_vision_contrib.py`` (the
operators MXNet has that the runtime lacked: the LAPACK-style ``linalg`` family, Correlation,
histogram, RROIAlign, PSROIPooling, Proposal/MultiProposal, all_finite, choose/fill_element_0index,
onehot_encode, the ``image`` operators, BatchNorm_v1, ...). Run by hand with a Python that has real
MXNet 1.9.1 (CI has none and never runs this)::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_extra_ops_cases.py

It writes, next to this file:

- ``extra_ops_cases.json``: ``cases``: one entry per call: ``case`` (name), ``func`` (the function
  path under ``mx.nd`` / ``mx.sym``, e.g. ``linalg.potrf``), ``op`` (the operator MXNet writes in
  symbol JSON), ``kwargs`` (lists stand for tuples), ``json_attrs`` (what ``tojson()`` wrote),
  ``num_inputs``, ``num_outputs``, ``output_names`` (``list_outputs()`` without the node name),
  ``output_dtypes``, ``out_shapes`` (``infer_shape`` from the input
  shapes, or null when MXNet cannot infer them), ``tol`` (relative tolerance; 0 = exact),
  ``mx_num_outputs`` (visible and hidden, as ``node_row_ptr`` counts them), ``train`` (run under ``autograd.train_mode()``), ``symbolic`` (false for legacy NDArray
  functions), ``input_kw`` (inputs passed by keyword), ``unwritten`` (``<case>/unwritten0`` masks
  output elements MXNet never writes);
  ``errors``: calls MXNet refuses (``func``, ``kwargs``, ``error``: MXNet's message line).
- ``extra_ops_cases.npz``: ``<case>/in<i>`` and ``<case>/out<i>``.

Inputs are small and deterministic (fixed seeds).
"""
from __future__ import annotations

import json
import os

import numpy as np

import mxnet as mx

assert mx.__version__ == "1.9.1", mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CASES: list[dict] = []
ERRORS: list[dict] = []
ARRAYS: dict[str, np.ndarray] = {}


def _tuples(v):
    return tuple(v) if isinstance(v, list) else v


def _resolve(root, func: str):
    obj = root
    for part in func.split("."):
        obj = getattr(obj, part)
    return obj


def _message(err: Exception) -> str:
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    for ln in lines:
        if ln.startswith("MXNetError:") or "Check failed" in ln or "Invalid Parameter" in ln:
            return ln[:300]
    return (lines[-1] if lines else type(err).__name__)[:300]


def _bound_forward(func: str, inputs: list, input_kw: list, train: bool, call: dict) -> list:
    """MXNet's ``nd.X`` cannot take an op's auxiliary states (BatchNorm_v1): run a bound symbol."""
    s = _resolve(mx.sym, func)(**{k: mx.sym.var(f"in{i}") for i, k in enumerate(input_kw)}, **call)
    arrays = {f"in{i}": mx.nd.array(x, dtype=x.dtype) for i, x in enumerate(inputs)}
    aux = {n: arrays.pop(n) for n in s.list_auxiliary_states()}
    ex = s.bind(mx.cpu(), arrays, aux_states=aux)
    return ex.forward(is_train=train)


def record(case: str, func: str, inputs: list, tol: float = 1e-5, train: bool = False, legacy_op: str = "",
           input_kw: list | None = None, unwritten: np.ndarray | None = None, mutated: tuple = (),
           **kwargs) -> None:
    """Calls ``mx.nd.<func>`` and ``mx.sym.<func>``; stores inputs, outputs, attrs, inferred shapes.

    ``train``: the call runs under ``autograd.train_mode()``. ``legacy_op``: a legacy NDArray
    function MXNet cannot build a Symbol of (the op name is given, no symbol facts are recorded).
    ``input_kw``: the inputs are passed by these keywords (and MXNet's answer comes from a bound
    symbol: its ``nd.X`` has no way to pass auxiliary states). ``unwritten``: a mask of output 0's
    elements MXNet's kernel never writes (their values are whatever memory held; not compared).
    ``mutated``: indices of inputs the op updates in place (optimizer states): their values after
    the call are stored as ``<case>/state<i>``."""
    inputs = [np.asarray(x) for x in inputs]
    call = {k: _tuples(v) for k, v in kwargs.items()}
    if input_kw:
        res = _bound_forward(func, inputs, input_kw, train, call)
    else:
        nd_inputs = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
        with (mx.autograd.train_mode() if train else mx.autograd.predict_mode()):
            res = _resolve(mx.nd, func)(*nd_inputs, **call)
        for i in mutated:
            ARRAYS[f"{case}/state{i}"] = nd_inputs[i].asnumpy()
    outs = [r.asnumpy() for r in (res if isinstance(res, (list, tuple)) else [res])]
    entry = {"case": case, "func": func, "kwargs": kwargs, "num_inputs": len(inputs), "num_outputs": len(outs),
             "output_dtypes": [o.dtype.name for o in outs], "tol": tol, "train": train, "symbolic": not legacy_op,
             "input_kw": input_kw, "unwritten": unwritten is not None, "mutated": list(mutated)}
    if unwritten is not None:
        ARRAYS[f"{case}/unwritten0"] = np.asarray(unwritten, dtype=bool)
    if legacy_op:   # MXNet's frontends would write str() of each attribute
        entry.update(op=legacy_op, json_attrs={k: str(v) for k, v in call.items()}, output_names=None,
                     out_shapes=None)
    else:
        if input_kw:
            s = _resolve(mx.sym, func)(**{k: mx.sym.var(f"in{i}") for i, k in enumerate(input_kw)}, **call)
        else:
            s = _resolve(mx.sym, func)(*[mx.sym.var(f"in{i}") for i in range(len(inputs))], **call)
        node = json.loads(s.tojson())["nodes"][-1]
        assert len(s.list_outputs()) == len(outs), (case, s.list_outputs(), len(outs))
        try:
            _, out_shapes, _ = s.infer_shape(**{f"in{i}": x.shape for i, x in enumerate(inputs)})
            out_shapes = None if out_shapes is None else [list(o) for o in out_shapes]
        except mx.MXNetError:
            out_shapes = None
        doc = json.loads(s.tojson())
        row_ptr = doc["node_row_ptr"]
        entry["mx_num_outputs"] = row_ptr[-1] - row_ptr[-2]        # visible + hidden outputs
        prefix = node["name"] + "_"
        entry.update(op=node["op"], json_attrs=node.get("attrs", {}),
                     output_names=[n[len(prefix):] if n.startswith(prefix) else n for n in s.list_outputs()],
                     out_shapes=out_shapes)
    assert case not in {c["case"] for c in CASES}, case
    CASES.append(entry)
    for i, x in enumerate(inputs):
        ARRAYS[f"{case}/in{i}"] = x
    for i, o in enumerate(outs):
        ARRAYS[f"{case}/out{i}"] = o


def record_error(case: str, func: str, inputs: list, **kwargs) -> None:
    """A call MXNet refuses (bad attributes or inputs): its message line."""
    inputs = [np.asarray(x) for x in inputs]
    call = {k: _tuples(v) for k, v in kwargs.items()}
    try:
        res = _resolve(mx.nd, func)(*[mx.nd.array(x, dtype=x.dtype) for x in inputs], **call)
        for r in (res if isinstance(res, (list, tuple)) else [res]):
            r.asnumpy()
    except mx.MXNetError as err:
        ERRORS.append({"case": case, "func": func, "kwargs": kwargs, "num_inputs": len(inputs),
                       "error": _message(err)})
        for i, x in enumerate(inputs):
            ARRAYS[f"error/{case}/in{i}"] = x
        return
    raise AssertionError(f"{case}: MXNet accepted the call")


def f32(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float32)


def spd(rs, batch, n, dtype=np.float32) -> np.ndarray:
    a = rs.uniform(-1, 1, size=batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)


# -- linalg ----------------------------------------------------------------------------------------------
def linalg_cases() -> None:
    rs = np.random.RandomState(12)
    a23 = f32(rs.uniform(-1, 1, (2, 3)))
    b34 = f32(rs.uniform(-1, 1, (3, 4)))
    record("gemm2_plain", "linalg.gemm2", [a23, b34])
    record("gemm2_alias_t", "linalg_gemm2", [f32(rs.uniform(-1, 1, (2, 3, 2))), f32(rs.uniform(-1, 1, (2, 4, 3)))],
           transpose_a=True, transpose_b=True, alpha=0.5)
    record("gemm2_axis", "linalg.gemm2", [f32(rs.uniform(-1, 1, (2, 3, 4, 5))), f32(rs.uniform(-1, 1, (2, 6, 4, 5)))],
           axis=1, transpose_b=True)
    record("gemm_plain", "linalg.gemm", [a23, b34, f32(rs.uniform(-1, 1, (2, 4)))], alpha=2.0, beta=0.5)
    record("gemm_alias_axis", "linalg_gemm", [f32(rs.uniform(-1, 1, (3, 2, 4))), f32(rs.uniform(-1, 1, (3, 2, 5))),
                                              f32(rs.uniform(-1, 1, (4, 2, 5)))], axis=0, transpose_a=True)
    record_error("gemm_axis_invalid", "linalg.gemm2", [a23, b34], axis=-1)
    record_error("gemm2_mismatch", "linalg.gemm2", [a23, a23])

    a = spd(rs, (), 4)
    a_lower_only = a.copy()
    a_lower_only[np.triu_indices(4, 1)] = 99.0          # potrf reads one triangle only
    record("potrf_lower", "linalg.potrf", [a_lower_only])
    record("potrf_upper", "linalg.potrf", [np.ascontiguousarray(a_lower_only.T)], lower=False)
    record("potrf_batch_f64", "linalg.potrf", [spd(rs, (2, 2), 3, np.float64)])
    record("potrf_alias", "linalg_potrf", [spd(rs, (3,), 2)])
    record_error("potrf_not_pd", "linalg.potrf", [f32(-np.eye(3))])
    record_error("potrf_float16", "linalg.potrf", [np.eye(2, dtype=np.float16)])
    record_error("potrf_not_square", "linalg.potrf", [f32(np.ones((2, 3)))])
    low = np.linalg.cholesky(spd(rs, (2,), 3).astype(np.float64)).astype(np.float32)
    low_garbage = low.copy()
    low_garbage[:, 0, 2] = 5.0
    record("potri_lower", "linalg.potri", [low_garbage])
    record("potri_upper", "linalg.potri", [np.ascontiguousarray(np.swapaxes(low, -1, -2))], lower=False)
    record_error("potri_zero_diag", "linalg.potri", [f32([[1, 0], [2, 0]])])

    t = f32(rs.uniform(0.5, 2, (2, 3, 3)))
    b = f32(rs.uniform(-1, 1, (2, 3, 4)))
    br = f32(rs.uniform(-1, 1, (2, 4, 3)))
    for name in ("trmm", "trsm"):
        record(f"{name}_default", f"linalg.{name}", [t, b])
        record(f"{name}_upper_t", f"linalg.{name}", [t, b], lower=False, transpose=True, alpha=-1.5)
        record(f"{name}_right", f"linalg.{name}", [t, br], rightside=True)
        record(f"{name}_right_t_upper", f"linalg_{name}", [t, br], rightside=True, transpose=True, lower=False, alpha=2.0)
        record_error(f"{name}_mismatch", f"linalg.{name}", [t, br])
        record_error(f"{name}_not_square", f"linalg.{name}", [b, b])
    record("trsm_zero_pivot", "linalg.trsm", [f32([[0, 0], [1, 1]]), f32(np.ones((2, 2)))])

    record("sumlogdiag_2d", "linalg.sumlogdiag", [a])
    record("sumlogdiag_batch_f64", "linalg_sumlogdiag", [spd(rs, (2, 3), 2, np.float64)])
    m = f32(rs.uniform(-1, 1, (2, 4, 4)))
    for k in (0, 1, -2):
        record(f"extractdiag_{k}", "linalg.extractdiag", [m], offset=k)
        record(f"makediag_{k}", "linalg.makediag", [f32(rs.uniform(-1, 1, (2, 3)))], offset=k)
    record("extractdiag_2d", "linalg_extractdiag", [m[0]])
    record_error("extractdiag_bad_offset", "linalg.extractdiag", [m], offset=4)
    record_error("extractdiag_not_square", "linalg.extractdiag", [f32(np.ones((2, 3)))])
    for k, lower in ((0, True), (0, False), (1, True), (-1, False), (2, True), (-3, True)):
        record(f"extracttrian_{k}_{lower}", "linalg.extracttrian", [m], offset=k, lower=lower)
        n = 4 - abs(k)
        record(f"maketrian_{k}_{lower}", "linalg.maketrian", [f32(rs.uniform(-1, 1, (2, n * (n + 1) // 2)))],
               offset=k, lower=lower)
    record("maketrian_1d", "linalg_maketrian", [f32(np.arange(1, 7))])
    record_error("maketrian_bad_size", "linalg.maketrian", [f32(np.ones((2, 5)))])
    record_error("extracttrian_bad_offset", "linalg.extracttrian", [m], offset=-4)

    record("syrk_default", "linalg.syrk", [a23])
    record("syrk_t_alpha", "linalg.syrk", [f32(rs.uniform(-1, 1, (2, 3, 2)))], transpose=True, alpha=2.5)
    record("syrk_alias_f64", "linalg_syrk", [rs.uniform(-1, 1, (2, 2, 3))])
    record("gelqf_2d", "linalg.gelqf", [f32([[1, 2, 3], [4, 5, 6]])])
    record("gelqf_batch", "linalg_gelqf", [f32(rs.uniform(-1, 1, (2, 3, 5)))])
    record("gelqf_square_f64", "linalg.gelqf", [rs.uniform(-1, 1, (3, 3))])
    record_error("gelqf_tall", "linalg.gelqf", [f32(np.ones((3, 2)))])
    sym_a = f32(rs.uniform(-1, 1, (2, 4, 4)))
    record("syevd_lower_only", "linalg.syevd", [sym_a])     # not symmetric: the lower triangle counts
    record("syevd_2d_f64", "linalg.syevd", [spd(rs, (), 3, np.float64)])
    record("syevd_doc", "linalg.syevd", [f32([[1, 2], [2, 4]])])
    record_error("syevd_not_square", "linalg.syevd", [f32(np.ones((2, 3)))])
    inv_in = f32(rs.uniform(-1, 1, (2, 3, 3)) + 2 * np.eye(3))
    record("inverse_batch", "linalg.inverse", [inv_in])
    record("inverse_alias_f64", "linalg_inverse", [rs.uniform(-1, 1, (3, 3)) + 3 * np.eye(3)])
    record_error("inverse_singular", "linalg.inverse", [f32(np.zeros((2, 2)))])
    record("det_2d", "linalg.det", [f32([[1, 4], [2, 3]])])
    record("det_batch", "linalg_det", [inv_in], tol=1e-4)
    record("det_singular", "linalg.det", [f32([[1, 2], [2, 4]])])
    record("slogdet_batch", "linalg.slogdet", [f32([[[2, 3], [1, 4]], [[1, 2], [2, 4]], [[1, 2], [4, 3]]])])
    record("slogdet_f64_4d", "linalg_slogdet", [rs.uniform(-1, 1, (2, 2, 3, 3))])
    record_error("det_float16", "linalg.det", [np.eye(2, dtype=np.float16)])
    record_error("det_not_square", "linalg.det", [f32(np.ones((2, 3)))])


# -- histogram, all_finite, element_0index, onehot_encode, BatchNorm_v1 ------------------------------------
def misc_cases() -> None:
    rs = np.random.RandomState(3)
    x = f32([[0, 1], [2, 2], [3, 4]])
    record("histogram_doc_cnt", "histogram", [x], bins=5, range=(0, 5))
    record("histogram_doc_bins", "histogram", [x, f32([0., 2.1, 3.])])
    data = f32(rs.normal(0, 1, (4, 25)))
    data[0, :3] = [np.nan, np.inf, -np.inf]
    record("histogram_cnt_f32", "histogram", [data], bins=7, range=(-1.3, 1.1))
    record("histogram_cnt_edges", "_internal._histogram", [f32(np.linspace(-1, 1, 41))], bin_cnt=10, range=(-1, 1))
    record("histogram_cnt_empty_range", "histogram", [f32([1, 1, 2, 0.7])], bins=3, range=(1, 1))
    record("histogram_cnt_f64", "histogram", [rs.uniform(0, 10, 50)], bins=6, range=(2.5, 8.25))
    record("histogram_cnt_int", "histogram", [np.arange(-3, 17, dtype=np.int32)], bins=4, range=(0, 12))
    record("histogram_bins_uneven", "histogram", [data, f32([-2, -0.5, 0, 0.1, 1.7])])
    record("histogram_bins_edge_values", "_internal._histogram", [f32([0, 1, 2, 3, 3, 5, 6]), f32([0, 1, 3, 6])])
    record("histogram_bins_f64", "histogram", [rs.uniform(-1, 1, 30), np.array([-1, -0.2, 0.3, 1.0])])
    record_error("histogram_range_reversed", "histogram", [x], bins=3, range=(2, 1))

    record("all_finite_ok", "all_finite", [f32(rs.uniform(-1, 1, (3, 4)))])
    record("all_finite_inf", "all_finite", [f32([[1, 2], [np.inf, 0]])])
    record("all_finite_nan_f16", "all_finite", [np.array([1, np.nan], dtype=np.float16)])
    record("all_finite_f64_big", "all_finite", [np.array([1.0, 1e300])])    # inf as float32
    record("multi_all_finite_ok", "multi_all_finite", [f32([1, 2]), f32(np.ones((2, 3)))], num_arrays=2)
    record("multi_all_finite_nan", "multi_all_finite", [f32([1, 2]), f32([3, np.nan, 4]), f32([5])], num_arrays=3)
    record("multi_all_finite_init", "multi_all_finite", [f32([1, 2])], init_output=True)

    m = f32(np.arange(12).reshape(3, 4))
    record("choose_element_0index", "choose_element_0index", [m, f32([0, 3, 1])])
    record("choose_element_0index_axis0", "choose_element_0index", [m, f32([2, 0, 1, 5])], axis=0)
    record("fill_element_0index", "fill_element_0index", [m, f32([9, 8, 7]), f32([1, 5, -1])],
           legacy_op="fill_element_0index")
    record("fill_element_0index_trunc", "fill_element_0index", [m, f32([9, 8, 7]), f32([1.7, 3.2, 0])],
           legacy_op="fill_element_0index")
    record("onehot_encode", "onehot_encode", [f32([1, 3.9, -1, 4]), np.zeros((4, 4), np.float32)],
           legacy_op="_onehot_encode")
    record("onehot_encode_internal", "_internal._onehot_encode", [f32([0, 2]), np.ones((2, 3), np.float32)],
           legacy_op="_onehot_encode")

    kw = ["data", "gamma", "beta", "moving_mean", "moving_var"]
    d4 = f32(rs.normal(1, 2, (2, 3, 2, 2)))
    g, b = f32(rs.uniform(0.5, 1.5, 3)), f32(rs.uniform(-1, 1, 3))
    mm, mv = f32(rs.uniform(-1, 1, 3)), f32(rs.uniform(0.5, 2, 3))
    record("batchnorm_v1_infer", "BatchNorm_v1", input_kw=kw, inputs=[d4, g, b, mm, mv])
    record("batchnorm_v1_infer_gamma", "BatchNorm_v1", input_kw=kw, inputs=[d4, g, b, mm, mv], fix_gamma=False, eps=0.01,
           output_mean_var=True)
    record("batchnorm_v1_train", "BatchNorm_v1", input_kw=kw, inputs=[d4, g, b, mm, mv], train=True, fix_gamma=False, tol=1e-4)
    record("batchnorm_v1_train_mean_var", "BatchNorm_v1", input_kw=kw, inputs=[f32(rs.normal(0, 3, (5, 4))), g[:1].repeat(4),
                                                           b[:1].repeat(4), mm[:1].repeat(4), mv[:1].repeat(4)],
           train=True, output_mean_var=True, momentum=0.5, tol=1e-4)
    record("batchnorm_v1_global", "BatchNorm_v1", input_kw=kw, inputs=[d4, g, b, mm, mv], train=True, use_global_stats=True,
           output_mean_var=True, fix_gamma=False)


# -- Correlation, PSROIPooling, RROIAlign -------------------------------------------------------------------
def vision_cases() -> None:
    rs = np.random.RandomState(5)
    a = f32(rs.normal(0, 1, (2, 3, 7, 8)))
    b = f32(rs.normal(0, 1, (2, 3, 7, 8)))
    record("correlation_default", "Correlation", [a, b])
    record("correlation_flownet", "Correlation", [a, b], kernel_size=3, max_displacement=2, stride1=1, stride2=1,
           pad_size=2)
    record("correlation_strides", "Correlation", [a, b], kernel_size=1, max_displacement=4, stride1=2, stride2=2,
           pad_size=4)
    record("correlation_subtract", "Correlation", [a, b], kernel_size=3, max_displacement=1, pad_size=1,
           is_multiply=False)
    record("correlation_odd_stride", "Correlation", [a, b], kernel_size=3, max_displacement=3, stride1=3, stride2=2,
           pad_size=3)
    record("correlation_f64", "Correlation", [a.astype(np.float64), b.astype(np.float64)], max_displacement=2,
           pad_size=1)
    record_error("correlation_even_kernel", "Correlation", [a, b], kernel_size=2)
    record_error("correlation_too_small", "Correlation", [a, b], max_displacement=5)

    data = f32(rs.uniform(-1, 1, (2, 2 * 3 * 3, 6, 7)))
    rois = f32([[0, 0, 0, 5, 4], [1, 1.5, 2.5, 6.4, 5.5], [0, 2, 2, 2, 2], [1, -3, -2, 3, 20], [0, 4.5, 0.4, 1, 1]])
    record("psroipooling_basic", "contrib.PSROIPooling", [data, rois], spatial_scale=1.0, output_dim=2, pooled_size=3)
    record("psroipooling_scaled", "contrib.PSROIPooling", [data, rois * f32([1, 2, 2, 2, 2])], spatial_scale=0.5, output_dim=2,
           pooled_size=3, group_size=3)
    data8 = f32(rs.uniform(-1, 1, (1, 3 * 2 * 2, 9, 9)))
    record("psroipooling_group_lt_pool", "contrib.PSROIPooling", [data8, f32([[0, 0, 0, 8, 8], [0, 1.2, 3.7, 7.9, 6.1]])],
           spatial_scale=1.0, output_dim=3, pooled_size=4, group_size=2)
    record("psroipooling_f64", "contrib.PSROIPooling", [data.astype(np.float64), rois.astype(np.float64)],
           spatial_scale=0.75, output_dim=2, pooled_size=3)
    record_error("psroipooling_scale_range", "contrib.PSROIPooling", [data, rois], spatial_scale=2.0, output_dim=2,
                 pooled_size=3)

    drois = f32([[0, 0, 0, 5, 4], [1, 1.5, 2.5, 6.4, 5.5], [0, 2, 2, 2, 2], [1, -3, -2, 3, 20]])
    trans = f32(rs.uniform(-1, 1, (4, 2 * 2, 3, 3)))
    record("deformable_psroi_no_trans", "contrib.DeformablePSROIPooling", [data, drois], spatial_scale=1.0,
           output_dim=2, group_size=3, pooled_size=3, no_trans=True, sample_per_part=2)
    record("deformable_psroi_trans", "contrib.DeformablePSROIPooling", [data, drois, trans], spatial_scale=0.8,
           output_dim=2, group_size=3, pooled_size=3, trans_std=0.3, sample_per_part=3)
    record("deformable_psroi_parts", "contrib.DeformablePSROIPooling",
           [data8, f32([[0, 0, 0, 8, 8], [0, 1.2, 3.7, 7.9, 6.1]]), f32(rs.uniform(-1, 1, (2, 2, 2, 2)))],
           spatial_scale=1.0, output_dim=3, group_size=2, pooled_size=4, part_size=2, trans_std=0.5)
    record("deformable_psroi_classes", "contrib.DeformablePSROIPooling",
           [data, drois, f32(rs.uniform(-1, 1, (4, 2 * 2, 3, 3)))], spatial_scale=1.0, output_dim=2,
           group_size=3, pooled_size=3, trans_std=0.1, sample_per_part=2)
    feat = f32(rs.uniform(-1, 1, (2, 3, 10, 12)))
    rrois = f32([[0, 5, 4, 6, 3, 0], [1, 6.5, 5.2, 8, 4, 30], [0, 3, 7, 4, 6, -45], [1, 11, 9, 3, 2, 90],
                 [0, 0.5, 0.5, 0.5, 0.2, 10], [1, 20, 3, 5, 5, 180]])
    record("rroialign_adaptive", "contrib.RROIAlign", [feat, rrois], pooled_size=(2, 3), spatial_scale=1.0)
    record("rroialign_ratio", "contrib.RROIAlign", [feat, rrois * f32([1, 2, 2, 2, 2, 1])], pooled_size=(3, 3),
           spatial_scale=0.5, sampling_ratio=2)
    record("rroialign_f64", "contrib.RROIAlign", [feat.astype(np.float64), rrois.astype(np.float64)],
           pooled_size=(2, 2), spatial_scale=0.8, sampling_ratio=3)
    record_error("rroialign_rois_width", "contrib.RROIAlign", [feat, rois], pooled_size=(2, 2), spatial_scale=1.0)


# -- Proposal / MultiProposal ----------------------------------------------------------------------------------
def rpn_inputs(rs, n: int, a: int, h: int, w: int, ties: bool = False) -> tuple:
    logits = rs.normal(0, 1, (n, 2, a, h, w))
    prob = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    if ties:
        prob = np.round(prob, 1)
    cls_prob = f32(prob.reshape(n, 2 * a, h, w))
    bbox_pred = f32(rs.normal(0, 0.3, (n, 4 * a, h, w)))
    return cls_prob, bbox_pred


def proposal_cases() -> None:
    rs = np.random.RandomState(8)
    small = dict(scales=(2, 4), ratios=(0.5, 1, 2), feature_stride=8)
    c, b = rpn_inputs(rs, 1, 6, 5, 6)
    info = f32([[40, 38, 1.0]])                    # the last two columns are padding
    record("proposal_small", "contrib.Proposal", [c, b, info], rpn_pre_nms_top_n=50, rpn_post_nms_top_n=12,
           rpn_min_size=4, output_score=True, **small)
    record("proposal_no_score", "contrib.Proposal", [c, b, info], rpn_pre_nms_top_n=-1, rpn_post_nms_top_n=8,
           threshold=0.5, rpn_min_size=6, **small)
    record("proposal_cycle", "contrib.Proposal", [c, b, info], rpn_pre_nms_top_n=5, rpn_post_nms_top_n=9,
           threshold=0.3, rpn_min_size=2, output_score=True, **small)       # fewer kept than rows: repeats
    record("proposal_min_size_scaled", "contrib.Proposal", [c, b, f32([[40, 48, 1.7]])], rpn_post_nms_top_n=15,
           rpn_min_size=10, output_score=True, **small)                    # many boxes filtered (grown, -1)
    record("proposal_filtered_kept", "contrib.Proposal", [c, b, f32([[40, 48, 1.7]])], rpn_pre_nms_top_n=-1,
           rpn_post_nms_top_n=40, threshold=0.95, rpn_min_size=14, output_score=True, **small)  # -1 boxes, grown
    record("proposal_iou_loss", "contrib.Proposal", [c, b * 4, info], rpn_post_nms_top_n=10, rpn_min_size=3,
           iou_loss=True, output_score=True, **small)
    ct, bt = rpn_inputs(rs, 1, 6, 4, 4, ties=True)
    record("proposal_ties", "contrib.Proposal", [ct, bt, f32([[32, 32, 1.0]])], rpn_post_nms_top_n=20,
           rpn_min_size=1, threshold=0.6, output_score=True, **small)
    cd, bd = rpn_inputs(rs, 1, 12, 3, 4)
    record("proposal_scalar_attrs", "contrib.Proposal", [c[:, [0, 1, 6, 7]], b[:, :8], info], scales=3, ratios=(1, 2),
           feature_stride=8, rpn_post_nms_top_n=5, rpn_min_size=2)
    record("proposal_defaults", "contrib.Proposal", [cd, bd, f32([[48, 64, 1.0]])], rpn_post_nms_top_n=7,
           output_score=True)
    record_error("proposal_batch", "contrib.Proposal", [np.concatenate([c, c]), np.concatenate([b, b]),
                                                         np.concatenate([info, info])], **small)
    record_error("proposal_anchor_count", "contrib.Proposal", [c, b, info], scales=(2,), ratios=(1,))
    cm, bm = rpn_inputs(rs, 3, 6, 5, 6)
    infos = f32([[40, 48, 1.0], [33, 20, 0.6], [40, 44, 1.5]])
    record("multiproposal_batch", "contrib.MultiProposal", [cm, bm, infos], rpn_pre_nms_top_n=60,
           rpn_post_nms_top_n=10, rpn_min_size=5, output_score=True, **small)
    record("multiproposal_no_score", "contrib.MultiProposal", [cm, bm, infos], rpn_pre_nms_top_n=12,
           rpn_post_nms_top_n=16, threshold=0.4, rpn_min_size=3, **small)
    record("multiproposal_iou_loss", "contrib.MultiProposal", [cm[:2], bm[:2] * 3, infos[:2]],
           rpn_post_nms_top_n=6, iou_loss=True, output_score=True, rpn_min_size=2, **small)


# -- image ----------------------------------------------------------------------------------------------------
def image_cases() -> None:
    rs = np.random.RandomState(21)
    img = rs.randint(0, 256, (4, 5, 3)).astype(np.uint8)
    img_f = f32(rs.uniform(0, 255, (5, 4, 3)))
    gray = rs.randint(0, 256, (3, 4, 1)).astype(np.uint8)
    record("image_to_tensor_u8", "image.to_tensor", [img], tol=0)
    record("image_to_tensor_batch_f32", "image.to_tensor", [f32(rs.uniform(0, 255, (2, 3, 4, 3)))])
    record("image_to_tensor_f64", "image.to_tensor", [rs.uniform(0, 255, (3, 2, 1))])
    record_error("image_to_tensor_2d", "image.to_tensor", [f32(np.ones((3, 4)))])
    chw = f32(rs.uniform(0, 1, (3, 4, 5)))
    record("image_normalize_3", "image.normalize", [chw], mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225))
    record("image_normalize_1", "image.normalize", [f32(rs.uniform(0, 1, (2, 3, 2, 2)))], mean=0.5, std=(0.25,))
    record("image_normalize_gray", "image.normalize", [f32(rs.uniform(0, 1, (1, 3, 3)))], mean=(0.3,), std=(2,))
    record("image_normalize_u8_wraps", "image.normalize", [np.full((3, 2, 2), 5, np.uint8)], mean=(10, 2, 3),
           std=(2, 2, 2), tol=0)
    record("image_normalize_f64", "image.normalize", [rs.uniform(0, 1, (3, 2, 3))], mean=(0.1, 0.2, 0.3),
           std=(0.5, 0.6, 0.7))
    record("image_normalize_f16", "image.normalize", [rs.uniform(0, 1, (3, 2, 3)).astype(np.float16)],
           mean=(0.1, 0.2, 0.3), std=(0.5, 0.6, 0.7), tol=1e-3)
    record_error("image_normalize_default_mean", "image.normalize", [chw])
    record_error("image_normalize_channels", "image.normalize", [f32(np.ones((2, 3, 3)))], mean=0, std=1)
    record("image_crop_hwc", "image.crop", [img], x=1, y=2, width=3, height=2, tol=0)
    record("image_crop_batch", "image.crop", [f32(rs.uniform(0, 1, (2, 5, 6, 1)))], x=0, y=1, width=6, height=3)
    record_error("image_crop_too_wide", "image.crop", [img], x=3, y=0, width=3, height=2)
    record_error("image_crop_channels", "image.crop", [f32(np.ones((4, 4, 2)))], x=0, y=0, width=2, height=2)
    for name, axis in (("flip_left_right", 1), ("flip_top_bottom", 0)):
        odd = rs.randint(0, 256, (5, 5, 3)).astype(np.uint8)
        middle = np.zeros(odd.shape, bool)
        middle[(slice(None),) * axis + (2,)] = True              # MXNet never writes the middle
        record(f"image_{name}_odd", f"image.{name}", [odd], tol=0, unwritten=middle)
        record(f"image_{name}_even", f"image.{name}", [img_f[:4]], tol=0)
        record(f"image_{name}_gray", f"image.{name}", [gray[:2]], tol=0)
        record_error(f"image_{name}_4d", f"image.{name}", [img[None]])
    record("image_adjust_lighting_u8", "image.adjust_lighting", [img], alpha=(0.02, -0.01, 0.03), tol=0)
    record("image_adjust_lighting_f32", "image.adjust_lighting", [img_f], alpha=(-0.5, 0.3, 1.2))
    # the random operators with a degenerate range are deterministic: brightness/contrast/saturation/hue
    for factor in (0.0, 0.6, 1.7):
        for name in ("brightness", "contrast", "saturation"):
            record(f"image_random_{name}_u8_{factor}", f"image.random_{name}", [img], min_factor=factor,
                   max_factor=factor, tol=0)
            record(f"image_random_{name}_f32_{factor}", f"image.random_{name}", [img_f], min_factor=factor,
                   max_factor=factor, tol=1e-4)
    record("image_random_contrast_gray", "image.random_contrast", [gray], min_factor=0.5, max_factor=0.5, tol=0)
    record("image_random_saturation_gray", "image.random_saturation", [gray], min_factor=0.5, max_factor=0.5,
           tol=0)
    hue_img = rs.randint(0, 256, (6, 7, 3)).astype(np.uint8)
    hue_img[0, :3] = [[10, 10, 10], [255, 0, 0], [0, 0, 0]]                        # grey, pure red, black
    for alpha in (0.0, 0.1, 0.35, 0.9):
        record(f"image_random_hue_u8_{alpha}", "image.random_hue", [hue_img], min_factor=alpha, max_factor=alpha,
               tol=0)
        record(f"image_random_hue_f32_{alpha}", "image.random_hue", [img_f], min_factor=alpha, max_factor=alpha,
               tol=1e-3)
    record_error("image_random_hue_negative", "image.random_hue", [hue_img], min_factor=-0.2, max_factor=0.1)
    # resize: OpenCV 3.4.2 (bilinear: fixed-point uint8 with its SSE rounding; nearest), (width, height)
    small = rs.randint(0, 256, (7, 9, 3)).astype(np.uint8)
    record("image_resize_u8_down", "image.resize", [small], size=(5, 4), tol=0)
    record("image_resize_u8_up", "image.resize", [small[..., :1]], size=(14, 11), tol=0)
    record("image_resize_u8_half", "image.resize", [rs.randint(0, 256, (8, 6, 3)).astype(np.uint8)], size=(3, 4), tol=0)
    record("image_resize_u8_square", "image.resize", [small], size=6, tol=0)
    record("image_resize_keep_ratio_tall", "image.resize", [small], size=5, keep_ratio=True, tol=0)
    record("image_resize_keep_ratio_wide", "image.resize", [np.ascontiguousarray(small.transpose(1, 0, 2))], size=4,
           keep_ratio=True, tol=0)
    record("image_resize_same", "image.resize", [small], size=(9, 7), tol=0)
    record("image_resize_f32", "image.resize", [f32(rs.uniform(0, 1, (5, 4, 3)))], size=(7, 3))
    record("image_resize_f64_batch", "image.resize", [rs.uniform(0, 1, (2, 4, 6, 1))], size=(4, 9))
    record("image_resize_nearest", "image.resize", [small], size=(13, 5), interp=0, tol=0)
    record("image_resize_nearest_batch", "image.resize", [f32(rs.uniform(0, 1, (2, 6, 5, 3)))], size=(3, 8), interp=0)
    record("image_resize_u8_batch", "image.resize", [rs.randint(0, 256, (3, 5, 6, 3)).astype(np.uint8)],
           size=(8, 3), tol=0)
    record_error("image_resize_size3", "image.resize", [small], size=(1, 2, 3))
    record_error("image_resize_2d", "image.resize", [small[..., 0]], size=(2, 2))
    # mx.image.imresize / copyMakeBorder (OpenCV on one HWC image; MXNet's sym functions of these two fail to
    # compose ("keyword argument name src not found"), so no symbol facts are recorded)
    record("cvimresize_u8", "_internal._cvimresize", legacy_op="_cvimresize", inputs=[small], w=5, h=11, tol=0)
    record("cvimresize_nearest_f32", "_internal._cvimresize", legacy_op="_cvimresize", inputs=[f32(rs.uniform(0, 1, (4, 6, 1)))], w=9, h=3, interp=0)
    for t in range(5):
        record(f"cvcopymakeborder_{t}", "_internal._cvcopyMakeBorder", legacy_op="_cvcopyMakeBorder", inputs=[small[:3, :4]], top=1, bot=2, left=3, right=1,
               type=t, value=3.6, tol=0)
    record("cvcopymakeborder_values", "_internal._cvcopyMakeBorder", legacy_op="_cvcopyMakeBorder", inputs=[small[:2, :2]], top=1, bot=0, left=0, right=1,
           values=(1.5, 2.5, 300), tol=0)
    record("cvcopymakeborder_f32", "_internal._cvcopyMakeBorder", legacy_op="_cvcopyMakeBorder", inputs=[f32(rs.uniform(0, 1, (2, 3, 3)))], top=0, bot=1,
           left=2, right=0, value=-0.25)
    record("image_random_lighting_zero", "image.random_lighting", [img], alpha_std=0.0, tol=0)


# -- quantization (oneDNN reorders in MXNet's CPU build) ----------------------------------------------------------
def quantization_cases() -> None:
    rs = np.random.RandomState(31)
    a = f32([[0.1392, 0.5928], [0.6027, 0.8579]])
    record("quantize_doc_int8", "contrib.quantize", [a, f32([0.0]), f32([1.0])], out_type="int8", tol=0)
    x = f32(rs.uniform(-2, 3, (3, 4, 5)))
    x[0, 0, :3] = [2.5, -2.5, 0.0]
    record("quantize_int8", "contrib.quantize", [x, f32([-2.5]), f32([2.5])], out_type="int8", tol=0)
    record("quantize_uint8_default", "contrib.quantize", [np.abs(x), f32([0.0]), f32([3.0])], tol=0)
    record("quantize_uint8_negative_saturates", "contrib.quantize", [x, f32([-1.0]), f32([2.0])], tol=0)
    record("quantize_int8_4d", "contrib.quantize", [f32(rs.uniform(-1, 1, (2, 3, 2, 2))), f32([-0.7]), f32([0.9])],
           out_type="int8", tol=0)
    record("quantize_v2_calib_int8", "contrib.quantize_v2", [x], min_calib_range=-2.0, max_calib_range=2.5, tol=0)
    record("quantize_v2_calib_auto_uint8", "contrib.quantize_v2", [np.abs(x)], out_type="auto", min_calib_range=0.0,
           max_calib_range=2.0, tol=0)
    record("quantize_v2_calib_auto_int8", "contrib.quantize_v2", [x], out_type="auto", min_calib_range=-1.5,
           max_calib_range=1.0, tol=0)
    record("quantize_v2_data_range", "contrib.quantize_v2", [x], tol=0)
    record("quantize_v2_data_range_uint8", "contrib.quantize_v2", [np.abs(x) + 0.5], out_type="uint8", tol=0)
    record("quantize_v2_passthrough_int8", "contrib.quantize_v2", [rs.randint(-128, 128, (3, 4)).astype(np.int8)],
           tol=0)
    record("quantize_v2_passthrough_uint8_calib", "contrib.quantize_v2",
           [rs.randint(0, 256, (2, 5)).astype(np.uint8)], min_calib_range=0.0, max_calib_range=4.0, tol=0)
    q8 = rs.randint(-128, 128, (3, 5)).astype(np.int8)
    qu8 = rs.randint(0, 256, (3, 5)).astype(np.uint8)
    record("dequantize_int8", "contrib.dequantize", [q8, f32([-1.5]), f32([1.5])])
    record("dequantize_int8_asym_range", "contrib.dequantize", [q8, f32([-0.5]), f32([2.0])])
    record("dequantize_uint8", "contrib.dequantize", [qu8, f32([0.0]), f32([3.0])])
    record_error("dequantize_float", "contrib.dequantize", [f32(np.ones((2, 2))), f32([0.0]), f32([1.0])])
    q32 = rs.randint(-2 ** 20, 2 ** 20, (4, 6)).astype(np.int32)
    record("requantize_calib", "contrib.requantize", [q32, f32([-100.0]), f32([100.0])], min_calib_range=-0.03,
           max_calib_range=0.05, tol=0)
    record("requantize_data_range", "contrib.requantize", [q32, f32([-100.0]), f32([100.0])], tol=0)
    record("requantize_uint8", "contrib.requantize", [np.abs(q32), f32([-50.0]), f32([80.0])], out_type="uint8",
           min_calib_range=0.0, max_calib_range=0.02, tol=0)
    lo, hi = f32([-1.5]), f32([2.0])
    q4 = rs.randint(-128, 128, (2, 3, 5, 6)).astype(np.int8)
    u4 = rs.randint(0, 256, (2, 3, 5, 6)).astype(np.uint8)
    record("quantized_flatten", "contrib.quantized_flatten", [q4, lo, hi], tol=0)
    record("quantized_act_relu", "contrib.quantized_act", [q4, lo, hi], act_type="relu", tol=0)
    record("quantized_pooling_max", "contrib.quantized_pooling", [q4, lo, hi], kernel=(3, 3), stride=(2, 2),
           pad=(1, 1), tol=0)
    record("quantized_pooling_avg", "contrib.quantized_pooling", [q4, lo, hi], kernel=(2, 3), stride=(1, 2),
           pad=(1, 1), pool_type="avg", tol=0)
    record("quantized_pooling_avg_exclude_pad", "contrib.quantized_pooling", [u4, f32([0.0]), hi], kernel=(3, 3),
           pad=(1, 1), pool_type="avg", count_include_pad=False, tol=0)
    record("quantized_pooling_avg_full", "contrib.quantized_pooling", [u4, f32([0.0]), hi], kernel=(2, 2),
           stride=(2, 2), pool_type="avg", pooling_convention="full", tol=0)
    record("quantized_pooling_global", "contrib.quantized_pooling", [q4, lo, hi], kernel=(1, 1), global_pool=True,
           pool_type="avg", tol=0)
    record("quantized_concat_mixed", "contrib.quantized_concat",
           [q4, u4, q4[:, :1], lo, hi, f32([0.0]), f32([1.2]), f32([-3.0]), f32([0.5])], num_args=3, dim=1, tol=0)
    record("quantized_concat_uint8", "contrib.quantized_concat", [u4, u4[:1], f32([0.0]), f32([3.0]), f32([0.0]),
                                                                  f32([1.5])], num_args=2, dim=0, tol=0)
    record("quantized_concat_same", "contrib.quantized_concat", [q4, q4, lo, hi, lo, hi], num_args=2, dim=3, tol=0)
    # quantized FC / conv: moderate magnitudes (oneDNN's AVX2 int8 kernels saturate int16 pair sums for
    # large ones; the exact integer result is what AVX-512 VNNI machines and the runtime give)
    xi = rs.randint(-40, 40, (4, 2, 3, 5)).astype(np.int8)
    xu = rs.randint(0, 40, (4, 2, 3, 5)).astype(np.uint8)
    wfc = rs.randint(-40, 40, (6, 30)).astype(np.int8)
    bq = rs.randint(-128, 128, (6,)).astype(np.int8)
    rngs = [f32([-1.0]), f32([2.0]), f32([-0.5]), f32([0.4])]
    record("quantized_fc_int8", "contrib.quantized_fully_connected", [xi, wfc, bq] + rngs + [f32([-0.2]), f32([0.3])],
           num_hidden=6, tol=0)
    record("quantized_fc_uint8", "contrib.quantized_fully_connected", [xu, wfc, bq] + rngs + [f32([-0.7]), f32([0.1])],
           num_hidden=6, tol=0)
    nb_kw = ["data", "weight", "min_data", "max_data", "min_weight", "max_weight"]   # no positional bias slot
    record("quantized_fc_no_bias", "contrib.quantized_fully_connected", input_kw=nb_kw,
           inputs=[xi.reshape(4, 30), wfc] + rngs, num_hidden=6, no_bias=True, tol=0)
    record("quantized_fc_no_flatten", "contrib.quantized_fully_connected",
           [xu, rs.randint(-40, 40, (3, 5)).astype(np.int8), bq[:3]] + rngs + [f32([-0.2]), f32([0.3])],
           num_hidden=3, flatten=False, tol=0)
    wc = rs.randint(-40, 40, (4, 2, 3, 3)).astype(np.int8)
    record("quantized_conv", "contrib.quantized_conv", [xu, wc, bq[:4]] + rngs + [f32([-0.2]), f32([0.3])],
           kernel=(3, 3), num_filter=4, pad=(1, 1), tol=0)
    record("quantized_conv_stride_no_bias", "contrib.quantized_conv", input_kw=nb_kw, inputs=[xu, wc] + rngs,
           kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 0), no_bias=True, tol=0)
    record_error("quantized_conv_int8_data", "contrib.quantized_conv", [xi, wc, bq[:4]] + rngs + [f32([-0.2]),
                                                                                               f32([0.3])],
                 kernel=(3, 3), num_filter=4)
    record("requantize_auto", "contrib.requantize", [np.abs(q32), f32([-50.0]), f32([80.0])], out_type="auto",
           min_calib_range=0.0, max_calib_range=0.02, tol=0)


# -- cumsum, round_ste, sign_ste ------------------------------------------------------------------------------------
def cumsum_ste_cases() -> None:
    rs = np.random.RandomState(41)
    x = f32(rs.uniform(-1, 1, (3, 4, 2)))
    record("cumsum_flat", "cumsum", [x])
    record("cumsum_axis", "cumsum", [x], axis=1)
    record("cumsum_f64", "cumsum", [x], axis=2, dtype="float64")
    record_error("cumsum_negative_axis", "cumsum", [x], axis=-1)   # MXNet indexes the shape with -1
    record("cumsum_int32", "cumsum", [rs.randint(-5, 5, (4, 3)).astype(np.int32)], axis=0, tol=0)
    record("cumsum_to_int64", "cumsum", [rs.randint(0, 100, (6,)).astype(np.int8)], dtype="int64", tol=0)
    record_error("cumsum_bad_axis", "cumsum", [x], axis=3)
    v = f32([-2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, -1.9, 1.2])
    record("round_ste", "contrib.round_ste", [v], tol=0)
    record("sign_ste", "contrib.sign_ste", [v], tol=0)


# -- Convolution_v1, Pooling_v1 ------------------------------------------------------------------------------------
def v1_cases() -> None:
    rs = np.random.RandomState(51)
    x = f32(rs.uniform(-2, 1, (2, 4, 7, 6)))                  # mostly negative: zero padding shows in max
    w = f32(rs.uniform(-1, 1, (6, 2, 3, 3)))
    b = f32(rs.uniform(-1, 1, (6,)))
    record("convolution_v1", "Convolution_v1", [x, w[:, :1].repeat(4, axis=1), b], kernel=(3, 3), num_filter=6,
           pad=(1, 1), stride=(2, 1), tol=1e-4)
    record("convolution_v1_group_dilate_nobias", "Convolution_v1", [x, w], kernel=(3, 3), num_filter=6,
           num_group=2, dilate=(2, 1), no_bias=True, tol=1e-4)
    record_error("convolution_v1_3d", "Convolution_v1", [f32(np.ones((1, 1, 3, 3, 3))), f32(np.ones((1, 1, 2, 2, 2))),
                                                         f32(np.ones(1))], kernel=(2, 2, 2), num_filter=1)
    for conv in ("valid", "full"):
        for ptype in ("max", "avg", "sum"):
            record(f"pooling_v1_{ptype}_{conv}", "Pooling_v1", [x], kernel=(3, 2), stride=(2, 2), pad=(1, 1),
                   pool_type=ptype, pooling_convention=conv)
    record("pooling_v1_global_avg", "Pooling_v1", [x], global_pool=True, pool_type="avg", kernel=(1, 1), pad=(2, 2))
    record("pooling_v1_global_max", "Pooling_v1", [x], global_pool=True, kernel=(2, 2))
    record("pooling_v1_default_stride", "Pooling_v1", [x], kernel=(2, 3))
    record_error("pooling_v1_kernel_too_big", "Pooling_v1", [x], kernel=(9, 2))


# -- random_pdf_* ------------------------------------------------------------------------------------------------------
def pdf_cases() -> None:
    rs = np.random.RandomState(61)
    pos = f32(rs.uniform(0.2, 3, (2, 3, 4)))
    counts = f32(rs.randint(0, 8, (2, 3, 4)))
    two = lambda lo, hi: f32(rs.uniform(lo, hi, (2, 3)))   # noqa: E731
    for is_log in (False, True):
        tag = "log" if is_log else "pdf"
        record(f"pdf_uniform_{tag}", "random_pdf_uniform", [pos, two(0, 1), two(1.5, 4)], is_log=is_log)
        record(f"pdf_normal_{tag}", "random_pdf_normal", [pos - 1, two(-1, 1), two(0.5, 2)], is_log=is_log)
        record(f"pdf_gamma_{tag}", "random_pdf_gamma", [pos, two(0.5, 3), two(0.5, 2)], is_log=is_log, tol=1e-4)
        record(f"pdf_exponential_{tag}", "random_pdf_exponential", [pos, two(0.5, 2)], is_log=is_log)
        record(f"pdf_poisson_{tag}", "random_pdf_poisson", [counts, two(0.5, 5)], is_log=is_log, tol=1e-4)
        record(f"pdf_negative_binomial_{tag}", "random_pdf_negative_binomial", [counts, two(1, 6), two(0.2, 0.8)],
               is_log=is_log, tol=1e-4)
        record(f"pdf_generalized_negative_binomial_{tag}", "random_pdf_generalized_negative_binomial",
               [counts, two(1, 6), two(0.2, 2)], is_log=is_log, tol=1e-4)
        simplex = rs.uniform(0.1, 1, (2, 3, 5, 4))
        simplex = f32(simplex / simplex.sum(axis=-1, keepdims=True))
        record(f"pdf_dirichlet_{tag}", "random_pdf_dirichlet", [simplex, f32(rs.uniform(0.5, 3, (2, 4)))],
               is_log=is_log, tol=1e-4)
    record("pdf_normal_per_sample", "random_pdf_normal", [pos[0, 0], f32(rs.uniform(0, 1, 4)), f32(rs.uniform(1, 2, 4))])
    record_error("pdf_param_shape", "random_pdf_normal", [pos[0, 0], f32([0.5]), f32([1.5])])
    record("pdf_normal_f64", "random_pdf_normal", [rs.normal(0, 1, (3, 2)), rs.normal(0, 1, (3,)),
                                                  rs.uniform(0.5, 1, (3,))], is_log=True)
    record("pdf_dirichlet_1d", "random_pdf_dirichlet", [f32([0.2, 0.3, 0.5]), f32([1.0, 2.0, 3.0])])
    record("pdf_uniform_alias", "_internal._random_pdf_uniform", [pos, two(0, 1), two(1.5, 4)])
    record_error("pdf_param_rank", "random_pdf_normal", [f32(np.ones(3)), f32(np.ones((3, 1))), f32(np.ones((3, 1)))])


# -- names MXNet keeps for old code and graphs -----------------------------------------------------------------------
def compat_cases() -> None:
    rs = np.random.RandomState(71)
    w = f32(rs.uniform(-1, 1, (5, 3)))
    record("sparse_embedding", "contrib.SparseEmbedding", [f32([[0, 4], [2, 7], [-1, 1.6]]), w], input_dim=5,
           output_dim=3, tol=0)
    record("sparse_embedding_f64", "contrib.SparseEmbedding", [f32([3, 0]), w.astype(np.float64)], input_dim=5,
           output_dim=3, dtype="float64", tol=0)
    a, b = f32(rs.uniform(-1, 1, (2, 3))), f32(rs.uniform(-1, 1, (2, 3)))
    record("grad_add", "_internal._grad_add", [a, b])
    for name in ("_Equal", "_Not_Equal", "_Greater", "_Greater_Equal", "_Lesser", "_Lesser_Equal", "_Logical_And",
                 "_Logical_Or", "_Logical_Xor", "_Mod"):
        record(f"legacy{name.lower()}", f"_internal.{name}", [f32([[0, 1, 2], [3, -1, 0]]), f32([[0, 2, 1], [3, 0, 0]])]
               if name != "_Mod" else [a * 5, b + 2], tol=0 if name != "_Mod" else 1e-5)


# -- optimizer updates (the new weight, and the states updated in place; MXNet 1.9.1 cannot compose them as
#    Symbols: "Not enough argument to call operator", so no symbol facts are recorded) ----------------------------
def optimizer_cases() -> None:
    rs = np.random.RandomState(81)
    shape = (3, 4)
    w, g = f32(rs.uniform(-1, 1, shape)), f32(rs.uniform(-2, 2, shape))
    st = lambda lo=-0.5, hi=0.5: f32(rs.uniform(lo, hi, shape))   # noqa: E731
    pos = lambda: f32(rs.uniform(0.1, 1.0, shape))                # noqa: E731
    common = dict(lr=0.05, wd=1e-3, rescale_grad=0.5)
    record("sgd_update", "sgd_update", legacy_op="sgd_update", inputs=[w, g], **common)
    record("sgd_update_clip", "sgd_update", legacy_op="sgd_update", inputs=[w, g], clip_gradient=0.3, **common)
    record("sgd_mom_update", "sgd_mom_update", legacy_op="sgd_mom_update", inputs=[w, g, st()], momentum=0.9, mutated=(2,), **common)
    record("sgd_mom_update_clip", "sgd_mom_update", legacy_op="sgd_mom_update", inputs=[w, g, st()], momentum=0.8, clip_gradient=0.2, mutated=(2,),
           **common)
    w16 = w.astype(np.float16)
    record("mp_sgd_update", "mp_sgd_update", legacy_op="mp_sgd_update", inputs=[w16, g.astype(np.float16), w], mutated=(2,), tol=1e-3, **common)
    record("mp_sgd_mom_update", "mp_sgd_mom_update", legacy_op="mp_sgd_mom_update", inputs=[w16, g.astype(np.float16), st(), w], momentum=0.9,
           clip_gradient=0.5, mutated=(2, 3), tol=1e-3, **common)
    record("nag_mom_update", "nag_mom_update", legacy_op="nag_mom_update", inputs=[w, g, st()], momentum=0.9, mutated=(2,), **common)
    record("nag_mom_update_clip", "nag_mom_update", legacy_op="nag_mom_update", inputs=[w, g, st()], momentum=0.7, clip_gradient=0.4, mutated=(2,),
           **common)
    record("mp_nag_mom_update", "mp_nag_mom_update", legacy_op="mp_nag_mom_update", inputs=[w16, g.astype(np.float16), st(), w], momentum=0.9,
           mutated=(2, 3), tol=1e-3, **common)
    record("signsgd_update", "signsgd_update", legacy_op="signsgd_update", inputs=[w, g], **common)
    record("signum_update", "signum_update", legacy_op="signum_update", inputs=[w, g, st()], momentum=0.9, wd_lh=0.01, mutated=(2,), **common)
    record("signum_update_clip", "signum_update", legacy_op="signum_update", inputs=[w, g, st()], momentum=0.5, clip_gradient=0.3, mutated=(2,),
           **common)
    record("ftml_update", "ftml_update", legacy_op="ftml_update", inputs=[w, g, pos(), pos(), st()], t=3, beta1=0.6, beta2=0.999, mutated=(2, 3, 4),
           tol=1e-4, lr=0.05, wd=1e-3, rescale_grad=0.5)
    record("ftml_update_clip", "ftml_update", legacy_op="ftml_update", inputs=[w, g, pos(), pos(), st()], t=1, clip_grad=0.2, mutated=(2, 3, 4),
           tol=1e-4, lr=0.05)
    record("adam_update", "adam_update", legacy_op="adam_update", inputs=[w, g, st(), pos()], mutated=(2, 3), tol=1e-4, **common)
    record("adam_update_clip", "adam_update", legacy_op="adam_update", inputs=[w, g, st(), pos()], beta1=0.8, beta2=0.99, epsilon=1e-6,
           clip_gradient=0.3, mutated=(2, 3), tol=1e-4, **common)
    record("rmsprop_update", "rmsprop_update", legacy_op="rmsprop_update", inputs=[w, g, pos()], gamma1=0.9, mutated=(2,), tol=1e-4, **common)
    record("rmsprop_update_clip", "rmsprop_update", legacy_op="rmsprop_update", inputs=[w, g, pos()], clip_gradient=0.2, clip_weights=0.5, mutated=(2,),
           tol=1e-4, **common)
    n = pos() + 1.0
    record("rmspropalex_update", "rmspropalex_update", legacy_op="rmspropalex_update", inputs=[w, g, n, st(-0.2, 0.2), st()], mutated=(2, 3, 4), tol=1e-4,
           **common)
    record("rmspropalex_update_clip", "rmspropalex_update", legacy_op="rmspropalex_update", inputs=[w, g, n, st(-0.2, 0.2), st()], clip_gradient=0.5,
           clip_weights=0.6, gamma2=0.8, mutated=(2, 3, 4), tol=1e-4, **common)
    record("ftrl_update", "ftrl_update", legacy_op="ftrl_update", inputs=[w, g, st(), pos()], lamda1=0.05, beta=1.5, mutated=(2, 3), tol=1e-4,
           **common)
    record("ftrl_update_clip", "ftrl_update", legacy_op="ftrl_update", inputs=[w, g, st(), pos()], clip_gradient=0.4, mutated=(2, 3), tol=1e-4,
           **common)
    lamb = dict(beta1=0.9, beta2=0.99, epsilon=1e-6, wd=1e-2, rescale_grad=0.5)
    record("lamb_update_phase1", "lamb_update_phase1", legacy_op="lamb_update_phase1", inputs=[w, g, st(), pos()],
           t=3, mutated=(2, 3), tol=1e-4, **lamb)
    record("lamb_update_phase1_nobc_clip", "lamb_update_phase1", legacy_op="lamb_update_phase1",
           inputs=[w, g, st(), pos()], t=1, bias_correction=False, clip_gradient=0.3, mutated=(2, 3), tol=1e-4, **lamb)
    record("lamb_update_phase2", "lamb_update_phase2", legacy_op="lamb_update_phase2",
           inputs=[w, st(), f32([2.0]), f32([0.5])], lr=0.05, tol=1e-5)
    record("lamb_update_phase2_bounds", "lamb_update_phase2", legacy_op="lamb_update_phase2",
           inputs=[w, st(), f32([2.0]), f32([0.5])], lr=0.05, lower_bound=0.1, upper_bound=1.5, tol=1e-5)
    record("lamb_update_phase2_zero_r2", "lamb_update_phase2", legacy_op="lamb_update_phase2",
           inputs=[w, st(), f32([2.0]), f32([0.0])], lr=0.05, tol=1e-5)
    record("mp_lamb_update_phase1", "mp_lamb_update_phase1", legacy_op="mp_lamb_update_phase1",
           inputs=[w16, g.astype(np.float16), st(), pos(), w], t=2, mutated=(2, 3), tol=1e-3, **lamb)
    record("mp_lamb_update_phase2", "mp_lamb_update_phase2", legacy_op="mp_lamb_update_phase2",
           inputs=[w16, st(), f32([1.5]), f32([0.5]), w], lr=0.05, mutated=(4,), tol=1e-3)
    record("multi_sum_sq", "multi_sum_sq", [w, g[:2], f32(rs.uniform(-1, 1, (7,)))], num_arrays=3, tol=1e-6)
    lrs, wss, gss, wds = f32([0.1, 0.2, 0.3, 0.4]), f32([4.0, 0.0, 2.0, 1.0]), f32([1.0, 3.0, 0.0, 2.5]), \
        f32([1e-3, 1e-2, 0.0, 1e-4])
    record("multi_lars", "multi_lars", [lrs, wss, gss, wds], eta=0.001, eps=1e-8, rescale_grad=0.5)
    one = f32([1.0])
    record("adamw_update", "contrib.adamw_update", legacy_op="_adamw_update", inputs=[w, g, st(), pos(), f32([0.5])],
           lr=0.05, eta=0.8, wd=1e-2, mutated=(2, 3), tol=1e-4)
    record("adamw_update_clip", "contrib.adamw_update", legacy_op="_adamw_update", inputs=[w, g, st(), pos(), one],
           lr=0.05, eta=1.0, clip_gradient=0.3, beta1=0.8, mutated=(2, 3), tol=1e-4)
    record("adamw_update_skipped", "contrib.adamw_update", legacy_op="_adamw_update",
           inputs=[w, g, st(), pos(), f32([np.inf])], lr=0.05, eta=1.0, mutated=(2, 3), unwritten=np.ones(shape, bool))
    record("mp_adamw_update", "contrib.mp_adamw_update", legacy_op="_mp_adamw_update",
           inputs=[w16, g.astype(np.float16), st(), pos(), w, f32([0.5])], lr=0.05, eta=0.8, wd=1e-2,
           mutated=(2, 3, 4), tol=1e-3)
    record("adam_update_f64", "adam_update", legacy_op="adam_update", inputs=[w.astype(np.float64), g.astype(np.float64), st().astype(np.float64),
                                              pos().astype(np.float64)], mutated=(2, 3), **common)


SECTIONS = [linalg_cases, misc_cases, vision_cases, proposal_cases, image_cases, quantization_cases, cumsum_ste_cases,
            v1_cases, pdf_cases, compat_cases, optimizer_cases]


def main() -> None:
    for section in SECTIONS:
        section()
    with open(os.path.join(HERE, "extra_ops_cases.json"), "w", encoding="utf-8") as f:
        f.write('{"mxnet_version": "%s",\n"cases": [\n' % mx.__version__)
        f.write(",\n".join(json.dumps(c, sort_keys=True) for c in CASES))
        f.write('\n],\n"errors": [\n')
        f.write(",\n".join(json.dumps(c, sort_keys=True) for c in ERRORS))
        f.write("\n]}\n")
    np.savez_compressed(os.path.join(HERE, "extra_ops_cases.npz"), **ARRAYS)
    print(f"{len(CASES)} cases, {len(ERRORS)} errors, {len(ARRAYS)} arrays")


if __name__ == "__main__":
    main()
