"""NDArray interop as MXNet 1.9.1 behaves: pickle state, ``nd.save`` of one array,
``load_frombuffer``, ``from_numpy`` (zero copy), DLPack, ``inplace=True`` views and basic-indexing
views, numpy values as attributes, ``NDArray.pad``, contexts and the operator registry's C-API view.

Expected values come from ``data/interop_cases.json``, recorded from real MXNet 1.9.1 by
``data/make_interop_cases.py`` (the calls both sides make are in ``data/interop_calls.py``).
"""
from __future__ import annotations

import importlib.util
import json
import os
import pickle
import warnings

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import nd
from hybridize.runtime.operator import OperatorArguments, get_all_registered_operators, get_operator_arguments

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = json.load(open(os.path.join(HERE, "data", "interop_cases.json")))
_spec = importlib.util.spec_from_file_location("interop_calls", os.path.join(HERE, "data", "interop_calls.py"))
calls = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(calls)


def _array(case: dict) -> np.ndarray:
    return np.array(case["value"], dtype=case["dtype"]).reshape(case["shape"])


# -- pickling: MXNet's state {'handle': bytearray of the array in nd.save's per-array format} ----------
@pytest.mark.parametrize("case", CASES["pickle_state"], ids=lambda c: c["name"])
def test_pickle_state_is_mxnets(case):
    a = _array(case)
    x = nd.array(a, dtype=a.dtype)
    state = x.__getstate__()
    assert sorted(state) == case["state_keys"] == ["handle"]
    assert type(state["handle"]).__name__ == case["handle_type"] == "bytearray"
    assert bytes(state["handle"]).hex() == case["handle"]
    cls, args, st = x.__reduce__()
    assert cls is nd.NDArray and list(args) == case["reduce_args"] == [None]
    # MXNet's state (as a pickle written by MXNet carries it) restores the same array here
    y = nd.NDArray(None)
    y.__setstate__({"handle": bytearray.fromhex(case["handle"])})
    np.testing.assert_array_equal(y.asnumpy(), a)
    assert y.dtype == a.dtype.type
    z = pickle.loads(pickle.dumps(x))
    np.testing.assert_array_equal(z.asnumpy(), a)
    z[...] = 0  # the unpickled array owns writable memory
    np.testing.assert_array_equal(x.asnumpy(), a)


def test_pickle_of_a_dtype_mxnet_cannot_hold_still_round_trips():
    x = nd.NDArray(np.arange(6, dtype=np.int16).reshape(2, 3))
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype == np.int16 and y.asnumpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_garbled_pickle_state_is_an_mxnet_error():
    with pytest.raises(mx.MXNetError):
        nd.NDArray(None).__setstate__({"handle": bytearray(b"\xc9\xfa\x93\xf9\x00\x00")})


# -- nd.save / load / load_frombuffer -------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES["save_single"], ids=lambda c: c["name"])
def test_save_of_one_array_writes_a_list_of_one(tmp_path, case):
    src = [c for c in CASES["pickle_state"] if c["name"] == case["name"]][0]
    a = _array(src)
    path = str(tmp_path / "one.params")
    nd.save(path, nd.array(a, dtype=a.dtype))
    assert open(path, "rb").read().hex() == case["bytes"]
    assert case["same_as_list"]
    loaded = nd.load(path)
    assert type(loaded).__name__ == case["loaded_type"] == "list" and len(loaded) == case["loaded_len"] == 1
    np.testing.assert_array_equal(loaded[0].asnumpy(), a)


@pytest.mark.parametrize("label", sorted(CASES["save_errors"]))
def test_save_refuses_what_mxnet_refuses(tmp_path, label):
    values = {"tuple": (nd.ones((2,)),), "numpy_in_list": [np.ones(2)], "int_key": {1: nd.ones((2,))},
              "numpy_value": {"a": np.ones(2)}, "number": 3.0}
    rec = CASES["save_errors"][label]
    path = str(tmp_path / "x.params")
    with pytest.raises({"TypeError": TypeError, "ValueError": ValueError}[rec["error"]]):
        nd.save(path, values[label])
    assert not os.path.exists(path)  # nothing half-written


def test_load_frombuffer_reads_mxnets_bytes():
    rec = CASES["load_frombuffer"]
    got = nd.load_frombuffer(bytes.fromhex(rec["dict_bytes"]))
    assert sorted(got) == sorted(rec["dict"])
    for k, v in rec["dict"].items():
        assert got[k].dtype == np.dtype(v["dtype"]).type
        np.testing.assert_array_equal(got[k].asnumpy(), np.array(v["value"], dtype=v["dtype"]))
        got[k][:] = 0  # writable, and not a view of the caller's bytes
    single = nd.load_frombuffer(bytes.fromhex(CASES["save_single"][0]["bytes"]))
    assert isinstance(single, list) and len(single) == 1
    assert nd.load_frombuffer(bytearray.fromhex(CASES["save_single"][0]["bytes"]))[0].shape == (2, 2)


def test_load_frombuffer_errors():
    rec = CASES["load_frombuffer"]
    buf_list = bytes.fromhex(CASES["save_single"][0]["bytes"])
    buf_dict = bytes.fromhex(rec["dict_bytes"])
    assert rec["truncated_list"]["mxnet_error"] and rec["truncated_dict"]["mxnet_error"]
    with pytest.raises(mx.MXNetError):
        nd.load_frombuffer(buf_list[:-10])
    with pytest.raises(mx.MXNetError):
        nd.load_frombuffer(buf_dict[:-3])
    assert rec["not_bytes"]["error"] == "TypeError"
    with pytest.raises(TypeError):
        nd.load_frombuffer(123)


# -- from_numpy -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES["from_numpy"]))
def test_from_numpy_zero_copy(name):
    rec = CASES["from_numpy"][name]
    src = _array([c for c in CASES["pickle_state"] if c["name"] == name][0])
    if "error" in rec:
        with pytest.raises(ValueError):
            nd.from_numpy(src)
        assert src.flags.writeable
        return
    x = nd.from_numpy(src)
    assert list(x.shape) == rec["shape"] and x.dtype == np.dtype(rec["dtype"]).type
    np.testing.assert_array_equal(x.asnumpy(), np.array(rec["value"], dtype=rec["dtype"]).reshape(rec["shape"]))
    assert bool(src.flags.writeable) == rec["numpy_writeable_after"]
    assert np.shares_memory(x._data, src)


def test_from_numpy_shares_memory_and_locks_the_numpy_array():
    rec = CASES["from_numpy_write_through"]
    src = np.array([[1, 2], [3, 4]], dtype=np.float32)
    m = nd.from_numpy(src)
    m[1, 1] = 100
    assert src.tolist() == rec["numpy_after"]
    assert rec["numpy_setitem"]["error"] == "ValueError"
    with pytest.raises(ValueError):
        src[0, 0] = 5


@pytest.mark.parametrize("name", sorted(CASES["from_numpy_copy"]))
def test_from_numpy_copy_keeps_the_dtype(name):
    rec = CASES["from_numpy_copy"][name]
    src = _array([c for c in CASES["pickle_state"] if c["name"] == name][0])
    x = nd.from_numpy(src, zero_copy=False)
    assert x.dtype == np.dtype(rec["dtype"]).type and list(x.shape) == rec["shape"]
    assert not np.shares_memory(x._data, src) and src.flags.writeable


def test_from_numpy_edge_cases():
    for key, make in [("from_numpy_noncontiguous", lambda: np.arange(6.0).reshape(2, 3).T),
                      ("from_numpy_int16", lambda: np.arange(3, dtype=np.int16))]:
        assert CASES[key]["error"] == "ValueError"
        with pytest.raises(ValueError):
            nd.from_numpy(make())
    z = nd.from_numpy(np.array(2.5, dtype=np.float32))
    assert list(z.shape) == CASES["from_numpy_0d"]["shape"] == [] and z.asnumpy() == 2.5
    e = nd.from_numpy(np.zeros((1, 0, 2), dtype=np.float32))
    assert list(e.shape) == CASES["from_numpy_empty"]["shape"]


# -- DLPack -----------------------------------------------------------------------------------------------
def _capsule_name(cap) -> str:
    return repr(cap).split('"')[1]


def test_dlpack_write_capsule_shares_memory():
    rec = CASES["dlpack"]
    x = nd.array([[1, 2], [3, 4]])
    cap = x.to_dlpack_for_write()
    assert _capsule_name(cap) == rec["capsule_repr_name"] == "dltensor"
    u = nd.from_dlpack(cap)
    u += 1
    assert x.asnumpy().tolist() == rec["write_through"]
    assert _capsule_name(cap) == rec["used_capsule_name"] == "used_dltensor"
    assert rec["consume_twice"]["error"] == "AssertionError"
    with pytest.raises(AssertionError):  # MXNet's spelling; a ValueError too
        nd.from_dlpack(cap)
    with pytest.raises(ValueError):
        nd.from_dlpack(cap)


def test_dlpack_read_capsule_and_module_functions():
    rec = CASES["dlpack"]
    y = nd.array([[-3, -2, -1], [0, 1, 2]], dtype="int32")
    r = nd.from_dlpack(nd.to_dlpack_for_read(y))
    assert r.dtype == np.int32 and r.asnumpy().tolist() == rec["read_int32"]["value"]
    r[0, 0] = 42
    assert (int(y.asnumpy()[0, 0]) == 42) == rec["read_then_write_shares"]
    # DLPack consumers: numpy takes the NDArray itself (__dlpack__), the runtime takes numpy's arrays
    a = np.from_dlpack(y)
    assert np.shares_memory(a, y._data)
    b = nd.from_dlpack(np.arange(4.0))
    assert b.dtype == np.float64 and b.asnumpy().tolist() == [0, 1, 2, 3]


def test_dlpack_of_a_strided_array_views_a_contiguous_copy():
    x = nd.NDArray(np.arange(12, dtype=np.float32).reshape(3, 4).T)  # a transposed (strided) array
    y = nd.from_dlpack(x.to_dlpack_for_write())
    y[:] = 7
    assert (x.asnumpy() == 7).all()  # x became contiguous first, so the capsule views x's memory


# -- inplace views and basic indexing ------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES["inplace"], ids=lambda c: f"{c['method']}-{c['args']}-{c['inplace']}")
def test_inplace_views(case):
    t = (nd.arange(12) + 1).reshape((1, 3, 1, 4))
    args = {k: tuple(v) if isinstance(v, list) else v for k, v in case["args"].items()}
    out = getattr(t, case["method"])(inplace=case["inplace"], **args)
    assert list(out.shape) == case["shape"]
    t[:] = -1
    assert bool((out.asnumpy() == -1).all()) == case["shares"]


def test_inplace_errors():
    rec = CASES["inplace_errors"]
    assert rec["squeeze_not_one"]["error"] == rec["expand_out_of_range"]["error"] == "AssertionError"
    with pytest.raises(AssertionError, match="must be size 1"):
        nd.ones((2, 3)).squeeze(axis=0, inplace=True)
    with pytest.raises(AssertionError, match="out of range"):
        nd.ones((2, 3)).expand_dims(axis=4, inplace=True)
    assert rec["squeeze_not_one_copy"]["mxnet_error"]
    with pytest.raises(mx.MXNetError):
        nd.ones((2, 3)).squeeze(axis=0)


def _decode_key(k):
    if isinstance(k, dict) and "tuple" in k:
        return tuple(_decode_key(x) for x in k["tuple"])
    if isinstance(k, dict) and "list" in k:
        return list(k["list"])
    if isinstance(k, list):
        return slice(*k)
    if k == "...":
        return Ellipsis
    return k


@pytest.mark.parametrize("case", CASES["indexing_views"], ids=lambda c: json.dumps(c["key"]))
def test_basic_indexing_is_a_view_exactly_when_mxnets_is(case):
    t = nd.arange(60).reshape((3, 4, 5))
    out = t[_decode_key(case["key"])]
    assert list(out.shape) == case["shape"]
    t[:] = -1
    assert bool((out.asnumpy() == -1).all()) == case["shares"]


@pytest.mark.parametrize("case", CASES["slice_is_contiguous"], ids=lambda c: f"{c['shape']}-{c['key']}")
def test_slice_contiguity_rule(case):
    key = tuple(slice(*k) for k in case["key"])
    assert nd.NDArray._basic_indexing_slice_is_contiguous(key, tuple(case["shape"])) == case["contiguous"]


def test_reshape_of_a_strided_array_is_still_a_view():
    x = nd.NDArray(np.arange(6, dtype=np.float32).reshape(2, 3).T)
    y = x.reshape((6,))
    y[:] = 1
    assert (x.asnumpy() == 1).all()


# -- numpy values as attributes, pad, contexts ---------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES["numpy_attrs"]))
def test_numpy_values_as_attributes(name):
    calls.check_outcome(name, CASES["numpy_attrs"][name], calls.numpy_attr_calls(mx, nd, np)[name], mx.MXNetError)


def test_pad_fluent():
    x = nd.arange(6).reshape((1, 1, 2, 3))
    calls.check_outcome("pad", CASES["pad"], lambda: x.pad(mode="constant", pad_width=(0, 0, 0, 0, 1, 0, 0, 2),
                                                             constant_value=9), mx.MXNetError)
    calls.check_outcome("pad_edge", CASES["pad_edge"],
                        lambda: x.pad(mode="edge", pad_width=(0, 0, 0, 0, 1, 1, 2, 0)), mx.MXNetError)
    assert hasattr(mx.sym.var("x"), "pad")


def test_default_ctx():
    rec = CASES["default_ctx"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert str(mx.Context.default_ctx) == rec["value"]
    assert sorted({w.category.__name__ for w in caught}) == rec["warnings"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with mx.Context("cpu", 3):
            assert str(mx.Context.default_ctx) == rec["inside_with"]
        old = mx.Context.default_ctx
        mx.Context.default_ctx = mx.cpu(2)
        try:
            assert mx.current_context() == mx.cpu(2)
        finally:
            mx.Context.default_ctx = old
    assert mx.current_context() == mx.cpu()


def test_contexts_of_arrays():
    rec = CASES["contexts"]
    shared = mx.Context("cpu_shared", 0)
    got = {
        "cpu_shared_zeros": nd.zeros((1, 2), ctx=shared).context,
        "cpu_shared_array": nd.array([1, 2], ctx=shared).context,
        "cpu_shared_op_result": (nd.zeros((1, 2), ctx=shared) + 1).context,
        "cpu_shared_relu": nd.relu(nd.zeros((1, 2), ctx=shared)).context,
        "cpu1_relu": nd.relu(nd.zeros((1, 2), ctx=mx.cpu(1))).context,
        "cpu1_plus": (nd.zeros((1, 2), ctx=mx.cpu(1)) + 1).context,
        "cpu1_as_in_context": nd.ones((2,)).as_in_context(mx.cpu(1)).context,
        "copyto_ctx": nd.ones((2,)).copyto(mx.cpu_pinned(0)).context,
        "str": mx.Context("cpu_shared", 2), "repr": repr(mx.cpu_pinned(1)),
    }
    for k, v in got.items():
        assert str(v) == rec[k], k
    same = nd.ones((2,))
    assert (same.as_in_context(mx.cpu(0)) is same) == rec["as_in_context_same_is_self"]


# -- the operator registry as MXNet's C API shows it --------------------------------------------------
# names the runtime registers that MXNet 1.9.1 does not: ``eye`` (an alias of ``_eye``, which
# MXNet reaches through its Python function nd.eye) and two MXNet 2 activations
KNOWN_EXTRA_NAMES = {"eye", "log_sigmoid", "mish",
                     # backward kernels of gradient rules where MXNet's own (_broadcast_backward, _copy,
                     # _backward_Concat) learn their shapes from the forward node instead of an input
                     "_backward_broadcast", "_backward_image_copy", "_backward_rnn_param_concat",
                     # backward kernels of the np operators' rules
                     "_backward_broadcast_reduce", "_backward_np_extreme", "_backward_np_reduce", "_backward_reduce",
                     # MXNet's numpy_op_fallback.py registers these as Custom op types from Python, not
                     # as operators of its C++ registry
                     "_npi_resize_fallback", "_npi_unravel_index_fallback", "_npi_mvn_fallback"}
# ops whose MXNet argument list the registry cannot reproduce: add_n's list is ``args`` without
# num_args, Custom's inputs come from its prop, log_softmax has no ``length`` input in 1.9.1
KNOWN_ARGUMENT_DIFFERENCES = {"add_n", "Custom", "log_softmax"}


def test_registered_operator_names_are_mxnets():
    ours = get_all_registered_operators()
    assert isinstance(ours, list) and "Activation" in ours and "_contrib_ROIAlign" in ours
    extra = set(ours) - set(CASES["all_operator_names"]) - KNOWN_EXTRA_NAMES
    # a gradient kernel MXNet has is named as MXNet names it (``_broadcast_backward``); one MXNet
    # computes inside another kernel (or a shared ``_copy``) is ours, named in MXNet's ``_backward_*`` style
    assert all(n.startswith("_backward_") for n in extra), extra


def test_operator_arguments():
    a = get_operator_arguments("Activation")
    assert isinstance(a, OperatorArguments)
    assert a == OperatorArguments(**CASES["operator_arguments"]["Activation"])
    names = set(get_all_registered_operators())
    exact = types = total = 0
    for name, rec in CASES["operator_arguments"].items():
        if name not in names or name in KNOWN_ARGUMENT_DIFFERENCES:
            continue
        got = get_operator_arguments(name)
        assert got.names == rec["names"] and got.narg == rec["narg"], name
        exact += got.types == rec["types"]
        types += sum(x == y for x, y in zip(got.types, rec["types"]))
        total += len(rec["types"])
    # the type strings differ where MXNet names C++ types the registry does not record (long, double,
    # "int (non-negative)") or an op's own dtype list; 304 of 351 agree today
    assert types / total > 0.85, (types, total)
    for name in ("Activation", "FullyConnected", "Pooling", "Reshape", "transpose", "Concat", "sum", "clip",
                 "SliceChannel", "broadcast_add", "Dropout", "_zeros", "Cast"):
        assert get_operator_arguments(name) == OperatorArguments(**CASES["operator_arguments"][name]), name
    with pytest.raises(mx.MXNetError):
        get_operator_arguments("NoSuchOperator")
