"""The names an executor's monitor callback reports over a training forward and backward, for
a few graphs (a loss with a label, a head gradient read by an operator, a gradient summed from two
uses, a shared weight, no bias, BatchNorm, Dropout), and the values of BatchNorm's hidden ``mean``/``var``
outputs in a training and an inference forward. One module for both sides: ``tools/record_monitor_backward.py``
runs it under MXNet 1.9.1 (``fixtures/monitor_backward.json``), ``test_monitor_backward.py`` under
the runtime, each given its ``mx``."""
from __future__ import annotations

from typing import Any


def _graphs(mx: Any) -> dict[str, tuple[Any, dict]]:
    S = mx.sym
    x = S.var("data")
    chain = S.LinearRegressionOutput(S.Activation(S.FullyConnected(x, num_hidden=3, name="fc"), act_type="tanh",
                                                  name="act"), name="lro")
    conv = S.FullyConnected(S.relu(S.Convolution(x, kernel=(3, 3), num_filter=2, no_bias=True, name="conv"),
                                   name="relu"), num_hidden=2, name="fc")
    h = S.FullyConnected(x, num_hidden=4, name="fc")
    twice = S.sum(S.elemwise_mul(h, h, name="mul"), name="total")
    w = S.var("shared_weight")
    shared = S.FullyConnected(S.FullyConnected(x, weight=w, num_hidden=4, no_bias=True, name="fc_a"),
                              weight=w, num_hidden=4, no_bias=True, name="fc_b")
    bn = S.BatchNorm(S.FullyConnected(x, num_hidden=3, name="fc"), fix_gamma=False, name="bn")
    return {
        "fc_batchnorm": (bn, {"data": (4, 5)}),
        "fc_dropout": (S.Dropout(S.FullyConnected(x, num_hidden=3, name="fc"), p=0.5, name="do"), {"data": (4, 5)}),
        "chain_loss": (chain, {"data": (2, 5), "lro_label": (2, 3)}),
        "conv_relu_fc": (conv, {"data": (2, 1, 5, 5)}),
        "entry_used_twice": (twice, {"data": (2, 5)}),
        "weight_shared": (shared, {"data": (2, 4)}),
    }


def cases(mx: Any) -> dict[str, list[str]]:
    """case name -> the names the monitor callback got, in order (forward, then backward)."""
    out = {}
    for name, (sym, shapes) in _graphs(mx).items():
        reqs = {n: ("null" if n in ("data",) or n.endswith("_label") else "write") for n in sym.list_arguments()}
        ex = sym.simple_bind(mx.cpu(), grad_req=reqs, **shapes)
        for i, a in enumerate(ex.arg_arrays):
            a[:] = mx.nd.array(((i + 1) * 0.1 + 0.01 * mx.nd.arange(a.size).asnumpy()).reshape(a.shape))
        seen: list[str] = []
        ex.set_monitor_callback(lambda n, arr: seen.append(n if isinstance(n, str) else n.decode()))
        ex.forward(is_train=True)
        ex.backward([mx.nd.ones(o.shape) for o in ex.outputs])
        out[name] = seen
    out["batchnorm_hidden_outputs"] = _batchnorm_statistics(mx)
    return out


def _as_nd(mx: Any, arr: Any) -> Any:
    """MXNet's executor hands a monitor callback an NDArray handle (``mx.mon.Monitor`` wraps it)."""
    if hasattr(arr, "asnumpy"):
        return arr
    import ctypes

    from mxnet.base import NDArrayHandle
    return mx.nd.NDArray(ctypes.cast(arr, NDArrayHandle), writable=False)


def _batchnorm_statistics(mx: Any) -> list:
    sym, shapes = _graphs(mx)["fc_batchnorm"]
    out = []
    for train in (True, False):
        ex = sym.simple_bind(mx.cpu(), **shapes)
        for i, a in enumerate(ex.arg_arrays):
            a[:] = mx.nd.array((0.1 * (i + 1) + 0.05 * mx.nd.arange(a.size).asnumpy() ** 1.5).reshape(a.shape))
        ex.aux_dict["bn_moving_mean"][:] = 0.5
        ex.aux_dict["bn_moving_var"][:] = 2.0
        seen: list = []
        ex.set_monitor_callback(lambda n, arr: seen.append(
            [n if isinstance(n, str) else n.decode(), [round(float(v), 5) for v in _as_nd(mx, arr).asnumpy()]])
            if (n if isinstance(n, str) else n.decode()) in ("bn_mean", "bn_var") else None)
        ex.forward(is_train=train)
        out.append(seen)
    return out
