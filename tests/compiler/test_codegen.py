"""The compiled executor: generated straight-line code equals the reference interpreter."""
import threading

import numpy as np
import pytest

from hybridize.runtime import symbol as sym
from hybridize.runtime.base import HybridizeError, ShapeError
from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.interpret import evaluate


def _toy():
    x = sym.var("data")
    w = sym.var("w")
    y = (x + w) * 2.0
    return (y + x).graph()


@pytest.mark.parametrize("optimize", [False, True])
def test_matches_interpreter(optimize):
    g = _toy()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    w = np.full((2, 3), 0.5, np.float32)
    prog = compile_graph(g, input_names=["data"], shapes={"data": (2, 3)}, params={"w": w}, optimize=optimize)
    (ours,) = prog(x)
    (ref,) = evaluate(g, {"data": x, "w": w})
    np.testing.assert_allclose(ours, ref)
    assert "def forward" in prog.code and "def forward" in repr(prog)


def test_rebinding_params_takes_effect():
    g = _toy()
    x = np.ones((2, 3), np.float32)
    prog = compile_graph(g, input_names=["data"], shapes={"data": (2, 3)}, params={"w": np.zeros((2, 3), np.float32)})
    a = prog(x)[0].copy()
    prog.bind_params({"w": np.ones((2, 3), np.float32)})
    b = prog(x)[0]
    np.testing.assert_allclose(a, np.full((2, 3), 3.0))
    np.testing.assert_allclose(b, np.full((2, 3), 5.0))


def test_unbound_and_bad_inputs_raise():
    g = _toy()
    prog = compile_graph(g, input_names=["data"], shapes={"data": (2, 3)})
    with pytest.raises(HybridizeError, match="not bound"):
        prog(np.ones((2, 3), np.float32))
    with pytest.raises(ShapeError):
        prog.bind_params({"w": np.ones((3, 3), np.float32)})
    with pytest.raises(HybridizeError, match="'w'"):
        prog.bind_params({})
    prog.bind_params({"w": np.ones((2, 3), np.float32)})
    with pytest.raises(ShapeError, match="specialized"):
        prog(np.ones((4, 3), np.float32))
    with pytest.raises(ShapeError, match="specialized"):
        prog(np.ones((2, 3), np.float64))
    # keyword call and non-ndarray input
    np.testing.assert_allclose(prog(data=np.ones((2, 3), np.float32))[0], prog([[1.0] * 3] * 2)[0])


def test_hostile_names_stay_out_of_code():
    x = sym.var("x\n__import__('os').system('echo pwned')#")
    w = sym.var("import")
    g = (x + w).graph()
    prog = compile_graph(g, input_names=[g.variables()[0].name], shapes={g.variables()[0].name: (2,)},
                         params={"import": np.ones(2, np.float32)})
    for line in prog.code.splitlines():
        if not line.strip().startswith("#"):
            assert "system(" not in line and "'os'" not in line
    np.testing.assert_allclose(prog(np.ones(2, np.float32))[0], [2.0, 2.0])


def test_outputs_are_fresh_and_threads_agree():
    g = _toy()
    prog = compile_graph(g, input_names=["data"], shapes={"data": (64, 32)},
                         params={"w": np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32)})
    xs = [np.random.default_rng(i).standard_normal((64, 32)).astype(np.float32) for i in range(8)]
    serial = [prog(x)[0].copy() for x in xs]
    results: dict = {}

    def work(t):
        for rep in range(20):
            for i, x in enumerate(xs):
                results[(t, rep, i)] = prog(x)[0]
    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for (t, rep, i), r in results.items():
        np.testing.assert_array_equal(r, serial[i])
