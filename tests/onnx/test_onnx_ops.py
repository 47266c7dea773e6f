"""Every operator case recorded from MXNet 1.9.1 (``fixtures/mxnet/ops``) exports as a one-op graph
that passes ONNX's full check and runs in onnxruntime to MXNet's outputs and dtypes; MXNet's
reshape codes and the BERT attention ops also with dynamic batch and sequence axes (against our
interpreter); converters are found through the registry, aliases included."""
from __future__ import annotations

import numpy as np
import pytest

from onnx_support import checked, dim_values, run
from support import FIXTURES, assert_close, one_op_graph_json, op_cases

CASES = op_cases()


def _case_graph(case: dict):
    from hybridize.runtime.graph import mxnet_json
    return mxnet_json.loads(one_op_graph_json(case["json_op"], case["case"], case["num_inputs"],
                                              case["num_outputs"], case["json_attrs"]))


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_one_op_graph_exports_and_matches_mxnet(case: dict) -> None:
    from hybridize.runtime.onnx import export_graph

    data = np.load(FIXTURES / "ops" / f"{case['case']}.npz")
    ins = {f"in{i}": data[f"in{i}"] for i in range(case["num_inputs"])}
    model = checked(export_graph(_case_graph(case), {}, [a.shape for a in ins.values()],
                                 [a.dtype for a in ins.values()]))
    outs = run(model, ins)
    assert len(outs) == case["num_outputs"]
    for k, (ours, dtype) in enumerate(zip(outs, case["output_dtypes"])):
        theirs = data[f"out{k}"]
        assert ours.shape == theirs.shape and ours.dtype.name == dtype
        assert_close(ours, theirs)


def _interpret(graph, feeds):
    from hybridize.runtime.graph.interpret import evaluate
    return [np.asarray(v) for v in evaluate(graph, feeds)]


def _dynamic_matches_interpreter(sym_out, shapes: dict, dyn_axes: dict, variants: list[dict]) -> None:
    from hybridize.runtime.onnx import export_graph

    from hybridize.runtime.onnx.export import graph_inputs

    graph = sym_out.graph()
    names = [v.name for v in graph_inputs(graph, {})]      # the model's input order
    assert sorted(names) == sorted(shapes)
    model = checked(export_graph(graph, {}, [shapes[k] for k in names], dynamic=True,
                                 dynamic_input_shapes=[tuple(None if i in dyn_axes.get(k, ()) else d
                                                             for i, d in enumerate(shapes[k])) for k in names]))
    for k in names:
        assert dim_values(next(i for i in model.graph.input if i.name == k)) == \
            [None if i in dyn_axes.get(k, ()) else d for i, d in enumerate(shapes[k])]
    for feeds in variants:
        for ours, ref in zip(run(model, feeds), _interpret(graph, feeds)):
            assert ours.shape == ref.shape
            assert_close(ours, ref)


@pytest.mark.parametrize("shape", [(0, -1), (-1, 0, 3), (0, -3), (-3, 0), (0, 0, -4, 3, -1), (0, -2),
                                   (-2,), (0, 2, -1), (-4, -1, 1, -2)])
def test_reshape_codes_with_a_dynamic_batch(shape) -> None:
    from hybridize.runtime import sym

    x = sym.var("data")
    y = sym.Reshape(sym.relu(x), shape=shape) * 2
    rng = np.random.default_rng(0)
    feeds = [{"data": rng.normal(size=(b, 4, 6)).astype(np.float32)} for b in (1, 3)]
    _dynamic_matches_interpreter(y, {"data": (2, 4, 6)}, {"data": (0,)}, feeds)


def test_bert_attention_ops_with_dynamic_batch_and_sequence() -> None:
    from hybridize.runtime import sym

    heads, hd = 2, 3
    qkv = sym.var("qkv")
    mem = sym.var("mem")
    att = sym.softmax(sym.contrib.interleaved_matmul_selfatt_qk(qkv, heads=heads), axis=-1)
    ctx = sym.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=heads)
    q = sym.slice_axis(qkv, axis=2, begin=0, end=heads * hd)
    att2 = sym.softmax(sym.contrib.interleaved_matmul_encdec_qk(q, mem, heads=heads), axis=-1)
    out = sym.contrib.interleaved_matmul_encdec_valatt(mem, att2, heads=heads) + ctx
    rng = np.random.default_rng(1)
    feeds = [{"qkv": rng.normal(size=(t, b, heads * 3 * hd)).astype(np.float32),
              "mem": rng.normal(size=(m, b, heads * 2 * hd)).astype(np.float32)}
             for t, b, m in ((5, 1, 4), (3, 2, 6))]
    _dynamic_matches_interpreter(out, {"qkv": (4, 2, heads * 3 * hd), "mem": (5, 2, heads * 2 * hd)},
                                 {"qkv": (0, 1), "mem": (0, 1)}, feeds)


def test_converters_are_keyed_by_the_registry_so_aliases_resolve() -> None:
    from hybridize.runtime.onnx import get_operator_support
    from hybridize.runtime.onnx.registry import lookup
    from hybridize.runtime.ops.registry import get_op

    assert lookup(get_op("Softmax")) is lookup(get_op("SoftmaxOutput")) is not None
    assert lookup(get_op("_plus")) is lookup(get_op("elemwise_add"))
    assert lookup(get_op("flatten")) is lookup(get_op("Flatten"))
    supported = get_operator_support()
    assert {"Convolution", "BatchNorm", "LayerNorm", "Embedding", "_foreach", "_while_loop", "_cond", "_zeros",
            "_contrib_interleaved_matmul_selfatt_qk"} <= set(supported)
    assert "Custom" not in supported and "Softmax" not in supported   # canonical names only
