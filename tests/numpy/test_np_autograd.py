"""Autograd on mx.np arrays: np functions run registered operators through the recording path, so
``attach_grad`` / ``autograd.record`` / ``backward`` give the gradients, as np arrays."""
import numpy as onp
import pytest

from hybridize.runtime import autograd, np, npx


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def grad_of(fn, *values):
    xs = [np.array(onp.asarray(v, dtype="float32")) for v in values]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = fn(*xs)
    y.backward()
    return [x.grad for x in xs]


def test_grad_is_an_np_array():
    (g,) = grad_of(lambda x: (x * x).sum(), [1.0, 2.0])
    assert isinstance(g, np.ndarray)
    onp.testing.assert_allclose(g.asnumpy(), [2.0, 4.0])


def test_broadcasting_arithmetic_and_scalars():
    ga, gb = grad_of(lambda a, b: np.sum((a * b + 2) / (b - 5.0) ** 2), [[1.0, 2.0], [3.0, 4.0]], [0.5, 1.5])
    a, b = onp.array([[1.0, 2.0], [3.0, 4.0]]), onp.array([0.5, 1.5])
    onp.testing.assert_allclose(ga.asnumpy(), onp.broadcast_to(b / (b - 5) ** 2, a.shape), rtol=1e-5)
    want_b = (a / (b - 5) ** 2 - 2 * (a * b + 2) / (b - 5) ** 3).sum(axis=0)
    onp.testing.assert_allclose(gb.asnumpy(), want_b, rtol=1e-5)


def test_unary_reductions_and_shapes():
    (g,) = grad_of(lambda x: np.mean(np.exp(x).reshape(-1, 1) @ np.ones((1, 3))), [0.0, 1.0, 2.0, 3.0])
    onp.testing.assert_allclose(g.asnumpy(), onp.exp([0.0, 1.0, 2.0, 3.0]) * 3 / 12, rtol=1e-5)


def test_max_indexing_and_npx_ops():
    (g,) = grad_of(lambda x: np.max(npx.relu(x)[1:], axis=0).sum(), [[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0]])
    onp.testing.assert_allclose(g.asnumpy(), [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])


def test_matmul_and_transpose():
    a, b = onp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), onp.array([[1.0], [0.5], [-1.0]])
    ga, gb = grad_of(lambda x, y: np.sum(np.matmul(x, y).T), a, b)
    onp.testing.assert_allclose(ga.asnumpy(), onp.ones((2, 1)) @ b.T)
    onp.testing.assert_allclose(gb.asnumpy(), a.T @ onp.ones((2, 1)))
