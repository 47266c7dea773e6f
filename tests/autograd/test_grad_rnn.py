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
