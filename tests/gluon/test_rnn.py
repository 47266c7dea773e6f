"""gluon.rnn (ported from MXNet 1.9.1): cells and fused layers agree imperative vs hybridized."""
from __future__ import annotations

import numpy as np
import pytest

from hybridize.runtime import nd
from hybridize.runtime.gluon import rnn


@pytest.mark.parametrize("make", [lambda: rnn.LSTMCell(6), lambda: rnn.GRUCell(5), lambda: rnn.RNNCell(4),
                                  lambda: rnn.RNNCell(3, activation="relu")],
                         ids=["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_cell_unroll(make):
    x = nd.array(np.random.default_rng(0).standard_normal((2, 5, 4)).astype(np.float32))
    cell = make()
    cell.initialize()
    out, states = cell.unroll(5, x, layout="NTC", merge_outputs=True)
    cell.hybridize()
    out2, states2 = cell.unroll(5, x, layout="NTC", merge_outputs=True)
    np.testing.assert_allclose(out2.asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(states, states2):
        np.testing.assert_allclose(b.asnumpy(), a.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [lambda: rnn.LSTM(6, num_layers=2, input_size=4),
                                  lambda: rnn.GRU(5, bidirectional=True, input_size=4),
                                  lambda: rnn.RNN(4, layout="NTC", input_size=4)],
                         ids=["lstm2", "bigru", "rnn_ntc"])
def test_fused_layer(make):
    rng = np.random.default_rng(1)
    layer = make()
    layer.initialize()
    shape = (2, 5, 4) if layer._layout == "NTC" else (5, 2, 4)
    x = nd.array(rng.standard_normal(shape).astype(np.float32))
    y = layer(x).asnumpy()
    layer.hybridize()
    np.testing.assert_allclose(layer(x).asnumpy(), y, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("hybridize_first", [False, True])
def test_fused_layer_deferred_input_size(hybridize_first):
    layer = rnn.LSTM(6, num_layers=2, bidirectional=True)
    layer.initialize()
    if hybridize_first:
        layer.hybridize()
    x = nd.array(np.random.default_rng(2).standard_normal((5, 2, 3)).astype(np.float32))
    y = layer(x)
    assert y.shape == (5, 2, 12)
    assert layer.l0_i2h_weight.shape == (24, 3) and layer.l1_i2h_weight.shape == (24, 12)
