"""Records MXNet 1.9.1's answers to the autograd API cases of ``tests/autograd/test_autograd_api.py``.

Run with real MXNet: ``/tmp/mxnet-venv/bin/python tools/record_autograd_api.py``. Writes
``tests/autograd/fixtures/api.npz`` (named arrays) and ``api.json`` (error messages, flags), the
same computations as the tests so each test compares with what MXNet gave.
"""
import json
import os

import numpy as np
from mxnet import autograd, nd

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "autograd", "fixtures")
X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
W = np.array([[0.2, -0.4, 0.6], [0.1, 0.3, -0.5], [0.7, -0.2, 0.05], [-0.3, 0.8, 0.4]], dtype=np.float32)
HEAD = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]], dtype=np.float32)
arrays, info = {}, {}


def err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return message(e)
    return None


def message(e):
    """MXNet's one-line message: the ``Check failed`` line of its C++ traceback, else the last line."""
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    for ln in lines:
        if "Check failed" in ln:
            return ln.split(": ", 1)[1] if ln.startswith("MXNetError") else ln
    return lines[-1]


def f(x):
    return nd.sum(nd.exp(x) * x + nd.sin(x) * 2)


# grad_req write / add / null
x = nd.array(X); x.attach_grad()
for _ in range(2):
    with autograd.record():
        y = f(x)
    y.backward()
arrays["write"] = x.grad.asnumpy()
x = nd.array(X); x.attach_grad(grad_req="add")
for _ in range(2):
    with autograd.record():
        y = f(x)
    y.backward()
arrays["add_twice"] = x.grad.asnumpy()
x = nd.array(X); x.attach_grad(grad_req="null")
info["null_grad_before_backward_is_none"] = x.grad is None
w = nd.array(W); w.attach_grad()
with autograd.record():
    y = nd.FullyConnected(x, w, num_hidden=4, no_bias=True)
y.backward()
arrays["null_w_grad"] = w.grad.asnumpy()
info["null_grad_after_backward_is_none"] = x.grad is None


def _null_only():
    a = nd.array(X); a.attach_grad(grad_req="null")
    with autograd.record():
        b = a * 2
    b.backward()


info["null_only_error"] = err(_null_only)

# head gradient, retain_graph, second backward
x = nd.array(X); x.attach_grad(grad_req="add")
with autograd.record():
    y = nd.tanh(x) * x
y.backward(nd.array(HEAD), retain_graph=True)
arrays["head_grad_once"] = x.grad.asnumpy()
y.backward(nd.array(HEAD), retain_graph=False)
arrays["retained_twice"] = x.grad.asnumpy()
info["third_backward_error"] = err(lambda: y.backward())
# backward of two heads
x = nd.array(X); x.attach_grad()
with autograd.record():
    a = nd.square(x)
    b = nd.sigmoid(x).sum()
autograd.backward([a, b], [nd.array(HEAD), None])
arrays["two_heads"] = x.grad.asnumpy()
# errors
info["not_recorded_error"] = err(lambda: nd.array(X).backward())
x = nd.array(X); x.attach_grad()
with autograd.record():
    y = x * 2
info["grad_of_non_variable_error"] = err(lambda: autograd.grad(y, [y * 1]))


def _inplace():
    v = nd.array(X); v.attach_grad()
    with autograd.record():
        v += 1


info["inplace_on_variable_error"] = err(_inplace)


def _no_variables():
    a = nd.array(X)
    with autograd.record():
        b = a * 2
    b.backward()


info["no_variables_error"] = err(_no_variables)

# autograd.grad, second order
for name, fn in [("sin", nd.sin), ("cos", nd.cos), ("exp", nd.exp), ("log", nd.log), ("tanh", nd.tanh),
                 ("sigmoid", nd.sigmoid), ("relu", nd.relu), ("square", nd.square), ("reciprocal", nd.reciprocal)]:
    x = nd.array(np.abs(X) + 0.1 if name == "log" else X); x.attach_grad()
    with autograd.record():
        y = fn(x)
        try:
            dx = autograd.grad(y, [x], head_grads=[nd.array(HEAD)], create_graph=True, retain_graph=True)[0]
            arrays["first_order_" + name] = dx.asnumpy()
            dx.backward()
            arrays["second_order_" + name] = x.grad.asnumpy()
            info["second_order_error_" + name] = None
        except Exception as e:  # noqa: BLE001
            info["second_order_error_" + name] = message(e)
# grad keeps .grad untouched
x = nd.array(X); x.attach_grad()
with autograd.record():
    y = nd.exp(x)
g = autograd.grad(y, x)
info["grad_of_one_variable_returns_a_list"] = isinstance(g, list)
arrays["grad_returned"] = g[0].asnumpy()
arrays["grad_buffer_untouched"] = x.grad.asnumpy()


# autograd.Function
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
        return d1 * b + d2, d1 * a + d2 * 3  # a deliberately "wrong" rule: Function's rule is used


x = nd.array(X); x.attach_grad()
with autograd.record():
    y = Sigmoid()(x)
y.backward(nd.array(HEAD))
arrays["function_sigmoid"] = x.grad.asnumpy()
a = nd.array(X); a.attach_grad()
b = nd.array(HEAD); b.attach_grad()
with autograd.record():
    p, q = MulAdd()(a, b)
    z = (p * 2 + q).sum()
z.backward()
arrays["function_two_a"] = a.grad.asnumpy()
arrays["function_two_b"] = b.grad.asnumpy()

# BlockGrad / stop_gradient, detach
x = nd.array(X); x.attach_grad()
with autograd.record():
    y = (nd.stop_gradient(x * 3) * x + nd.BlockGrad(x).sum() + (x.detach() * x)).sum()
y.backward()
arrays["blockgrad"] = x.grad.asnumpy()

# indexing: basic, advanced (repeated indices accumulate), a column
x = nd.array(X); x.attach_grad()
with autograd.record():
    y = x[1:2].sum() * 2 + x[nd.array([0, 0, 1])].sum() + x[:, 1].sum() * 5 + x[1, 2] * 7
y.backward()
arrays["indexing"] = x.grad.asnumpy()
# reshape / astype / copy / transpose / T
x = nd.array(X); x.attach_grad()
with autograd.record():
    y = (x.reshape((3, 2)) * nd.array(np.arange(6).reshape(3, 2))).sum() + x.astype("float64").sum().astype(
        "float32") + (x.copy() * x.T.T).sum()
y.backward()
arrays["views"] = x.grad.asnumpy()
# mark_variables with a given gradient buffer
x = nd.array(X)
buf = nd.ones(X.shape)
autograd.mark_variables([x], [buf], "add")
with autograd.record():
    y = nd.square(x)
y.backward()
arrays["mark_variables_add"] = buf.asnumpy()
# training / recording flags
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
info["flags"] = flags
# Dropout in backward uses its forward mask; train_mode of backward
x = nd.array(X); x.attach_grad()
with autograd.record():
    y = nd.Dropout(x, p=0.0) * 2
y.backward()
arrays["dropout_p0"] = x.grad.asnumpy()
# get_symbol
x = nd.array(X); x.attach_grad()
with autograd.record():
    y = nd.relu(x * 2 + 1)
info["get_symbol_outputs"] = autograd.get_symbol(y).list_outputs()
info["get_symbol_ops"] = [n["op"] for n in json.loads(autograd.get_symbol(y).tojson())["nodes"]]

os.makedirs(OUT, exist_ok=True)
np.savez_compressed(os.path.join(OUT, "api.npz"), **arrays)
with open(os.path.join(OUT, "api.json"), "w") as fh:
    json.dump(info, fh, indent=1, sort_keys=True)
print(json.dumps(info, indent=1))
