"""MXNet 1.9.1's legacy symbolic RNN package ``mx.rnn``: unfused cells unrolled into symbols, the
fused cell over the ``RNN`` operator with the same numbers once the weights are packed, the
``FusedRNN`` initializer, ``BucketSentenceIter`` and RNN checkpoints.

Expected values: ``data/legacy_rnn_cases.json``/``.npz`` and the checkpoint
``data/legacy_rnn_ckpt-*``, recorded from MXNet 1.9.1 by ``data/make_legacy_rnn_cases.py``.
"""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import warnings

import numpy as np
import pytest

import hybridize.runtime as mx

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
CASES = json.load(open(os.path.join(DATA, "legacy_rnn_cases.json")))
ARRAYS = np.load(os.path.join(DATA, "legacy_rnn_cases.npz"))
_spec = importlib.util.spec_from_file_location("legacy_rnn_nets", os.path.join(DATA, "legacy_rnn_nets.py"))
nets = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nets)
T, N, I, H = nets.T, nets.N, nets.I, nets.H


def stack_of(mode: str, bidirectional: bool, layers: int) -> mx.rnn.SequentialRNNCell:
    return nets.stack_of(mx, mode, bidirectional, layers)


def fused_of(case: dict) -> mx.rnn.FusedRNNCell:
    return mx.rnn.FusedRNNCell(H, num_layers=case["layers"], mode=case["mode"],
                               bidirectional=case["bidirectional"], get_next_state=True, prefix="")


def unroll(cell, layout: str = "NTC"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fused cell's "NTC layout detected" hint
        out, _ = cell.unroll(T, mx.sym.Variable("data"), layout=layout, merge_outputs=True)
    return out


@pytest.mark.parametrize("case", CASES["unroll"], ids=lambda c: c["key"])
def test_unfused_cells_unroll_and_differentiate_as_mxnet(case):
    key = case["key"]
    out = unroll(stack_of(case["mode"], case["bidirectional"], case["layers"]))
    assert out.list_arguments() == case["arguments"]
    if case["bidirectional"]:  # named by output_prefix (the unidirectional concat's name is a counter's)
        assert out.list_outputs() == case["outputs"]
    ex = out.simple_bind(mx.cpu(), data=(N, T, I))   # begin states: zeros whose batch size is inferred
    for n in case["arguments"]:
        ex.arg_dict[n][:] = ARRAYS[f"{key}/x" if n == "data" else f"{key}/arg/{n}"]
    ex.forward(is_train=True)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), ARRAYS[f"{key}/y"], rtol=1e-5, atol=1e-6)
    ex.backward([mx.nd.array(ARRAYS[f"{key}/dy"])])
    for n in case["arguments"]:
        np.testing.assert_allclose(ex.grad_dict[n].asnumpy(), ARRAYS[f"{key}/grad/{n}"], rtol=1e-4, atol=1e-6,
                                   err_msg=n)


@pytest.mark.parametrize("case", CASES["unroll"], ids=lambda c: c["key"])
def test_fused_cell_packs_the_unfused_weights_and_computes_the_same(case):
    key = case["key"]
    fused, stack = fused_of(case), stack_of(case["mode"], case["bidirectional"], case["layers"])
    args = {n: mx.nd.array(ARRAYS[f"{key}/arg/{n}"]) for n in case["arguments"] if n != "data"}
    packed = fused.pack_weights(stack.unpack_weights(dict(args)))["parameters"]
    np.testing.assert_array_equal(packed.asnumpy(), ARRAYS[f"{key}/packed"])
    pieces = fused.unpack_weights({"parameters": packed})
    assert {n: list(v.shape) for n, v in pieces.items()} == case["unpacked"]
    back = stack.pack_weights(pieces)
    for n, v in args.items():
        np.testing.assert_array_equal(back[n].asnumpy(), v.asnumpy(), err_msg=n)

    out = unroll(fused)
    assert out.list_arguments() == case["fused_arguments"]
    ex = out.simple_bind(mx.cpu(), data=(N, T, I))
    ex.arg_dict["data"][:] = ARRAYS[f"{key}/x"]
    ex.arg_dict["parameters"][:] = packed
    ex.forward(is_train=True)
    np.testing.assert_allclose(ex.outputs[0].asnumpy(), ARRAYS[f"{key}/fused_y"], rtol=1e-5, atol=1e-6)
    ex.backward([mx.nd.array(ARRAYS[f"{key}/dy"])])
    np.testing.assert_allclose(ex.grad_dict["data"].asnumpy(), ARRAYS[f"{key}/grad/data"], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(ex.grad_dict["parameters"].asnumpy(), ARRAYS[f"{key}/fused_dparams"],
                               rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("case", CASES["init"], ids=lambda c: c["mode"])
def test_fused_rnn_initializer_initializes_each_gate_and_sets_forget_biases(case):
    init = mx.init.FusedRNN(None, num_hidden=H, num_layers=2, mode=case["mode"], forget_bias=2.0)
    assert json.loads(init.dumps()) == json.loads(case["dumps"])
    expected = ARRAYS["init/" + case["mode"]]
    arr = mx.nd.zeros(expected.shape)
    mx.init.Constant(0.25)(mx.init.InitDesc("parameters", attrs={"__init__": init.dumps()}), arr)
    np.testing.assert_array_equal(arr.asnumpy(), expected)


def test_bucket_sentence_iter_buckets_pads_and_shifts_labels():
    c = CASES["bucket_iter"]
    with pytest.warns(UserWarning, match="discarded 1 sentences longer than the largest bucket"):
        it = mx.rnn.BucketSentenceIter(c["sentences"], batch_size=c["batch_size"], buckets=c["buckets"],
                                       invalid_label=c["invalid_label"])
    assert it.default_bucket_key == c["default_bucket_key"]
    assert len(it.idx) == c["idx_count"]
    assert [[d.name, list(d.shape), d.layout] for d in it.provide_data] == c["provide_data"]
    assert [[d.name, list(d.shape), d.layout] for d in it.provide_label] == c["provide_label"]
    assert [sorted(np.asarray(d).tolist()) for d in it.data] == c["bucket_rows"]
    assert [sorted(lab.asnumpy().tolist()) for lab in it.ndlabel] == c["bucket_labels"]
    batches = list(it)
    assert len(batches) == c["idx_count"]
    assert all(b.bucket_key in c["buckets"] for b in batches)
    with pytest.warns(UserWarning):
        tn = mx.rnn.BucketSentenceIter(c["sentences"], batch_size=2, buckets=c["buckets"], invalid_label=0,
                                       layout="TN")
    assert sorted([[d.name, list(d.shape), d.layout] for b in tn for d in b.provide_data]) == c["tn_provide_data"]


def test_rnn_checkpoint_written_by_mxnet_loads_packed(tmp_path):
    for suffix in ("-symbol.json", "-0003.params"):
        shutil.copy(os.path.join(DATA, "legacy_rnn_ckpt" + suffix), tmp_path / ("ckpt" + suffix))
    fused = mx.rnn.FusedRNNCell(H, num_layers=1, mode="lstm", prefix="ck_")
    sym, args, auxs = mx.rnn.load_rnn_checkpoint(fused, str(tmp_path / "ckpt"), 3)
    assert sym.list_arguments() == ["data", "ck_parameters"]
    np.testing.assert_array_equal(args["ck_parameters"].asnumpy(), ARRAYS["ckpt/parameters"])
    assert auxs == {}
    # saved again by the runtime: unpacked per gate on disk, packed when read back
    mx.rnn.save_rnn_checkpoint(fused, str(tmp_path / "again"), 1, sym, dict(args), {})
    on_disk = mx.nd.load(str(tmp_path / "again-0001.params"))
    assert "arg:ck_l0_i2h_f_weight" in on_disk and "arg:ck_parameters" not in on_disk
    _, args2, _ = mx.rnn.load_rnn_checkpoint(fused, str(tmp_path / "again"), 1)
    np.testing.assert_array_equal(args2["ck_parameters"].asnumpy(), ARRAYS["ckpt/parameters"])
