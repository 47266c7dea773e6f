"""np-mode Gluon behaviours checked against MXNet 1.9.1: the cases, shared by the recorder
(tools/numpy_gaps/record.py, run with MXNet 1.9.1) and tests/numpy/test_np_gaps.py.

The library (``mxnet`` or ``hybridize.runtime``) is passed in, so this module imports neither. Every
function returns plain Python values (type names, shapes, lists of numbers) that are written to
tests/numpy/fixtures/np_gaps.json and compared as they are.
"""
from __future__ import annotations

import inspect

import numpy as onp


def kind(v) -> str:
    """``np`` (an mx.np array, exactly), ``nd`` (a classic NDArray, exactly) or the class name."""
    name = type(v).__module__ + "." + type(v).__name__
    if name.endswith("numpy.ndarray") or name.endswith("numpy.multiarray.ndarray"):
        return "np"
    if name.endswith("ndarray.NDArray"):
        return "nd"
    return type(v).__name__


def _outputs(mx, kind_of_block: str):
    """A block returning two outputs: both np (``np``), both classic (``nd``) or one of each (``mixed``)."""
    from_np = kind_of_block != "nd"

    class Two(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            if kind_of_block == "np":
                return F.np.add(x, x), F.np.multiply(x, x)
            if kind_of_block == "nd":
                return x.as_nd_ndarray() + x.as_nd_ndarray(), x.as_nd_ndarray() * x.as_nd_ndarray()
            return x.as_nd_ndarray() + x.as_nd_ndarray(), F.np.multiply(x, x)
    return mx.util.use_np(Two) if from_np else Two


def multiple_outputs(mx) -> dict:
    """``<np|nd|mixed>/<hybridized>`` -> the two outputs' kinds, or the exception's class name."""
    out = {}
    x = mx.np.ones((2, 3))
    for which in ("np", "nd", "mixed"):
        for hybridize in (False, True):
            net = _outputs(mx, which)()
            if hybridize:
                net.hybridize()
            try:
                a, b = net(x)
                out[f"{which}/{hybridize}"] = [kind(a), kind(b)]
            except Exception as e:  # noqa: BLE001 - the recorded answer is the exception's class
                out[f"{which}/{hybridize}"] = type(e).__name__
    return out


def param_types(mx) -> dict:
    """``<np|nd>/<hybridized>`` -> kinds of a deferred weight's ``data()`` and ``grad()`` after a call."""
    out = {}
    for np_mode in (False, True):
        for hybridize in (False, True):
            class Dot(mx.gluon.HybridBlock):
                def __init__(self):
                    super().__init__()
                    with self.name_scope():
                        self.w = self.params.get("w", shape=(3, 4), allow_deferred_init=True)

                def hybrid_forward(self, F, x, w):
                    return F.np.dot(x, w) if np_mode else F.dot(x, w)
            net = mx.util.use_np(Dot)() if np_mode else Dot()
            net.initialize()
            if hybridize:
                net.hybridize()
            x = mx.nd.ones((2, 3))
            net(x.as_np_ndarray() if np_mode else x)
            out[f"{'np' if np_mode else 'nd'}/{hybridize}"] = [kind(net.w.data()), kind(net.w.grad())]
    return out


MVN_CASES = [  # (mean shape, cov shape, size)
    ((2,), (2, 2), None), ((3, 2), (2, 2), 1), ((2,), (3, 2, 2), ()), ((3, 2), (4, 3, 2, 2), (2, 3)),
    ((2,), (2, 2), (2, 0)),
]


def mvn_shapes(mx) -> dict:
    """``<case>/<hybridized>`` -> shape and dtype of ``np.random.multivariate_normal`` (random values)."""
    out = {}

    class MVN(mx.gluon.HybridBlock):
        def __init__(self, size):
            super().__init__()
            self.size = size

        def hybrid_forward(self, F, mean, cov):
            return F.np.random.multivariate_normal(mean, cov, self.size)
    for i, (ms, cs, size) in enumerate(MVN_CASES):
        for hybridize in (False, True):
            net = mx.util.use_np(MVN)(size)
            if hybridize:
                net.hybridize()
            mean = mx.np.broadcast_to(mx.np.array([0.5, 10.0]), ms)
            cov = mx.np.broadcast_to(mx.np.array([[1.0, 0.0], [0.0, 10.0]]), cs)
            y = net(mean, cov)
            out[f"{i}/{hybridize}"] = [list(y.shape), str(y.dtype)]
    return out


def signatures(mx) -> dict:
    """``_np_*``/``_npx_*`` names of ``_numpy_op_doc`` -> ``str(inspect.signature(function))``."""
    from importlib import import_module
    doc = import_module(mx.__name__ + "._numpy_op_doc")
    sig = import_module(mx.__name__ + ".numpy_op_signature")
    out = {}
    for name in sorted(dir(doc)):
        if name.startswith(("_np_", "_npx_")):
            try:
                out[name] = str(inspect.signature(sig._get_builtin_op(name)))
            except ValueError as e:
                out[name] = "ValueError: " + str(e).split(" in module")[0]
    return out


RNN_CASES = [  # (layer, hidden, layers, bidirectional, layout)
    ("LSTM", 3, 2, False, "TNC"), ("GRU", 3, 1, True, "NTC"), ("LSTM", 2, 1, True, "TNC"),
    ("RNN", 3, 2, False, "TNC"),
]


def _fill(key: str, p) -> onp.ndarray:
    """A deterministic value for parameter ``p`` (its shape; ``key`` its name within the layer, which
    does not depend on how many layers were made before), the same in both libraries."""
    n = int(onp.prod(p.shape))
    return (onp.sin(onp.arange(n, dtype=onp.float64) * 0.7 + len(key) % 5) * 0.5).astype("float32").reshape(p.shape)


def rnn_layers(mx, which=None, hybridized=(False, True)) -> dict:
    """``<case>/<hybridized>`` -> [output, states..., input gradient, kinds] of np-mode RNN layers with
    deterministic weights, called on np arrays with explicit begin states (lists of numbers)."""
    out = {}
    for i, (layer, hidden, layers, bidir, layout) in enumerate(RNN_CASES):
        if which is not None and i not in which:
            continue
        for hybridize in hybridized:
            with mx.util.np_shape(True), mx.util.np_array(True):
                cls = getattr(mx.gluon.rnn, layer)
                net = cls(hidden, num_layers=layers, bidirectional=bidir, layout=layout, input_size=4)
                net.initialize()
                for key, p in net._collect_params_with_prefix().items():
                    p.set_data(mx.np.array(_fill(key, p)))
                if hybridize:
                    net.hybridize()
                shape = (5, 2, 4) if layout == "TNC" else (2, 5, 4)
                x = mx.np.array(onp.cos(onp.arange(40, dtype="float64") * 0.3).astype("float32").reshape(shape))
                x.attach_grad()
                states = net.begin_state(2)
                with mx.autograd.record():
                    y, new_states = net(x, states)
                    loss = (y * y).sum() + sum((s * s).sum() for s in new_states)
                loss.backward()
                out[f"{i}/{hybridize}"] = [y.asnumpy().round(6).tolist()] + \
                    [s.asnumpy().round(6).tolist() for s in new_states] + [x.grad.asnumpy().round(6).tolist()] + \
                    [[kind(y)] + [kind(s) for s in new_states]]
    return out


def _try(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the recorded answer is the exception's class
        return type(e).__name__


def numpy_api(mx) -> dict:
    """Answers of the mx.np front end that MXNet's interoperability tests compare with official NumPy:
    flip over no axis, the container linalg returns, pad's modes and keywords, nonzero of a zero-dim
    array, the fallback lists."""
    np, npx = mx.np, mx.npx
    out = {}
    with mx.util.np_shape(True), mx.util.np_array(True):
        a = np.array(onp.arange(8, dtype="float32").reshape(2, 2, 2))
        for axis in [(), None, (0, 2), 1]:
            out[f"flip/{axis}"] = np.flip(a, axis).asnumpy().ravel().tolist()

        class Flip(mx.gluon.HybridBlock):
            def hybrid_forward(self, F, x):
                return F.np.flip(x, ())
        net = Flip()
        net.hybridize()
        out["flip/()/hybridized"] = net(a).asnumpy().ravel().tolist()
        m = np.array([[2.0, 1.0], [1.0, 3.0]])
        for f in ("eig", "eigh", "svd", "slogdet", "qr"):
            out[f"linalg/{f}"] = type(getattr(np.linalg, f)(m)).__name__
        b = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        for mode, kw in [("constant", {"constant_values": 7}), ("edge", {}), ("reflect", {}), ("symmetric", {}),
                         ("maximum", {}), ("minimum", {}), ("wrap", {}), ("constant", {"constant_values": (1, 2)}),
                         ("edge", {"constant_values": 1})]:
            out[f"pad/{mode}/{sorted(kw.items())}"] = _try(
                lambda: np.pad(b, ((1, 1), (2, 1)), mode=mode, **kw).asnumpy().ravel().tolist())
        out["pad/list_width"] = _try(lambda: np.pad(b, [[1, 1], [1, 1]]).shape)
        for v in (2.5, 0.0):
            z = npx.nonzero(np.array(v))
            out[f"nonzero/{v}"] = [list(z.shape), z.asnumpy().ravel().tolist(),
                                   [list(t.shape) for t in np.nonzero(np.array(v))]]
        out["fallback"] = sorted(np.fallback.__all__)
        out["fallback_linalg"] = sorted(np.fallback_linalg.__all__)
    return out


def record_all(mx) -> dict:
    return {"multiple_outputs": multiple_outputs(mx), "param_types": param_types(mx), "mvn": mvn_shapes(mx),
            "signatures": signatures(mx), "rnn": rnn_layers(mx), "numpy_api": numpy_api(mx)}
