"""The imperative autograd API behaves as MXNet 1.9.1's: every number and message here was produced
by MXNet itself on the same computation (``tools/record_autograd_api.py`` -> ``fixtures/api.*``)."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
from hybridize.runtime import autograd
from hybridize.runtime import ndarray as nd
from hybridize.runtime.base import HybridizeError, MXNetError

FIX = Path(__file__).resolve().parent / "fixtures"
MX = dict(np.load(FIX / "api.npz"))
INFO = json.loads((FIX / "api.json").read_text())
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
W = np.array([[0.2, -0.4, 0.6], [0.1, 0.3, -0.5], [0.7, -0.2, 0.05], [-0.3, 0.8, 0.4]], dtype=np.float32)
HEAD = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], dtype=np.float32)


def close(got, name):
    np.testing.assert_allclose(got.asnumpy() if hasattr(got, "asnumpy") else got, MX[name], rtol=1e-5, atol=1e-6)


def message(text: str) -> str:
    """The sentence of MXNet's message after its ``Check failed: <condition>:`` prefix, as a pattern."""
    m = re.search(r"\) ?: ([A-Z].*)$", text)
    return re.escape(m.group(1) if m else text)


def f(x):
    return nd.sum(nd.exp(x) * x + nd.sin(x) * 2)


def variable(a=X, grad_req="write"):
    v = nd.array(a)
    v.attach_grad(grad_req=grad_req)
    return v


def test_write_overwrites_the_gradient_on_each_backward():
    x = variable()
    for _ in range(2):
        with autograd.record():
            y = f(x)
        y.backward()
    close(x.grad, "write")


def test_add_accumulates_over_backward_passes():
    x = variable(grad_req="add")
    for _ in range(2):
        with autograd.record():
            y = f(x)
        y.backward()
    close(x.grad, "add_twice")


def test_null_gets_no_gradient_and_leaves_the_graph_after_backward():
    x, w = variable(grad_req="null"), variable(W)
    assert (x.grad is None) is INFO["null_grad_before_backward_is_none"]
    with autograd.record():
        y = nd.FullyConnected(x, w, num_hidden=4, no_bias=True)
    y.backward()
    close(w.grad, "null_w_grad")
    assert (x.grad is None) is INFO["null_grad_after_backward_is_none"]


def test_a_graph_of_null_variables_only_has_nothing_to_differentiate():
    x = variable(grad_req="null")
    with autograd.record():
        y = x * 2
    with pytest.raises(MXNetError, match=message(INFO["null_only_error"])):
        y.backward()


def test_retain_graph_allows_a_second_backward_and_only_that():
    x = variable(grad_req="add")
    with autograd.record():
        y = nd.tanh(x) * x
    y.backward(nd.array(HEAD), retain_graph=True)
    close(x.grad, "head_grad_once")
    y.backward(nd.array(HEAD))
    close(x.grad, "retained_twice")
    with pytest.raises(MXNetError, match=message(INFO["third_backward_error"])):
        y.backward()


def test_backward_of_several_heads_sums_their_contributions():
    x = variable()
    with autograd.record():
        a = nd.square(x)
        b = nd.sigmoid(x).sum()
    autograd.backward([a, b], [nd.array(HEAD), None])
    close(x.grad, "two_heads")


def test_errors_are_mxnets():
    with pytest.raises(MXNetError, match=message(INFO["not_recorded_error"])):
        nd.array(X).backward()
    x = variable()
    with autograd.record():
        y = x * 2
    with pytest.raises(MXNetError, match=message(INFO["grad_of_non_variable_error"])):
        autograd.grad(y, [y * 1])
    with pytest.raises(MXNetError, match=message(INFO["inplace_on_variable_error"])), autograd.record():
        x += 1
    a = nd.array(X)
    with autograd.record():
        b = a * 2
    with pytest.raises(MXNetError, match=message(INFO["no_variables_error"])):
        b.backward()
    assert issubclass(HybridizeError, MXNetError)


@pytest.mark.parametrize("name", ["sin", "cos", "exp", "log", "tanh", "sigmoid", "relu", "square", "reciprocal"])
def test_second_order_gradients_through_create_graph(name):
    assert INFO[f"second_order_error_{name}"] is None  # MXNet 1.9.1 supports all of these
    x = variable(np.abs(X) + 0.1 if name == "log" else X)
    with autograd.record():
        y = getattr(nd, name)(x)
        dx = autograd.grad(y, [x], head_grads=[nd.array(HEAD)], create_graph=True, retain_graph=True)[0]
        close(dx, f"first_order_{name}")
        dx.backward()
    close(x.grad, f"second_order_{name}")


def test_grad_returns_new_arrays_and_leaves_dot_grad_alone():
    x = variable()
    with autograd.record():
        y = nd.exp(x)
    g = autograd.grad(y, x)
    assert isinstance(g, list) is INFO["grad_of_one_variable_returns_a_list"]
    close(g[0], "grad_returned")
    close(x.grad, "grad_buffer_untouched")


class Sigmoid(autograd.Function):
    def forward(self, x):
        y = 1 / (1 + nd.exp(-x))
        self.save_for_backward(y)
        return y

    def backward(self, dy):
        y, = self.saved_tensors
        return dy * y * (1 - y)


class MulAdd(autograd.Function):
    def forward(self, a, b):
        self.save_for_backward(a, b)
        return a * b, a + b

    def backward(self, d1, d2):
        a, b = self.saved_tensors
        return d1 * b + d2, d1 * a + d2 * 3  # not the true derivative: the Function's own rule wins


def test_function_uses_its_own_backward():
    x = variable()
    with autograd.record():
        y = Sigmoid()(x)
    y.backward(nd.array(HEAD))
    close(x.grad, "function_sigmoid")
    a, b = variable(), variable(HEAD)
    with autograd.record():
        p, q = MulAdd()(a, b)
        z = (p * 2 + q).sum()
    z.backward()
    close(a.grad, "function_two_a")
    close(b.grad, "function_two_b")
    with pytest.raises(AssertionError, match="only be called once"):
        f = Sigmoid()
        f(x)
        f(x)


def test_blockgrad_stop_gradient_and_detach_cut_the_graph():
    x = variable()
    with autograd.record():
        y = (nd.stop_gradient(x * 3) * x + nd.BlockGrad(x).sum() + (x.detach() * x)).sum()
    y.backward()
    close(x.grad, "blockgrad")


def test_indexing_records_gathers_whose_gradients_scatter_back():
    x = variable()
    with autograd.record():
        y = x[1:2].sum() * 2 + x[nd.array([0, 0, 1])].sum() + x[:, 1].sum() * 5 + x[1, 2] * 7
    y.backward()
    close(x.grad, "indexing")


def test_reshape_astype_copy_and_transpose_are_recorded():
    x = variable()
    with autograd.record():
        y = (x.reshape((3, 2)) * nd.array(np.arange(6).reshape(3, 2))).sum() + x.astype("float64").sum().astype(
            "float32") + (x.copy() * x.T.T).sum()
    y.backward()
    close(x.grad, "views")


def test_mark_variables_with_a_given_buffer_and_req():
    x = nd.array(X)
    buf = nd.ones(X.shape)
    autograd.mark_variables([x], [buf], "add")
    with autograd.record():
        y = nd.square(x)
    y.backward()
    close(buf, "mark_variables_add")


def test_recording_and_training_flags_in_each_scope():
    flags = {}
    with autograd.record():
        flags["record"] = [autograd.is_recording(), autograd.is_training()]
        with autograd.pause():
            flags["pause_in_record"] = [autograd.is_recording(), autograd.is_training()]
        with autograd.predict_mode():
            flags["predict_in_record"] = [autograd.is_recording(), autograd.is_training()]
    with autograd.record(train_mode=False):
        flags["record_predict"] = [autograd.is_recording(), autograd.is_training()]
    with autograd.train_mode():
        flags["train_mode"] = [autograd.is_recording(), autograd.is_training()]
    flags["outside"] = [autograd.is_recording(), autograd.is_training()]
    assert flags == INFO["flags"]


def test_dropout_backward_uses_the_forward_mask():
    x = variable()
    with autograd.record():
        y = nd.Dropout(x, p=0.0) * 2
    y.backward()
    close(x.grad, "dropout_p0")
    x = variable(np.ones((40, 50), np.float32))
    with autograd.record():
        y = nd.Dropout(x, p=0.5)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), y.asnumpy())  # d(x * mask)/dx = mask = y at x = 1


def test_get_symbol_returns_the_recorded_graph():
    x = variable()
    with autograd.record():
        y = nd.relu(x * 2 + 1)
    s = autograd.get_symbol(y)
    ops = [n["op"] for n in json.loads(s.tojson())["nodes"]]
    assert ops == INFO["get_symbol_ops"]
    assert len(s.list_outputs()) == len(INFO["get_symbol_outputs"])
