"""np-mode Gluon as MXNet 1.9.1 (answers recorded by tools/numpy_gaps/record.py from the cases of
np_gaps_cases.py): a block mixing np and classic outputs is refused with TypeError, imperative and
hybridized; parameters' arrays are exactly NDArray / mx.np.ndarray; np.random.multivariate_normal
(MXNet's fallback operator) runs and traces; built-in operators carry _numpy_op_doc's signatures;
np-mode RNN layers trace and run, hybridized or not, with MXNet's numbers and gradients."""
import json
import os

import numpy as onp
import pytest

import hybridize.runtime as mx
import np_gaps_cases as cases

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = json.load(open(os.path.join(HERE, "fixtures", "np_gaps.json")))


@pytest.fixture(autouse=True)
def classic_mode_after():
    yield
    mx.npx.reset_np()


def test_mixing_np_and_classic_outputs_is_a_type_error():
    assert cases.multiple_outputs(mx) == RECORDED["multiple_outputs"]


def test_parameter_arrays_are_exactly_ndarray_or_np_ndarray():
    assert cases.param_types(mx) == RECORDED["param_types"]


def test_multivariate_normal_shapes_imperative_and_hybridized():
    assert cases.mvn_shapes(mx) == RECORDED["mvn"]


def test_multivariate_normal_is_mean_plus_cholesky_factor_times_noise():
    mx.npx.set_np()
    mx.npx.random.seed(3)
    mean, cov = mx.np.array([1.0, -2.0]), mx.np.array([[4.0, 1.0], [1.0, 2.0]])
    y = mx.np.random.multivariate_normal(mean, cov, (20000,)).asnumpy()
    # MXNet's fallback: mean + einsum('...jk,...j->...k', L, z), so the covariance is L^T L
    low = onp.linalg.cholesky(cov.asnumpy())
    onp.testing.assert_allclose(y.mean(0), [1.0, -2.0], atol=0.05)
    onp.testing.assert_allclose(onp.cov(y.T), low.T @ low, atol=0.1)


def test_builtin_operators_carry_numpy_op_doc_signatures():
    assert cases.signatures(mx) == RECORDED["signatures"]


@pytest.mark.parametrize("key", sorted(RECORDED["rnn"]))
def test_np_mode_rnn_layers_equal_mxnet(key):
    i, hybridized = key.split("/")
    layer, hidden, layers, bidir, layout = cases.RNN_CASES[int(i)]
    got = cases.rnn_layers(mx, [int(i)], [hybridized == "True"])[key]
    want = RECORDED["rnn"][key]
    assert got[-1] == want[-1]   # the kinds of output and states: mx.np arrays
    for g, w in zip(got[:-1], want[:-1]):
        onp.testing.assert_allclose(onp.array(g), onp.array(w), rtol=1e-5, atol=2e-6)


def test_numpy_front_end_answers_equal_mxnet():
    """flip over no axis is a copy; svd/eig/eigh return tuples (slogdet a list); pad checks NumPy's
    keywords per mode and, as MXNet's front end, pads 'constant' with 0; nonzero reads a zero-dim
    array as one element; mx.np.fallback lists MXNet's names (those this NumPy still has)."""
    got, want = cases.numpy_api(mx), dict(RECORDED["numpy_api"])
    want["fallback"] = [n for n in want["fallback"] if hasattr(onp, n)]
    assert got == want
