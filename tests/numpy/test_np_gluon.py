"""np-mode Gluon imperatively: after npx.set_np(), blocks built from the runtime's nn take and return
mx.np.ndarray, their parameters are mx.np.ndarray, and the outputs of the networks of np_gluon_nets.py
equal MXNet 1.9.1's (recorded by tools/numpy_rt/record.py, same parameter values), in inference and
in training mode (BatchNorm's batch statistics)."""
import json
import os

import numpy as onp
import pytest
from hybridize.runtime import autograd, np, npx
from hybridize.runtime.gluon import nn
from np_gluon_nets import NETS, set_params

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = onp.load(os.path.join(HERE, "fixtures", "np_gluon.npz"))
with open(os.path.join(HERE, "fixtures", "np_gluon.json")) as _fh:
    META = json.load(_fh)["nets"]


@pytest.fixture(autouse=True)
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


def build(name):
    make, _ = NETS[name]
    net = make(nn)
    net.initialize()
    x = np.array(RECORDED[f"{name}/x"])
    net(x)  # deferred initialization
    set_params(net, np)
    return net, x


@pytest.mark.parametrize("name", sorted(NETS))
def test_parameters_are_np_arrays_with_mxnets_values(name):
    net, _ = build(name)
    params = list(net.collect_params().values())
    assert len(params) == len(META[name]["params"])
    for p, key in zip(params, META[name]["params"]):
        assert isinstance(p.data(), np.ndarray)
        onp.testing.assert_array_equal(p.data().asnumpy(), RECORDED[f"{name}/param/{key}"])


@pytest.mark.parametrize("name", sorted(NETS))
def test_output_equals_mxnets(name):
    net, x = build(name)
    y = net(x)
    assert isinstance(y, np.ndarray) and y.dtype == onp.float32
    onp.testing.assert_allclose(y.asnumpy(), RECORDED[f"{name}/y"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(NETS))
def test_training_mode_output_equals_mxnets(name):
    net, x = build(name)
    with autograd.train_mode():
        y = net(x)
    onp.testing.assert_allclose(y.asnumpy(), RECORDED[f"{name}/y_train"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["convnet", "mlp"])  # built of F.npx layers (np-mode Symbol arithmetic: sym side)
def test_hybridized_output_equals_imperative(name):
    net, x = build(name)
    net.hybridize()
    onp.testing.assert_allclose(onp.asarray(net(x).asnumpy()), RECORDED[f"{name}/y"], rtol=1e-4, atol=1e-5)


def test_np_mode_off_again_gives_classic_arrays():
    npx.reset_np()
    net = nn.Dense(2)
    net.initialize()
    from hybridize.runtime import nd
    y = net(nd.ones((1, 3)))
    assert type(y) is nd.NDArray and type(net.weight.data()) is nd.NDArray


def test_d2l_linear_regression_trains_on_np_arrays():
    """d2l's concise linear regression, np mode: DataLoader batches, loss and parameters are mx.np
    arrays, and a few SGD epochs recover the weights (gradients flow through the np operators)."""
    from hybridize.runtime import gluon, init
    npx.random.seed(0)
    true_w, true_b = np.array([2, -3.4]), 4.2
    X = np.random.normal(0, 1, (200, 2))
    y = (np.dot(X, true_w) + true_b).reshape((-1, 1))
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), 10, shuffle=True)
    net = nn.Sequential()
    net.add(nn.Dense(1))
    net.initialize(init.Normal(sigma=0.01))
    loss = gluon.loss.L2Loss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})
    for _ in range(5):
        for xb, yb in loader:
            assert isinstance(xb, np.ndarray) and isinstance(yb, np.ndarray)
            with autograd.record():
                batch_loss = loss(net(xb), yb)
            batch_loss.backward()
            trainer.step(xb.shape[0])
    assert isinstance(net[0].weight.grad(), np.ndarray)
    onp.testing.assert_allclose(net[0].weight.data().asnumpy(), [[2.0, -3.4]], atol=0.05)
    onp.testing.assert_allclose(net[0].bias.data().asnumpy(), [4.2], atol=0.05)
