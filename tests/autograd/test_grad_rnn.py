"""The fused RNN operator back-propagates through time: every mode, stacked and bidirectional, agrees
with finite differences of the forward kernel in data, parameters and initial states."""
from __future__ import annotations

import numpy as np
import pytest
from gradcheck import check_vjp, vjp
from hybridize.runtime.base import ShapeError
from hybridize.runtime.ops.nn_rnn import _param_size
from hybridize.runtime.ops.registry import get_op


def _inputs(attrs, T=3, N=2, I=3, seed=0):
    rng = np.random.default_rng(seed)
    a = get_op("RNN").resolve(get_op("RNN").coerce_attrs(attrs))
    D = 2 if attrs.get("bidirectional") else 1
    L, H = attrs["num_layers"], attrs["state_size"]
    ins = [rng.standard_normal((T, N, I)), 0.5 * rng.standard_normal(_param_size(a, I)),
           rng.standard_normal((L * D, N, H))]
    if attrs["mode"] == "lstm":
        ins.append(rng.standard_normal((L * D, N, H)))
    return ins


@pytest.mark.parametrize("mode", ["rnn_relu", "rnn_tanh", "lstm", "gru"])
@pytest.mark.parametrize("layers,bidirectional", [(1, False), (2, True)])
def test_rnn_gradient_matches_finite_differences(mode, layers, bidirectional):
    attrs = {"state_size": 2, "num_layers": layers, "mode": mode, "bidirectional": bidirectional,
             "state_outputs": True}
    check_vjp("RNN", _inputs(attrs), attrs, rtol=1e-5, atol=1e-6)


def test_without_state_outputs_only_the_sequence_output_carries_gradient():
    attrs = {"state_size": 2, "num_layers": 1, "mode": "gru"}
    check_vjp("RNN", _inputs(attrs), attrs, rtol=1e-5, atol=1e-6)


def test_float32_inputs_get_float32_gradients():
    attrs = {"state_size": 2, "num_layers": 1, "mode": "lstm"}
    grads, _, _ = vjp("RNN", [x.astype(np.float32) for x in _inputs(attrs)], attrs)
    assert [g.dtype for g in grads] == [np.float32] * 4


def test_sequence_lengths_are_refused_as_mxnet_cpu_does():
    attrs = {"state_size": 2, "num_layers": 1, "mode": "gru", "use_sequence_length": True}
    with pytest.raises(ShapeError, match="cuDNN"):
        vjp("RNN", _inputs(attrs) + [np.array([3.0, 2.0])], attrs)


@pytest.mark.parametrize("mode", ["rnn_tanh", "lstm", "gru"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_dropout_between_layers_back_propagates_through_the_forwards_masks(mode, bidirectional):
    """A two-layer call with dropout in training equals two one-layer calls with the same mask applied
    between them (the mask the forward drew), in value and in every gradient."""
    import hybridize.runtime as mx
    from hybridize.runtime.ops.nn_rnn import _masks_of, _unpack
    H, D, p = 3, 2 if bidirectional else 1, 0.5
    attrs = {"state_size": H, "num_layers": 2, "mode": mode, "bidirectional": bidirectional, "state_outputs": True}
    arrays = [mx.nd.array(a) for a in _inputs(attrs, T=4, N=3, I=5, seed=1)]
    for a in arrays:
        a.attach_grad()
    with mx.autograd.record():
        outs = mx.nd.RNN(*arrays, p=p, **attrs)
        loss = outs[0].sum() + (outs[1] * outs[1]).sum()
    loss.backward()
    mask = _masks_of(outs[0]._data)[0]
    assert mask.shape == (4, 3, D * H) and 0 < mask.mean() < 1

    # the same computation from two one-layer calls, each layer's weights then biases
    resolved = get_op("RNN").resolve(get_op("RNN").coerce_attrs(attrs))
    layers = _unpack(resolved, np.arange(arrays[1].size), 5)
    one = {**attrs, "num_layers": 1}
    cell = arrays[3] if mode == "lstm" else None
    ref = [a.copy() for a in arrays]
    for a in ref:
        a.attach_grad()
    with mx.autograd.record():
        h = ref[0]
        finals = [[], []]
        for li in range(2):
            idx = np.concatenate([np.concatenate([d["wi"].ravel(), d["wh"].ravel()]) for d in layers[li]] +
                                 [np.concatenate([d["bi"], d["bh"]]) for d in layers[li]])
            args = [h, mx.nd.take(ref[1], mx.nd.array(idx)), ref[2][li * D:(li + 1) * D]]
            if cell is not None:
                args.append(ref[3][li * D:(li + 1) * D])
            o = mx.nd.RNN(*args, **one)
            finals[0].append(o[1])
            h = o[0] * mx.nd.array(mask / (1 - p)) if li == 0 else o[0]
        ref_loss = h.sum() + (mx.nd.concat(*finals[0], dim=0) ** 2).sum()
    ref_loss.backward()
    np.testing.assert_allclose(outs[0].asnumpy(), h.asnumpy(), rtol=1e-5, atol=1e-6)
    for a, r in zip(arrays, ref):
        np.testing.assert_allclose(a.grad.asnumpy(), r.grad.asnumpy(), rtol=1e-4, atol=1e-6)


def test_dropout_is_off_in_a_recording_in_inference_mode():
    import hybridize.runtime as mx
    attrs = {"state_size": 2, "num_layers": 2, "mode": "gru", "p": 0.5}
    arrays = [mx.nd.array(a) for a in _inputs(attrs)]
    arrays[0].attach_grad()
    with mx.autograd.record(train_mode=False):
        out = mx.nd.RNN(*arrays, **attrs)
    out.backward()
    grads_off = arrays[0].grad.asnumpy().copy()
    with mx.autograd.record(train_mode=False):
        out0 = mx.nd.RNN(*arrays, **{**attrs, "p": 0.0})
    out0.backward()
    np.testing.assert_array_equal(out.asnumpy(), out0.asnumpy())
    np.testing.assert_allclose(grads_off, arrays[0].grad.asnumpy(), rtol=1e-6)
