"""Gluon gaps found by running real-world Gluon models (docs/runtime-realworld.md), one test each.

Each test copies the construct (a few lines), never the package it came from.
"""
import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime.gluon import HybridBlock, rnn


class _Unroll(HybridBlock):
    """gluon-ts LSTNet / gluon-nlp: a cell unrolled with begin states made while tracing
    (``begin_state(func=F.zeros, batch_size=0)``, or none given)."""

    def __init__(self, cell, explicit, **kwargs):
        super().__init__(**kwargs)
        self.explicit = explicit
        with self.name_scope():
            self.cell = cell

    def hybrid_forward(self, F, x):
        begin = None
        if self.explicit:
            begin = self.cell.begin_state(func=F.zeros, batch_size=0 if F is mx.sym else x.shape[0])
        out, _ = self.cell.unroll(3, x, begin_state=begin, layout="NTC", merge_outputs=True)
        return out


@pytest.mark.parametrize("executor", ["compiled", "interpret"])
@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn", "stack"])
def test_cells_unrolled_from_traced_zero_states(monkeypatch, executor, cell) -> None:
    if executor == "interpret":
        monkeypatch.setenv("HYBRIDIZE_EXECUTOR", "interpret")
    make = {"lstm": lambda: rnn.LSTMCell(5, input_size=2), "gru": lambda: rnn.GRUCell(5, input_size=2),
            "rnn": lambda: rnn.RNNCell(5, input_size=2)}
    if cell == "stack":
        c = rnn.HybridSequentialRNNCell()
        c.add(rnn.GRUCell(4, input_size=2))
        c.add(rnn.LSTMCell(5, input_size=4))
    else:
        c = make[cell]()
    net = _Unroll(c, explicit=cell != "rnn")
    net.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 3, 2)).astype(np.float32))
    ref = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-5, atol=1e-6)  # fast path
    x4 = mx.nd.ones((4, 3, 2))  # a second batch size: the same traced graph, another program
    assert net(x4).shape == (4, 3, 5)


def test_model_store_finds_local_files_and_never_downloads(tmp_path) -> None:
    """gluon-nlp imports ``mxnet.gluon.model_zoo.model_store`` and extends ``_model_sha1``."""
    from hybridize.runtime.base import LoadError
    from hybridize.runtime.gluon.model_zoo import model_store

    data = b"weights"
    import hashlib
    model_store._model_sha1["_test_tiny"] = hashlib.sha1(data).hexdigest()
    try:
        path = tmp_path / f"_test_tiny-{model_store.short_hash('_test_tiny')}.params"
        with pytest.raises(LoadError, match="does not download"):
            model_store.get_model_file("_test_tiny", root=str(tmp_path))
        path.write_bytes(data)
        assert model_store.get_model_file("_test_tiny", root=str(tmp_path)) == str(path)
        path.write_bytes(b"other")
        with pytest.raises(LoadError, match="checksum"):
            model_store.get_model_file("_test_tiny", root=str(tmp_path))
    finally:
        del model_store._model_sha1["_test_tiny"]
    assert model_store.short_hash("resnet18_v1") == "a0666292"


@pytest.mark.parametrize("kind", ["lstmp", "conv2dlstm"])
def test_contrib_rnn_cells_unroll_imperatively_and_hybridized(kind) -> None:
    """``mxnet.gluon.contrib.rnn`` (gluon-nlp's LSTMPCellWithClip derives from LSTMPCell); the
    convolutional cells' zero begin states learn their batch size through Convolution."""
    from hybridize.runtime.gluon.contrib import rnn as crnn

    if kind == "lstmp":
        cell, shape, out = crnn.LSTMPCell(6, 3, input_size=4), (2, 3, 4), (2, 3, 3)
    else:
        cell = crnn.Conv2DLSTMCell((2, 5, 5), 3, (3, 3), (3, 3), i2h_pad=(1, 1))
        shape, out = (2, 3, 2, 5, 5), (2, 3, 3, 5, 5)
    net = _Unroll(cell, explicit=False)
    net.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, shape).astype(np.float32))
    ref = net(x).asnumpy()
    assert ref.shape == out
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_contrib_cnn_deformable_convolution_layers() -> None:
    """``mxnet.gluon.contrib.cnn`` (gluon-cv's CenterNet DCNv2 heads build ModulatedDeformableConvolution)."""
    from hybridize.runtime.gluon.contrib import cnn

    for layer in (cnn.DeformableConvolution(4, kernel_size=3, padding=1, in_channels=2),
                  cnn.ModulatedDeformableConvolution(4, kernel_size=3, padding=1, in_channels=2)):
        layer.initialize(mx.init.Uniform(0.3))
        x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (1, 2, 5, 5)).astype(np.float32))
        ref = layer(x).asnumpy()
        assert ref.shape == (1, 4, 5, 5)
        layer.hybridize()
        np.testing.assert_allclose(layer(x).asnumpy(), ref, rtol=1e-5, atol=1e-6)
