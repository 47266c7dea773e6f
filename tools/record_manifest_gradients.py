"""Records MXNet 1.9.1's gradients of the operator cases in ``shared/fixtures/mxnet/ops/manifest.json``
and of further cases defined here (``_extra_cases``: output layers and op variants).

Run with real MXNet (``/tmp/mxnet-venv/bin/python tools/record_manifest_gradients.py [OUT_DIR]``). For each
case it marks every non-auxiliary input (``attach_grad``), runs the op under ``autograd.record``,
calls ``autograd.backward`` with seeded standard-normal head gradients and writes
``<case>.npz``: ``meta`` (JSON: op, attrs as MXNet's strings, train, case, num_inputs, num_outputs),
``input<i>``, ``output<k>``, ``head_grad<k>``, ``grad<i>`` (inputs that got a gradient buffer). A case
MXNet refuses (no FGradient, or an error) is listed in ``index.json`` with MXNet's message instead.
Same format as ``tools/record_gradients.py`` (``tests/gradcheck.py``: ``load_recorded``); read by ``tests/autograd/test_op_gradients.py``.
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "fixtures", "mxnet", "ops")
if not os.path.isdir(SHARED):
    SHARED = "/work/shared/fixtures/mxnet/ops"
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "tests", "runtime", "fixtures", "gradients")
# cases whose forward draws random numbers in training mode: recorded in prediction mode
PREDICT = {"dropout_infer", "batchnorm_infer"}
# inputs MXNet refuses to differentiate (Embedding: "doesn't support calculate data gradient",
# softmax_cross_entropy: "Cannot take gradient wrt label")
NO_GRAD = {("Embedding", 0), ("softmax_cross_entropy", 1)}


def _extra_cases():
    """Cases beyond the shared manifest: the output layers (whose gradients are the point of them),
    and the unary, binary, scalar, reduction and nn variants the manifest has no case of."""
    rng = np.random.RandomState(7)

    def x(*shape, lo=-1.0, hi=1.0):
        return rng.uniform(lo, hi, shape).astype(np.float32)

    def lab(n, k, *shape):
        return rng.randint(0, k, (n,) + shape).astype(np.float32)

    out = []

    def add(name, op, attrs, *inputs):
        out.append({"case": name, "json_op": op, "json_attrs": {k: str(v) for k, v in attrs.items()},
                    "inputs": list(inputs)})

    add("softmaxoutput", "SoftmaxOutput", {}, x(4, 5), lab(4, 5))
    add("softmaxoutput_batch_scale", "SoftmaxOutput", {"normalization": "batch", "grad_scale": 2.0}, x(4, 5), lab(4, 5))
    add("softmaxoutput_ignore_valid", "SoftmaxOutput", {"use_ignore": True, "ignore_label": 1, "normalization": "valid"},
        x(6, 3), np.array([1, 0, 1, 2, 2, 1], np.float32))
    add("softmaxoutput_multi", "SoftmaxOutput", {"multi_output": True}, x(2, 3, 4), lab(2, 3, 4))
    add("softmaxoutput_multi_batch", "SoftmaxOutput", {"multi_output": True, "normalization": "batch"}, x(2, 3, 4),
        lab(2, 3, 4))
    add("softmaxoutput_preserve", "SoftmaxOutput", {"preserve_shape": True}, x(2, 3, 4), lab(2, 4, 3))
    add("softmaxoutput_smooth", "SoftmaxOutput", {"smooth_alpha": 0.1}, x(4, 5), lab(4, 5))
    add("softmaxoutput_out_grad", "SoftmaxOutput", {"out_grad": True}, x(4, 5), lab(4, 5))
    add("linear_regression", "LinearRegressionOutput", {"grad_scale": 2.0}, x(4, 3), x(4, 3))
    add("mae_regression", "MAERegressionOutput", {}, x(4, 3), x(4, 3))
    add("logistic_regression", "LogisticRegressionOutput", {}, x(4, 3), x(4, 3, lo=0, hi=1))
    add("makeloss_batch", "MakeLoss", {"normalization": "batch", "grad_scale": 3.0}, x(4, 3))
    add("makeloss_valid", "MakeLoss", {"normalization": "valid", "valid_thresh": 0.2}, x(4, 3))
    add("svm_output", "SVMOutput", {}, x(4, 5), lab(4, 5))
    add("svm_output_linear", "SVMOutput", {"use_linear": True, "margin": 0.5}, x(4, 5), lab(4, 5))
    add("softmax_cross_entropy", "softmax_cross_entropy", {}, x(4, 5), lab(4, 5))
    for name in ("sin", "cos", "tan", "arctan", "sinh", "cosh", "arcsinh", "expm1", "cbrt", "softsign", "degrees",
                 "radians", "negative", "erf", "round", "floor"):
        add("unary_" + name, name, {}, x(3, 4))
    for name in ("arcsin", "arccos", "arctanh"):
        add("unary_" + name, name, {}, x(3, 4, lo=-0.9, hi=0.9))
    for name in ("log2", "log10", "log1p", "rcbrt", "reciprocal", "gamma", "gammaln", "rsqrt"):
        add("unary_" + name, name, {}, x(3, 4, lo=0.3, hi=2.5))
    add("unary_arccosh", "arccosh", {}, x(3, 4, lo=1.2, hi=3))
    add("unary_erfinv", "erfinv", {}, x(3, 4, lo=-0.8, hi=0.8))
    add("hard_sigmoid", "hard_sigmoid", {"alpha": 0.3, "beta": 0.4}, x(3, 4, lo=-3, hi=3))
    for name in ("broadcast_sub", "broadcast_minimum", "broadcast_hypot", "elemwise_mul", "elemwise_div",
                 "elemwise_sub"):
        shape_b = (3, 1) if name.startswith("broadcast") else (3, 4)
        add(name, name, {}, x(3, 4), x(*shape_b, lo=0.5, hi=1.5))
    add("broadcast_power", "broadcast_power", {}, x(2, 3, lo=0.5, hi=2), x(1, 3))
    add("broadcast_mod", "broadcast_mod", {}, x(2, 3, lo=0.5, hi=4), x(2, 1, lo=0.7, hi=1.3))
    for name, scalar in (("_mul_scalar", 1.5), ("_div_scalar", 2.5), ("_rdiv_scalar", 2.0), ("_rpower_scalar", 1.7),
                         ("_minimum_scalar", 0.1), ("_maximum_scalar", -0.2), ("_minus_scalar", 3.0),
                         ("_hypot_scalar", 0.7), ("_mod_scalar", 0.4), ("_rmod_scalar", 2.0)):
        lo = 0.5 if name in ("_rdiv_scalar", "_rmod_scalar") else -1.0
        add("scalar" + name, name, {"scalar": scalar}, x(3, 4, lo=lo, hi=1.5))
    add("prod_axis", "prod", {"axis": 1}, x(3, 4, lo=0.5, hi=1.5))
    add("nansum", "nansum", {"axis": 0}, x(3, 4))
    add("min_keepdims", "min", {"axis": 1, "keepdims": True}, x(3, 4))
    add("norm_ord1", "norm", {"ord": 1, "axis": 0}, x(3, 4))
    add("mean_exclude", "mean", {"axis": 1, "exclude": True}, x(2, 3, 4))
    add("sum_all", "sum", {}, x(2, 3, 4))
    add("topk_both", "topk", {"k": 2, "ret_typ": "both"}, x(3, 5))
    add("sort_desc", "sort", {"axis": 1, "is_ascend": False}, x(3, 5))
    add("softmin", "softmin", {"axis": 1}, x(3, 4))
    add("log_softmax_temp", "log_softmax", {"axis": 0, "temperature": 1.5}, x(3, 4))
    add("softmax_activation_channel", "SoftmaxActivation", {"mode": "channel"}, x(2, 3, 4))
    add("softmax_activation_instance", "SoftmaxActivation", {}, x(2, 3, 4))
    add("cast_float64", "Cast", {"dtype": "float64"}, x(3, 4))
    add("take_wrap_axis1", "take", {"axis": 1, "mode": "wrap"}, x(3, 4), np.array([[0, 5], [3, 3]], np.float32))
    add("concat3_dim0", "Concat", {"dim": 0, "num_args": 3}, x(1, 3), x(2, 3), x(3, 3))
    add("batchnorm_global_stats_train", "BatchNorm", {"use_global_stats": True, "fix_gamma": False}, x(2, 3, 4, 4),
        x(3), x(3), x(3), x(3, lo=0.5, hi=1.5))
    add("batchnorm_train_axis1", "BatchNorm", {"fix_gamma": False, "momentum": 0.8}, x(4, 3, 2, 2), x(3), x(3), x(3),
        x(3, lo=0.5, hi=1.5))
    add("l2norm_spatial", "L2Normalization", {"mode": "spatial"}, x(2, 3, 4))
    add("instancenorm_1d", "InstanceNorm", {"eps": 0.001}, x(2, 3, 5), x(3), x(3))
    add("pool_avg_full", "Pooling", {"kernel": (3, 3), "stride": (2, 2), "pool_type": "avg",
                                     "pooling_convention": "full"}, x(2, 2, 6, 6))
    add("pool_sum", "Pooling", {"kernel": (2, 2), "stride": (1, 1), "pool_type": "sum"}, x(2, 2, 4, 4))
    add("pool_lp2", "Pooling", {"kernel": (2, 2), "stride": (2, 2), "pool_type": "lp", "p_value": 2},
        x(2, 2, 4, 4, lo=0.2, hi=1))
    add("pool_max_3d", "Pooling", {"kernel": (2, 2, 2), "stride": (2, 2, 2), "pool_type": "max"}, x(1, 2, 4, 4, 4))
    add("pool_global_sum", "Pooling", {"kernel": (1, 1), "global_pool": True, "pool_type": "sum"}, x(2, 3, 3, 3))
    add("conv3d", "Convolution", {"kernel": (2, 2, 2), "num_filter": 2, "pad": (1, 0, 1)}, x(1, 2, 3, 3, 3),
        x(2, 2, 2, 2, 2), x(2))
    add("deconv_k4s2", "Deconvolution", {"kernel": (4, 4), "stride": (2, 2), "pad": (1, 1), "num_filter": 3,
                                         "no_bias": True}, x(1, 4, 3, 3), x(4, 3, 4, 4))
    add("deconv1d", "Deconvolution", {"kernel": (3,), "num_filter": 2, "pad": (1,)}, x(2, 3, 5), x(3, 2, 3))
    add("leaky_prelu_per_channel", "LeakyReLU", {"act_type": "prelu"}, x(2, 3, 4), x(3))
    add("dot_transpose_a_1d", "dot", {"transpose_a": True}, x(4, 3), x(4, 2))
    add("batch_dot_tb", "batch_dot", {"transpose_b": True}, x(2, 3, 4), x(2, 5, 4))
    add("slice_axis_neg", "slice_axis", {"axis": -1, "begin": -3, "end": None}, x(2, 5))
    add("where_1d_cond", "where", {}, np.array([1, 0, 1], np.float32), x(3, 2), x(3, 2))
    add("clip_bounds", "clip", {"a_min": -0.3, "a_max": 0.4}, x(4, 5))
    add("add_n_4", "add_n", {"num_args": 4}, x(2, 3), x(2, 3), x(2, 3), x(2, 3))
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(SHARED, "manifest.json")) as fh:
        manifest = json.load(fh)
    index = {}
    for i, case in enumerate(manifest["cases"] + _extra_cases()):
        name = case["case"]
        if "inputs" in case:
            inputs = case["inputs"]
        else:
            data = np.load(os.path.join(SHARED, name + ".npz"))
            inputs = [data[f"in{k}"] for k in range(case["num_inputs"])]
        n_in = len(inputs)
        op = case["json_op"]
        attrs = case["json_attrs"]
        train = name not in PREDICT
        sym = getattr(mx.sym, op, None) or getattr(mx.sym._internal, op)
        try:
            probe = sym(*[mx.sym.var(f"in{k}") for k in range(n_in)], **attrs)
            aux = set(probe.list_auxiliary_states())
        except Exception:  # noqa: BLE001
            aux = set()
        arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
        marked = []
        for k, arr in enumerate(arrays):
            if (f"in{k}") not in aux and (op, k) not in NO_GRAD:
                arr.attach_grad()
                marked.append(k)
        fn = getattr(mx.nd, op, None) or getattr(mx.nd._internal, op)
        rng = np.random.RandomState(1000 + i)
        try:
            with mx.autograd.record(train_mode=train):
                out = fn(*arrays, **attrs)
            outs = out if isinstance(out, (list, tuple)) else [out]
            heads = [mx.nd.array(rng.standard_normal(o.shape), dtype=o.dtype) for o in outs]
            mx.autograd.backward(outs, heads, train_mode=train)
            mx.nd.waitall()
        except Exception as e:  # noqa: BLE001
            lines = [ln for ln in str(e).strip().splitlines() if ln.strip() and "Traceback" not in ln
                     and not ln.startswith("  ")]
            index[name] = {"op": op, "error": (lines[0] if lines else str(e))[:300]}
            print("refused", name, index[name]["error"][:100])
            continue
        meta = {"op": op, "attrs": attrs, "train": train, "case": name, "num_inputs": n_in,
                "num_outputs": len(outs)}
        arrs = {"meta": np.array(json.dumps(meta))}
        for k, a in enumerate(inputs):
            arrs[f"input{k}"] = a
        for k, (o, h) in enumerate(zip(outs, heads)):
            arrs[f"output{k}"] = o.asnumpy()
            arrs[f"head_grad{k}"] = h.asnumpy()
        for k in marked:
            arrs[f"grad{k}"] = arrays[k].grad.asnumpy()
        np.savez_compressed(os.path.join(OUT, name + ".npz"), **arrs)
        index[name] = {"op": op, "train": train, "grads": marked}
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=1, sort_keys=True)
    print(len(index), "cases")


if __name__ == "__main__":
    main()
