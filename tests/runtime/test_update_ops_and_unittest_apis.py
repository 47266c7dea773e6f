"""MXNet 1.9.1 APIs its unit tests use beyond the operator set: the optimizer update
operators with their in-place state updates, optional inputs
given as None between others (CTCLoss's lengths), ``Symbol.debug_str`` and the NDArray-only
methods a Symbol refuses, ``gluon.data`` samplers and ``gluon.contrib.data.IntervalSampler``.

Expected values: ``data/update_cases.json``/``.npz``, recorded from MXNet 1.9.1 by
``data/make_update_cases.py``.
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import gluon, nd
from hybridize.runtime.base import NotImplementedForSymbol

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = json.load(open(os.path.join(HERE, "data", "update_cases.json")))
ARRAYS = np.load(os.path.join(HERE, "data", "update_cases.npz"))


@pytest.mark.parametrize("case", CASES["updates"], ids=lambda c: f"{c['op']}-{c['key'].split('/')[-1]}")
def test_update_ops_match_mxnet_and_update_their_states(case):
    key, n = case["key"], case["n"]
    arrays = [nd.array(ARRAYS[f"{key}/in{i}"]) for i in range(n)]
    out = getattr(nd, case["op"])(*arrays, **case["kwargs"])
    np.testing.assert_allclose(out.asnumpy(), ARRAYS[f"{key}/out"], rtol=2e-5, atol=1e-6)
    for i, a in enumerate(arrays):  # the weight and the gradient are untouched, the states updated
        np.testing.assert_allclose(a.asnumpy(), ARRAYS[f"{key}/after{i}"], rtol=2e-5, atol=1e-6,
                                   err_msg=f"input {i}")


def test_update_op_writes_into_out_and_keeps_dtype():
    w, g, m = nd.ones((3,)), nd.ones((3,)) * 0.5, nd.zeros((3,))
    res = nd.sgd_mom_update(w, g, m, lr=0.1, momentum=0.9, out=w)
    assert res is w and w.dtype == np.float32
    np.testing.assert_allclose(w.asnumpy(), [0.95] * 3)
    np.testing.assert_allclose(m.asnumpy(), [-0.05] * 3)
    with pytest.raises(mx.MXNetError):
        nd.adam_update(nd.ones((3,)), nd.ones((2,)), nd.zeros((3,)), nd.zeros((3,)), lr=0.1)


@pytest.mark.parametrize("case", CASES["ctc"], ids=lambda c: f"{c['pred_lengths'] is not None}-{c['label_lengths'] is not None}")
def test_ctc_loss_with_optional_lengths(case):
    loss = gluon.loss.CTCLoss()
    pl = None if case["pred_lengths"] is None else nd.array(case["pred_lengths"])
    ll = None if case["label_lengths"] is None else nd.array(case["label_lengths"])
    got = loss(nd.array(ARRAYS["ctc/pred"]), nd.array(case["label"]), pl, ll)
    np.testing.assert_allclose(got.asnumpy(), case["loss"], rtol=1e-5)


def test_none_between_inputs_is_skipped_by_name():
    """MXNet's generated functions name every input an op can take and skip those given as None."""
    pred = nd.array(ARRAYS["ctc/pred"]).swapaxes(0, 1)
    label, ll = nd.array([[2, 1, 2], [0, 2, 2]]), nd.array([2, 1])
    a = nd.CTCLoss(pred, label, None, ll, use_label_lengths=True, blank_label="last")
    b = nd.CTCLoss(pred, label, label_lengths=ll, use_label_lengths=True, blank_label="last")
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy())
    with pytest.raises(mx.MXNetError):  # an input the attributes do not enable
        nd.CTCLoss(pred, label, None, ll, blank_label="last")


def test_symbol_debug_str():
    x = mx.sym.var("data")
    fc = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    act = mx.sym.Activation(fc, act_type="relu", name="act", attr={"lr_mult": "2"})
    assert mx.sym.Group([act, mx.sym.sum(fc, axis=1, name="s")]).debug_str() == CASES["debug_str"]["net"]
    assert x.debug_str() == CASES["debug_str"]["variable"]


@pytest.mark.parametrize("method", ["as_in_context", "asnumpy", "asscalar", "detach", "backward", "wait_to_read",
                                    "copy"])
def test_symbol_refuses_ndarray_only_methods(method):
    s = mx.sym.var("x")
    with pytest.raises(NotImplementedForSymbol, match=f"Function {method} is not implemented for Symbol"):
        getattr(s, method)()
    assert s.as_nd_ndarray() is s


@pytest.mark.parametrize("case", CASES["interval_sampler"], ids=lambda c: str(c["args"]))
def test_interval_sampler(case):
    n, interval, rollover = case["args"]
    s = gluon.contrib.data.IntervalSampler(n, interval, rollover=rollover)
    assert list(s) == case["order"] and len(s) == case["len"]


def test_samplers():
    from hybridize.runtime.gluon.data import BatchSampler, RandomSampler, SequentialSampler
    assert list(SequentialSampler(4, start=2)) == [2, 3, 4, 5]
    assert sorted(RandomSampler(5)) == [0, 1, 2, 3, 4]
    assert list(BatchSampler(SequentialSampler(10), 3, "keep")) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert len(BatchSampler(SequentialSampler(10), 3, "discard")) == 3
    rolled = BatchSampler(SequentialSampler(10), 3, "rollover")
    assert list(rolled)[-1] == [6, 7, 8] and list(rolled)[0] == [9, 0, 1]


def test_monitor_names_inputs_as_mxnet():
    """MXNet names the inputs of ops without ``FListInputNames`` input0, input1, ... in monitor
    callbacks (probed from MXNet 1.9.1 by tools/record_monitor_names.py)."""
    from hybridize.runtime._mxnet_input_names import UNNAMED_INPUTS
    assert {"Activation", "relu", "Reshape", "transpose", "_plus_scalar", "SoftmaxActivation"} <= UNNAMED_INPUTS
    assert not {"FullyConnected", "Convolution", "broadcast_add", "Concat", "BatchNorm"} & UNNAMED_INPUTS
    data = mx.sym.var("data", shape=(2, 3))
    net = mx.sym.broadcast_add(mx.sym.Activation(data, act_type="relu", name="act"), data, name="add")
    exe = net.simple_bind(mx.cpu(), grad_req="null")
    seen = []
    exe.set_monitor_callback(lambda name, arr: seen.append(name), monitor_all=True)
    exe.forward()
    assert seen == ["data", "act_input0", "act_output", "add_lhs", "data", "add_rhs", "add_output"]  # MXNet 1.9.1
