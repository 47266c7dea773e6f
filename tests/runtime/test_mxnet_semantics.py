"""Semantic corners of MXNet 1.9.1 its unit tests reach, against numbers recorded with real MXNet
(``tools/record_mxnet_semantics.py``, ``fixtures/mxnet_semantics.npz``): activations at NaN (oneDNN's
float32 kernels against the native ones), ``arange(infer_range=True)`` in a graph, float32 exp/log."""
import json
from pathlib import Path

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime.gluon import nn

FIX = np.load(Path(__file__).parent / "fixtures" / "mxnet_semantics.npz")
META = json.loads(str(FIX["meta"]))
ACT_CASES = sorted(k for k in META if k.startswith("act/"))


class _Expr(nn.HybridBlock):
    def __init__(self, expr: str):
        super().__init__()
        self._expr = expr

    def hybrid_forward(self, F, x):
        return eval(self._expr, {"F": F, "x": x})


# -- activations at NaN: float32 of 1-5 dimensions runs oneDNN (relu: NaN gives 0; leaky/elu: the
# head gradient passes at NaN), everything else MXNet's native kernels (NaN stays NaN) ------------
@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
@pytest.mark.parametrize("case", ACT_CASES)
def test_activation_outputs_and_gradients_at_nan_are_mxnets(case, hybridize):
    x = FIX[case + "/x"]
    net = _Expr(META[case]["expr"])
    if hybridize:
        net.hybridize()
    a = mx.nd.array(x, dtype=x.dtype)
    a.attach_grad()
    with mx.autograd.record():
        y = net(a)
    y.backward(mx.nd.full(x.shape, 3.0, dtype=x.dtype))
    rtol = 1e-3 if x.dtype == np.float16 else 1e-6
    np.testing.assert_allclose(y.asnumpy(), FIX[case + "/y"], rtol=rtol)       # NaN where MXNet's is NaN
    np.testing.assert_allclose(a.grad.asnumpy(), FIX[case + "/dx"], rtol=rtol)
    np.testing.assert_allclose(net(mx.nd.array(x, dtype=x.dtype)).asnumpy(), FIX[case + "/y"], rtol=rtol)


@pytest.mark.parametrize("hybridize", [False, True], ids=["imperative", "hybridized"])
def test_a_convolutions_nan_outputs_become_zero_through_activation_relu(hybridize):
    class ConvRelu(nn.HybridBlock):
        def hybrid_forward(self, F, x, w, b):
            return F.Activation(F.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=3), act_type="relu")
    net = ConvRelu()
    if hybridize:
        net.hybridize()
    args = [mx.nd.array(FIX["conv_relu/" + k]) for k in ("x", "w", "b")]
    y = net(*args).asnumpy()
    assert not np.isnan(y).any()
    np.testing.assert_allclose(y, FIX["conv_relu/y"], rtol=1e-5, atol=1e-5)


# -- arange(infer_range=True): the length is the consumer's --------------------------------------
@pytest.mark.parametrize("name", sorted(k.split("/")[1] for k in META if k.startswith("arange/")))
def test_arange_with_infer_range_takes_its_length_from_its_consumer(name):
    kw, shape = META[f"arange/{name}"]["kwargs"], tuple(META[f"arange/{name}"]["shape"])
    dt = kw.get("dtype", "float32")
    s = mx.sym.elemwise_add(mx.sym.arange(stop=None, infer_range=True, **kw), mx.sym.var("v", dtype=dt))
    assert s.infer_shape(v=shape)[1] == [shape]
    exe = s.bind(mx.cpu(), args={"v": mx.nd.zeros(shape, dtype=dt)})
    out = exe.forward()[0].asnumpy()
    np.testing.assert_array_equal(out, FIX[f"arange/{name}/y"])
    assert out.dtype == FIX[f"arange/{name}/y"].dtype


def test_arange_with_infer_range_and_no_consumer_shape_fails_in_one_line():
    with pytest.raises(mx.base.MXNetError, match="infer_range"):
        mx.sym.arange(start=0, infer_range=True).bind(mx.cpu(), args={}).forward()


def test_nd_arange_ignores_the_deprecated_infer_range_as_mxnet():
    with pytest.warns(DeprecationWarning, match="infer_range"):
        out = mx.nd.arange(0, 3, infer_range=True)
    assert out.asnumpy().tolist() == [0, 1, 2]


# -- float32 exp/log: MXNet's glibc expf/logf round (nearly always) correctly ----------------------
@pytest.mark.parametrize("name,arg,most_differ", [("exp", "x", 3), ("log", "pos", 15),
                                                  ("expm1", "x", 0), ("log1p", "pos", 0), ("sqrt", "pos", 0)])
def test_float32_exp_and_log_are_mxnets_values(name, arg, most_differ):
    x = FIX["unary/" + arg]
    ref = FIX["unary/" + name]
    out = getattr(mx.nd, name)(mx.nd.array(x)).asnumpy()
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=2.5e-7)                   # within an ulp everywhere
    assert int((out != ref).sum()) <= most_differ                        # and equal nearly everywhere


def test_exp_of_one_in_float32_is_the_correctly_rounded_e():
    assert mx.nd.exp(mx.nd.ones((1,))).asscalar() == np.float32(np.e)
