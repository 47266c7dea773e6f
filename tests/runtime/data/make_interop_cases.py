"""Records MXNet 1.9.1's behaviour for the NDArray interop and error cases, for
``tests/runtime/test_ndarray_interop.py`` and ``tests/runtime/test_mxnet_errors.py`` (the calls both
sides make are in ``interop_calls.py``). Run by hand with
a Python that has real MXNet 1.9.1 (CI has none)::

    /tmp/mxnet-venv/bin/python tests/runtime/data/make_interop_cases.py

It writes ``interop_cases.json`` next to this file: bytes as hex, arrays as nested lists, an
exception as its type name, whether it is an ``MXNetError`` and the start of its message. Inputs are
deterministic (fixed values, fixed numpy seeds).
"""
from __future__ import annotations

import json
import os
import warnings

import numpy as np

import mxnet as mx
from mxnet import nd

import interop_calls as calls  # the calls shared with the tests (this directory is on sys.path)

assert mx.__version__ == "1.9.1", mx.__version__

HERE = os.path.dirname(os.path.abspath(__file__))
CASES: dict = {}


def outcome(fn):
    """{'value': list, 'dtype', 'shape'} or {'error': type name, 'mxnet_error': bool, 'message': ...}."""
    try:
        out = fn()
        if isinstance(out, nd.NDArray):
            out.wait_to_read()
            out = out.asnumpy()
        if isinstance(out, np.ndarray):
            return {"value": out.tolist(), "dtype": out.dtype.name, "shape": list(out.shape)}
        return {"value": out}
    except Exception as err:  # noqa: BLE001 - recording what MXNet raises is the point
        lines = [ln.strip() for ln in str(err).strip().splitlines() if ln.strip()]
        # MXNet's C++ errors carry a traceback first: keep the "MXNetError: ..." line
        main = next((ln for ln in lines if ln.startswith("MXNetError:")), lines[0] if lines else "")
        return {"error": type(err).__name__, "mxnet_error": isinstance(err, mx.MXNetError),
                "message": main.replace("MXNetError: ", "", 1)[:160]}


# == group 1: NDArray interop ======================================================================
SAMPLES = {
    "f32_2x2": (np.array([[1, 2], [3, 4]], dtype=np.float32)),
    "f64_3": np.array([0.5, -1.25, 3.0], dtype=np.float64),
    "f16_2x1x2": np.arange(4, dtype=np.float16).reshape(2, 1, 2),
    "u8_4": np.array([0, 7, 200, 255], dtype=np.uint8),
    "i8_3": np.array([-128, 0, 127], dtype=np.int8),
    "i32_2x3": np.arange(-3, 3, dtype=np.int32).reshape(2, 3),
    "i64_2": np.array([2 ** 40, -5], dtype=np.int64),
    "f32_1": np.array([7.5], dtype=np.float32),
}

# pickle state: NDArray.__getstate__() == {'handle': bytearray(one array in nd.save's format)}
CASES["pickle_state"] = []
for key, a in SAMPLES.items():
    x = nd.array(a, dtype=a.dtype)
    state = x.__getstate__()
    reduced = x.__reduce__()
    CASES["pickle_state"].append({"name": key, "value": a.tolist(), "dtype": a.dtype.name, "shape": list(a.shape),
                                  "state_keys": sorted(state), "handle_type": type(state["handle"]).__name__,
                                  "handle": bytes(state["handle"]).hex(),
                                  "reduce_args": list(reduced[1])})

# nd.save of one array == a list of one; the file's bytes
CASES["save_single"] = []
for key in ("f32_2x2", "i32_2x3"):
    a = SAMPLES[key]
    path = os.path.join(HERE, "_tmp_single.params")
    nd.save(path, nd.array(a, dtype=a.dtype))
    single = open(path, "rb").read()
    nd.save(path, [nd.array(a, dtype=a.dtype)])
    as_list = open(path, "rb").read()
    loaded = nd.load(path)
    os.remove(path)
    CASES["save_single"].append({"name": key, "bytes": single.hex(), "same_as_list": single == as_list,
                                 "loaded_type": type(loaded).__name__, "loaded_len": len(loaded)})

# nd.save of other values: the exception MXNet raises
CASES["save_errors"] = {}
for label, value in [("tuple", (nd.ones((2,)),)), ("numpy_in_list", [np.ones(2)]), ("int_key", {1: nd.ones((2,))}),
                     ("numpy_value", {"a": np.ones(2)}), ("number", 3.0)]:
    path = os.path.join(HERE, "_tmp_err.params")
    CASES["save_errors"][label] = outcome(lambda v=value: nd.save(path, v))
    if os.path.exists(path):
        os.remove(path)

# load_frombuffer: bytes of a list and of a dict; truncated bytes; wrong argument type
buf_list = bytes.fromhex(CASES["save_single"][0]["bytes"])
path = os.path.join(HERE, "_tmp_dict.params")
nd.save(path, {"w": nd.array(SAMPLES["f32_2x2"]), "b": nd.array(SAMPLES["f64_3"], dtype="float64")})
buf_dict = open(path, "rb").read()
os.remove(path)
CASES["load_frombuffer"] = {
    "dict_bytes": buf_dict.hex(),
    "dict": {k: {"value": v.asnumpy().tolist(), "dtype": np.dtype(v.dtype).name}
             for k, v in nd.load_frombuffer(buf_dict).items()},
    "truncated_list": outcome(lambda: nd.load_frombuffer(buf_list[:-10])),
    "truncated_dict": outcome(lambda: nd.load_frombuffer(buf_dict[:-3])),
    "not_bytes": outcome(lambda: nd.load_frombuffer(123)),
}

# from_numpy: zero copy shares memory and makes the numpy array read-only
CASES["from_numpy"] = {}
for key, a in SAMPLES.items():
    src = a.copy()
    r = outcome(lambda s=src: nd.from_numpy(s))
    if "error" not in r:
        r["numpy_writeable_after"] = bool(src.flags.writeable)
    CASES["from_numpy"][key] = r
src = SAMPLES["f32_2x2"].copy()
m = nd.from_numpy(src)
m[1, 1] = 100
CASES["from_numpy_write_through"] = {"numpy_after": src.tolist(),
                                     "numpy_setitem": outcome(lambda: src.__setitem__((0, 0), 5))}
CASES["from_numpy_copy"] = {key: outcome(lambda a=a: nd.from_numpy(a.copy(), zero_copy=False)) for key, a in SAMPLES.items()}
CASES["from_numpy_noncontiguous"] = outcome(lambda: nd.from_numpy(np.arange(6.0).reshape(2, 3).T))
CASES["from_numpy_int16"] = outcome(lambda: nd.from_numpy(np.arange(3, dtype=np.int16)))
CASES["from_numpy_0d"] = outcome(lambda: nd.from_numpy(np.array(2.5, dtype=np.float32)))
CASES["from_numpy_empty"] = outcome(lambda: nd.from_numpy(np.zeros((1, 0, 2), dtype=np.float32)))

# dlpack
x = nd.array(SAMPLES["f32_2x2"])
cap = x.to_dlpack_for_write()
CASES["dlpack"] = {"capsule_repr_name": repr(cap).split('"')[1]}
u = nd.from_dlpack(cap)
u += 1
nd.waitall()
CASES["dlpack"]["write_through"] = x.asnumpy().tolist()
CASES["dlpack"]["used_capsule_name"] = repr(cap).split('"')[1]
CASES["dlpack"]["consume_twice"] = outcome(lambda: nd.from_dlpack(cap))
y = nd.array(SAMPLES["i32_2x3"], dtype="int32")
r = nd.from_dlpack(nd.to_dlpack_for_read(y))
CASES["dlpack"]["read_int32"] = {"value": r.asnumpy().tolist(), "dtype": np.dtype(r.dtype).name}
r[0, 0] = 42
nd.waitall()
CASES["dlpack"]["read_then_write_shares"] = int(y.asnumpy()[0, 0]) == 42

# inplace views: flatten / expand_dims / squeeze share memory only with inplace=True
CASES["inplace"] = []
for method, args in [("flatten", {}), ("expand_dims", {"axis": 1}), ("expand_dims", {"axis": -1}),
                     ("squeeze", {}), ("squeeze", {"axis": 0}), ("squeeze", {"axis": (0, 2)})]:
    for inplace in (False, True):
        t = (nd.arange(12) + 1).reshape((1, 3, 1, 4))
        out = getattr(t, method)(inplace=inplace, **args)
        shape = list(out.shape)
        t[:] = -1
        CASES["inplace"].append({"method": method, "args": args, "inplace": inplace, "shape": shape,
                                 "shares": bool((out.asnumpy() == -1).all())})
CASES["inplace_errors"] = {
    "squeeze_not_one": outcome(lambda: nd.ones((2, 3)).squeeze(axis=0, inplace=True)),
    "squeeze_not_one_copy": outcome(lambda: nd.ones((2, 3)).squeeze(axis=0)),
    "expand_out_of_range": outcome(lambda: nd.ones((2, 3)).expand_dims(axis=4, inplace=True)),
}

# basic indexing: a view when the selected elements are contiguous, else a copy
CASES["indexing_views"] = []


def encode_key(key):
    """An index as JSON: an int, null (None), "..." (Ellipsis), [start, stop, step] (a slice),
    {"list": [...]} (a list, advanced indexing); a tuple as {"tuple": [...]}."""
    if isinstance(key, tuple):
        return {"tuple": [encode_key(k) for k in key]}
    if isinstance(key, slice):
        return [key.start, key.stop, key.step]
    if key is Ellipsis:
        return "..."
    if isinstance(key, list):
        return {"list": key}
    return key


S = slice
for key in [0, S(1, 3), (1, 2), (S(None), 1), (S(0, 2), S(None)), (1, S(1, 3)), (S(None), S(1, 3)), S(None, None, 2),
            (0, 0, 0), (Ellipsis, 1), (None, 1), (0, S(None), S(0, 1)), [0, 2], (2, S(None, None, -1))]:
    t = nd.arange(60).reshape((3, 4, 5))
    out = t[key]
    shape = list(out.shape)
    t[:] = -1
    CASES["indexing_views"].append({"key": encode_key(key), "shape": shape, "shares": bool((out.asnumpy() == -1).all())})
CASES["slice_is_contiguous"] = []
for shape, key in [((3, 4), (slice(0, 1), slice(None))), ((3, 4), (slice(None), slice(0, 2))),
                   ((3, 4, 5), (slice(1, 2), slice(1, 3), slice(None))), ((3, 4, 5), (slice(0, 2), slice(0, 4), slice(0, 5))),
                   ((4,), (slice(None, None, 2),)), ((4,), (slice(1, 2, 2),)), ((3, 4), (slice(2, 0, -1), slice(None))),
                   ((2, 3), (slice(0, 0), slice(None)))]:
    CASES["slice_is_contiguous"].append({
        "shape": list(shape), "key": [[s.start, s.stop, s.step] for s in key],
        "contiguous": nd.NDArray._basic_indexing_slice_is_contiguous(key, shape)})

CASES["numpy_attrs"] = {name: outcome(fn) for name, fn in calls.numpy_attr_calls(mx, nd, np).items()}

# NDArray.pad (fluent), Context.default_ctx, cpu_shared arrays
CASES["pad"] = outcome(lambda: nd.arange(6).reshape((1, 1, 2, 3)).pad(mode="constant", pad_width=(0, 0, 0, 0, 1, 0, 0, 2),
                                                                         constant_value=9))
CASES["pad_edge"] = outcome(lambda: nd.arange(6).reshape((1, 1, 2, 3)).pad(mode="edge", pad_width=(0, 0, 0, 0, 1, 1, 2, 0)))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    dflt = mx.Context.default_ctx
CASES["default_ctx"] = {"value": str(dflt), "warnings": sorted({w.category.__name__ for w in caught})}
with mx.Context("cpu", 3):
    CASES["default_ctx"]["inside_with"] = str(mx.Context.default_ctx)
CASES["contexts"] = {
    "cpu_shared_zeros": str(nd.zeros((1, 2), ctx=mx.Context("cpu_shared", 0)).context),
    "cpu_shared_array": str(nd.array([1, 2], ctx=mx.Context("cpu_shared", 0)).context),
    "cpu_shared_op_result": str((nd.zeros((1, 2), ctx=mx.Context("cpu_shared", 0)) + 1).context),
    "cpu_shared_relu": str(nd.relu(nd.zeros((1, 2), ctx=mx.Context("cpu_shared", 0))).context),
    "cpu1_relu": str(nd.relu(nd.zeros((1, 2), ctx=mx.cpu(1))).context),
    "cpu1_plus": str((nd.zeros((1, 2), ctx=mx.cpu(1)) + 1).context),
    "cpu1_as_in_context": str(nd.ones((2,)).as_in_context(mx.cpu(1)).context),
    "copyto_ctx": str(nd.ones((2,)).copyto(mx.cpu_pinned(0)).context),
    "str": str(mx.Context("cpu_shared", 2)), "repr": repr(mx.cpu_pinned(1)),
}
nd_same = nd.ones((2,))
CASES["contexts"]["as_in_context_same_is_self"] = nd_same.as_in_context(mx.cpu(0)) is nd_same

# the operator registry as MXNet's C API lists it
from mxnet.operator import get_all_registered_operators, get_operator_arguments  # noqa: E402

ALL = get_all_registered_operators()
CASES["all_operator_names"] = sorted(ALL)
CASES["operator_arguments"] = {}
for name in ["Activation", "Convolution", "Deconvolution", "Pooling", "FullyConnected", "BatchNorm", "LayerNorm",
             "Dropout", "Reshape", "transpose", "Concat", "stack", "add_n", "SliceChannel", "slice", "slice_axis",
             "sum", "mean", "max", "clip", "Cast", "one_hot", "Embedding", "LeakyReLU", "softmax", "log_softmax",
             "SoftmaxOutput", "RNN", "UpSampling", "_zeros", "_ones", "_arange", "broadcast_add", "broadcast_to",
             "_plus_scalar", "elemwise_add", "relu", "sigmoid", "tanh", "exp", "dot", "batch_dot", "topk", "sort",
             "argmax", "where", "take", "pick", "tile", "repeat", "expand_dims", "squeeze", "flatten", "Flatten",
             "Pad", "InstanceNorm", "L2Normalization", "LRN", "ROIPooling", "SequenceMask", "_random_uniform",
             "_random_normal", "Custom", "norm", "swapaxes", "depth_to_space", "space_to_depth", "diag", "gather_nd",
             "scatter_nd", "arange_like", "_contrib_arange_like", "_contrib_ROIAlign", "_contrib_BilinearResize2D",
             "GroupNorm", "Crop", "Correlation", "CTCLoss", "erf", "gamma", "reverse", "cumsum", "ravel_multi_index"]:
    if name in ALL:
        a = get_operator_arguments(name)
        CASES["operator_arguments"][name] = {"narg": a.narg, "names": list(a.names), "types": list(a.types)}


# == group 2: errors as MXNet raises them ==========================================================
CASES["errors"] = {name: outcome(fn) for name, fn in calls.error_calls(mx, nd, np).items()}



# errors inside CustomOp.forward: MXNet wraps them (MXNetError), imperatively and in a graph
CASES["custom_errors"] = {name: outcome(fn) for name, fn in calls.custom_calls(mx, nd).items()}

with open(os.path.join(HERE, "interop_cases.json"), "w") as f:
    json.dump(CASES, f, indent=1, sort_keys=True)
    f.write("\n")
print("wrote interop_cases.json:", ", ".join(f"{k} ({len(v) if hasattr(v, '__len__') else 1})" for k, v in CASES.items()))
