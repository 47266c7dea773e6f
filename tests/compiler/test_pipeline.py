"""The compiler reads as one list: stages of named passes, a verifier between them in debug runs,
one registry that chooses the executor."""
import numpy as np
import pytest

from hybridize.runtime import symbol as sym
from hybridize.runtime.base import HybridizeError, InvalidGraphError
from hybridize.runtime.graph import executors
from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.passes import Pass, PassContext
from hybridize.runtime.graph.pipeline import PIPELINE, Stage, run
from hybridize.runtime.graph.verify import verify


def convnet():
    x = sym.var("data")
    y = sym.Convolution(x, kernel=(3, 3), num_filter=4, pad=(1, 1), name="c")
    return sym.relu(sym.BatchNorm(y, name="bn") + 1.0)


def test_the_pipeline_is_one_list_of_named_stages():
    assert [(s.name, [p.name for p in s.passes]) for s in PIPELINE] == [
        ("differentiate", ["differentiate"]),
        ("optimise", ["identity", "cse", "constant_fold", "bn_fold", "pool_first"]),
        ("lower", ["layout", "conv_algo", "fuse", "dce"]),
        ("plan memory", ["liveness"]),
        ("emit", ["generate"])]


def test_every_stage_leaves_a_valid_graph(monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_VERIFY", "1")
    prog = compile_graph(convnet().graph(), input_names=["data"], shapes={"data": (1, 3, 8, 8)})
    assert sum(n for k, n in prog.stats["layout"].items() if k.startswith("conv_")) == 1


def test_the_verifier_names_an_edit_that_bypassed_the_graph():
    g = convnet().graph()
    ctx = PassContext(input_names=["data"], input_shapes={"data": (1, 3, 8, 8)}, input_dtypes={})
    ctx.infer(g)
    g.users(g.outputs[0])                       # the users are kept from now on
    relu = g.outputs[0].node
    relu.inputs = [g.variables()[0].entry()]    # not through graph.set_inputs
    with pytest.raises(InvalidGraphError, match="users"):
        verify(g, ctx, "optimise")


def test_a_stage_can_be_inserted_before_optimise(monkeypatch):
    seen = []

    def look(graph, ctx):
        seen.append(len(graph.nodes))
        return graph
    monkeypatch.setattr("hybridize.runtime.graph.pipeline.PIPELINE",
                        [Stage("differentiate", (Pass("look", look, optional=False),),
                               when=lambda ctx: ctx.training)] + PIPELINE)
    x = sym.var("data")
    g = sym.relu(x).graph()
    compile_graph(g, input_names=["data"], shapes={"data": (2, 3)})
    assert seen == []                           # its ``when`` says: training compiles only
    compile_graph(g, input_names=["data"], shapes={"data": (2, 3)}, training=True)
    assert seen == [2]


def test_unknown_pass_names_are_refused():
    ctx = PassContext(input_names=["data"], input_shapes={"data": (2, 3)}, input_dtypes={})
    with pytest.raises(KeyError, match="no graph pass named 'nope'"):
        run(sym.relu(sym.var("data")).graph(), ctx, passes=["nope"])


def test_one_registry_chooses_the_executor(monkeypatch):
    g = sym.relu(sym.var("data")).graph()
    x = np.array([[-1.0, 2.0]], np.float32)
    for kind in ("compiled", "interpret"):
        prog = executors.program(g, ["data"], {"data": (1, 2)}, {"data": np.float32}, {}, kind=kind)
        np.testing.assert_array_equal(prog(x)[0], [[0.0, 2.0]])
        np.testing.assert_array_equal(prog(data=x)[0], [[0.0, 2.0]])
    monkeypatch.setenv("HYBRIDIZE_EXECUTOR", "interpret")
    assert executors.choose() == "interpret"
    monkeypatch.setenv("HYBRIDIZE_EXECUTOR", "onnxruntime")
    assert executors.choose(supported=("compiled", "interpret")) == "compiled"   # Gluon's
    with pytest.raises(HybridizeError, match="unknown executor 'bogus'"):
        executors.choose("bogus")


def test_docs_open_with_the_pipeline_as_the_code_states_it():
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    doc = (root / "docs" / "compiler.md").read_text()
    block = doc.split("```python\n", 1)[1].split("```", 1)[0]
    code = (root / "runtime" / "graph" / "pipeline.py").read_text()
    assert block.strip() in code
