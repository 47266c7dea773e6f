"""What the first call of a compiled model runs besides the forward: the bind-time prologue (weight
re-layouts and BatchNorm folds on the thread pool, level by level) gives the same constants as one
thread doing the steps in order, and the Winograd weight transforms equal the float64 definition."""
import numpy as np
import pytest

from support import require_shared
from model_support import model_dir, recipe_params

from hybridize.runtime.graph import mxnet_json
from hybridize.runtime.graph.codegen import compile_graph
from hybridize.runtime.graph.kernels import parallel
from hybridize.runtime.graph.kernels.conv import wino, wino4


def _resnet18(monkeypatch, serial: bool):
    require_shared()
    calls = []
    real = parallel.run_chunks

    def run_chunks(fn, n):
        calls.append(n)
        if serial:
            for i in range(n):
                fn(i)
        else:
            real(fn, n)
    monkeypatch.setattr(parallel, "run_chunks", run_chunks)
    g = mxnet_json.load(model_dir("resnet18_v1") / "model-symbol.json")
    params = recipe_params("resnet18_v1")
    inputs = [n.name for n in g.variables() if n.name not in params]
    prog = compile_graph(g, input_names=inputs, shapes={inputs[0]: (1, 3, 32, 32)}, params=params,
                         options={"winograd": "f4"})
    return prog, calls


def test_the_parallel_prologue_equals_the_serial_one(monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_THREADS", "2")
    par, calls = _resnet18(monkeypatch, serial=False)
    assert max(calls) > 1                                   # the weight transforms ran as one parallel step
    ser, _ = _resnet18(monkeypatch, serial=True)
    a, b = par.direct()[1], ser.direct()[1]
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    x = np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32)
    assert np.array_equal(par(x)[0], ser(x)[0])


@pytest.mark.parametrize("module,G,b_major", [(wino, wino._G, False), (wino4, wino4._W4_G, True)])
def test_winograd_weights_equal_the_float64_definition(module, G, b_major):
    w = np.random.default_rng(1).standard_normal((5, 3, 3, 3)).astype(np.float32)
    u = np.einsum("ai,kcij,bj->abck", G, w.astype(np.float64), G)          # U = G g G^T, (a, b, C, K)
    if b_major:
        u = u.transpose(1, 0, 2, 3)
    n = G.shape[0]
    got = module.weight(w)
    # one GEMM writes (n*n, K, C); the kernels read its (n*n, C, K) view
    assert got.dtype == np.float32 and got.shape == (n * n, 3, 5) and got.transpose(0, 2, 1).flags.c_contiguous
    np.testing.assert_allclose(got, u.reshape(n * n, 3, 5), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(module.weight(w.astype(np.float64)), u.reshape(n * n, 3, 5), rtol=1e-13, atol=1e-13)
    # a data gradient's flipped filters (a view of the weight) are read in place as well
    flipped = w.swapaxes(0, 1)[:, :, ::-1, ::-1]
    uf = np.einsum("ai,kcij,bj->abck", G, flipped.astype(np.float64), G)
    if b_major:
        uf = uf.transpose(1, 0, 2, 3)
    np.testing.assert_allclose(module.weight(flipped), uf.reshape(n * n, 5, 3), rtol=1e-6, atol=1e-6)
