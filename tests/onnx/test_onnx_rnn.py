"""The fused RNN operator exports as ONNX RNN/LSTM/GRU (gates reordered, layers chained, states
sliced) and matches our interpreter (itself checked against MXNet 1.9.1), including Gluon's
hybridized rnn layers, whose weights are concatenated in the graph and folded at export."""
from __future__ import annotations

import numpy as np
import pytest

from onnx_support import checked, run
from support import assert_close

RNG = np.random.default_rng(11)


@pytest.mark.parametrize("mode,layers,bidirectional,lengths", [
    ("lstm", 2, True, False), ("gru", 2, True, False), ("rnn_tanh", 1, False, False),
    ("rnn_relu", 2, False, False), ("lstm", 1, True, True), ("gru", 1, False, True)])
def test_fused_rnn_matches_the_interpreter(mode, layers, bidirectional, lengths) -> None:
    from hybridize.runtime import sym
    from hybridize.runtime.graph.interpret import evaluate
    from hybridize.runtime.onnx import export_graph
    from hybridize.runtime.ops.nn_rnn import _param_size
    from hybridize.runtime.ops.registry import get_op

    T, N, I, H = 4, 3, 5, 6
    D = 2 if bidirectional else 1
    kw = dict(state_size=H, num_layers=layers, bidirectional=bidirectional, mode=mode, state_outputs=True,
              use_sequence_length=lengths)
    size = _param_size(get_op("RNN").resolve(kw), I)
    args = [sym.var("data"), sym.var("params"), sym.var("state")]
    feeds = {"data": RNG.normal(size=(T, N, I)).astype(np.float32),
             "state": RNG.normal(size=(layers * D, N, H)).astype(np.float32)}
    if mode == "lstm":
        args.append(sym.var("cell"))
        feeds["cell"] = RNG.normal(size=(layers * D, N, H)).astype(np.float32)
    if lengths:
        args.append(sym.var("lens"))
        feeds["lens"] = np.array([4, 2, 1], np.float32)
    out = sym.RNN(*args, **kw)
    params = {"params": (RNG.normal(size=(size,)) * 0.5).astype(np.float32)}
    graph = out.graph()
    from hybridize.runtime.onnx.export import graph_inputs
    names = [v.name for v in graph_inputs(graph, params)]
    model = checked(export_graph(graph, params, {k: feeds[k].shape for k in names}))
    ours = run(model, {k: feeds[k] for k in names})
    refs = evaluate(graph, {**feeds, **params})
    assert len(ours) == len(refs) == (3 if mode == "lstm" else 2)
    for a, b in zip(ours, refs):
        assert a.shape == np.shape(b)
        assert_close(a, b)


def test_gluon_lstm_layer_exports_with_its_weights_folded(tmp_path) -> None:
    from hybridize.runtime import nd
    from hybridize.runtime.gluon import nn, rnn
    from hybridize.runtime.onnx import export_model

    net = nn.HybridSequential()
    net.add(rnn.LSTM(6, num_layers=2, bidirectional=True, input_size=4), nn.Dense(3, flatten=False))
    net.initialize()
    net.hybridize()
    x = nd.array(RNG.normal(size=(5, 2, 4)).astype(np.float32))
    y = net(x).asnumpy()
    net.export(str(tmp_path / "lstm"))
    path = export_model(str(tmp_path / "lstm-symbol.json"), str(tmp_path / "lstm-0000.params"), [(5, 2, 4)],
                        onnx_file_path=str(tmp_path / "lstm.onnx"), dynamic=True,
                        dynamic_input_shapes=[(None, None, 4)])
    import onnx
    model = checked(onnx.load(path))
    assert "LSTM" in {node.op_type for node in model.graph.node}
    assert_close(run(model, {"data": x.asnumpy()})[0], y)
    x2 = RNG.normal(size=(3, 4, 4)).astype(np.float32)       # other sequence length and batch
    assert_close(run(model, {"data": x2})[0], net(nd.array(x2)).asnumpy())
