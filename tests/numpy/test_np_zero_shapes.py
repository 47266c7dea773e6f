"""Zero-dim and zero-size shapes, as MXNet 1.9.1 reads them: with NumPy shape semantics on
(``npx.set_np()``) ``()`` is a real zero-dim shape, a 0 is a real (empty) axis and -1 marks an unknown
dimension; off (MXNet 1.x), 0 marks an unknown dimension. One definition (``ops._util.known``) decides
for the operators' shape rules, graph inference, Gluon and the compiler, so hybridized np-mode blocks
compile and run on such inputs with MXNet's results (recorded by tools/numpy_zero/record.py from the
cases of np_zero_cases.py), and legacy graphs keep inferring 0s."""
import os

import numpy as onp
import pytest
from hybridize.runtime import autograd, init, np, npx, sym
from hybridize.runtime.gluon import nn
from hybridize.runtime.ops._util import known, ndim_known
from np_zero_cases import CASES, block, compare_block, dense_block, dot_block, inputs

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = onp.load(os.path.join(HERE, "fixtures", "np_zero_shapes.npz"))


@pytest.fixture
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


@pytest.mark.parametrize("shape, legacy, numpy", [
    ((2, 3), True, True),
    ((), True, True),
    ((2, 0, 3), False, True),
    ((0,), False, True),
    ((-1, 3), False, False),
    (None, False, False),
])
def test_a_shape_is_known_by_the_semantics_in_force(shape, legacy, numpy):
    assert known(shape) is legacy
    npx.set_np()
    try:
        assert known(shape) is numpy
    finally:
        npx.reset_np()


def test_a_zero_dim_shape_is_a_real_shape_for_tensor_only_operators_in_numpy_mode():
    assert not known((), scalar=False) and not ndim_known(())
    npx.set_np()
    try:
        assert known((), scalar=False) and ndim_known(())
    finally:
        npx.reset_np()


@pytest.mark.parametrize("name", sorted(CASES))
def test_hybridized_block_equals_mxnet(np_mode, name):
    body, shapes = CASES[name]
    net = block(nn, body)
    net.hybridize()
    xs = [np.array(x) for x in inputs(shapes)]
    for _ in range(2):   # the compiling call, then the compiled program's
        y = net(*xs)
        ys, keys = (y, [f"{name}/{i}" for i in range(len(y))]) if isinstance(y, list) else ([y], [name])
        assert all(k in RECORDED for k in keys)
        for yi, key in zip(ys, keys):
            want = RECORDED[key]
            assert isinstance(yi, np.ndarray)
            assert (yi.shape, yi.dtype) == (want.shape, want.dtype)
            onp.testing.assert_allclose(yi.asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_deferred_dense_learns_its_input_size_from_an_empty_batch(np_mode):
    net = dense_block(nn)
    net.initialize(init.Constant(0.5))
    net.hybridize()
    assert net[0].weight.shape == (3, -1)
    y = net(np.zeros((0, 4)))
    assert net[0].weight.shape == tuple(RECORDED["dense/weight_shape"])
    assert y.shape == RECORDED["dense/y"].shape


def test_dot_completes_a_deferred_operand(np_mode):
    net = dot_block(nn)
    net.initialize(init.Constant(0.25))
    net.hybridize()
    x, = inputs([(4, 3)])
    y = net(np.array(x))
    assert net.w.shape == tuple(RECORDED["dot/w_shape"])
    onp.testing.assert_allclose(y.asnumpy(), RECORDED["dot/y"], rtol=1e-6)


def test_recorded_block_with_a_comparison_output_differentiates_the_other(np_mode):
    net = compare_block(nn)
    net.hybridize()
    x, y = (np.array(v) for v in inputs([(2, 3), (2, 3)]))
    x.attach_grad()
    with autograd.record():
        prod, greater = net(x, y)
    prod.backward()
    onp.testing.assert_array_equal(greater.asnumpy(), RECORDED["compare/greater"])
    onp.testing.assert_allclose(x.grad.asnumpy(), RECORDED["compare/x_grad"], rtol=1e-6)


def test_an_axis_a_zero_dim_input_lacks_is_an_mxnet_error_when_compiling(np_mode):
    from hybridize.runtime.base import MXNetError
    net = block(nn, lambda F, x: F.np.argmax(x, axis=1))
    net.hybridize()
    with pytest.raises(MXNetError, match="_npi_argmax"):
        net(np.array(inputs([()])[0]))


def test_legacy_shapes_still_read_zero_as_unknown():
    data = sym.var("data", shape=(0, 5))
    net = sym.FullyConnected(data, num_hidden=3, name="fc")
    args, outs, _ = net.infer_shape_partial()
    assert dict(zip(net.list_arguments(), args)) == {"data": (0, 5), "fc_weight": (3, 5), "fc_bias": (3,)}
    assert outs == [(0, 3)]


def test_legacy_determinant_of_one_matrix_has_shape_one():
    """MXNet's DetShape: ``(1,)`` without NumPy shape semantics (``()`` with them, recorded above)."""
    from hybridize.runtime import nd
    sign, logdet = nd.linalg.slogdet(nd.array([[0.75, 1.0], [1.25, 1.5]]))
    assert sign.shape == logdet.shape == (1,)
