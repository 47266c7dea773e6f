"""``hybridize transpile`` on np-mode modules: MXNet's NumPy interface maps to the runtime's (no
HY012), ``np.X`` inside ``hybrid_forward`` becomes ``F.np.X``, and the result runs hybridized to
what the original computes imperatively."""
from __future__ import annotations

import numpy as onp

from hybridize.runtime import np as mnp
from hybridize.runtime import npx
from hybridize.transpile.emit.surface import surface_findings

NP_MODULE = '''import mxnet as mx
import mxnet.numpy as mnp
from mxnet import np, npx
from mxnet.gluon import nn
from mxnet.numpy import ndarray
from mxnet.util import use_np
npx.set_np()


class Net(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = nn.Dense(3)

    def hybrid_forward(self, F, x):
        h = npx.relu(self.dense(x))
        return np.tanh(h) + np.ones((3,)) * h[:, :1]


a = mx.np.ones((2,)) + mnp.zeros((2,)) + np.linalg.norm(np.random.normal(size=(2,)))
b = npx.sigmoid(a)
'''


def test_numpy_interface_names_exist_on_the_runtime():
    assert surface_findings(NP_MODULE, "m.py") == []


def test_transpiled_np_module_builds_F_np_graphs_equal_to_the_imperative_block(tmp_path):
    from hybridize.transpile.emit.output import apply_conversions

    converted, count = apply_conversions(NP_MODULE, "m.py")
    assert count == 3
    assert "h = F.npx.relu(self.dense(x))" in converted
    assert "return F.np.tanh(h) + F.np.ones((3,)) * h[:, :1]" in converted
    imports = {"import mxnet as mx": "import hybridize.runtime as mx",
               "import mxnet.numpy as mnp": "import hybridize.runtime.numpy as mnp",
               "from mxnet": "from hybridize.runtime"}

    def load(text):
        for old, new in imports.items():
            text = text.replace(old, new)
        scope: dict = {}
        exec(compile(text, "m.py", "exec"), scope)  # noqa: S102 - the module under test
        return scope["Net"]

    x = mnp.array(onp.random.RandomState(0).normal(size=(4, 5)).astype("float32"))
    try:
        original, converted_net = load(NP_MODULE)(), load(converted)()
        for net in (original, converted_net):
            net.initialize()
            net(x)
            rs = onp.random.RandomState(1)
            for p in net.collect_params().values():
                p.set_data(mnp.array(rs.normal(size=p.shape).astype("float32")))
        want = original(x).asnumpy()
        converted_net.hybridize()
        got = converted_net(x)
        assert isinstance(got, mnp.ndarray)
        onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    finally:
        npx.reset_np()


NP_FINDINGS = '''from mxnet import np, npx
from mxnet.gluon import nn
npx.set_np()


class Net(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = nn.Dense(4, flatten=False)

    def hybrid_forward(self, F, x):
        b, c, h = x.shape
        y = F.npx.relu(self.dense(x))
        if y.sum() > 0:
            y = y * 2
        else:
            y = -y
        y[:, 0] = 0
        z = y.reshape((y.shape[0], -1))
        return z / len(z), x.reshape((b, c * h))
'''


def test_np_findings_convert_to_F_np_and_the_module_runs_hybridized_as_the_original():
    """``x.shape``, a tensor ``if``, item assignment, ``len``: converted by ``hybridize transpile`` into
    ``F.np``/``F.npx`` code whose hybridized graph computes what the original computes imperatively."""
    from hybridize.transpile.emit.output import apply_conversions

    converted, count = apply_conversions(NP_FINDINGS, "m.py")
    assert count == 5 and "F.np.where(y.sum() > 0, y * 2, -y)" in converted
    assert "return F.np.true_divide(z, F.npx.shape_array(z)[0].astype('float32')), F.npx.reshape(x, (-2, -5))" \
        in converted and "b, c, h" not in converted

    def load(text):
        scope: dict = {}
        exec(compile(text.replace("from mxnet", "from hybridize.runtime"), "m.py", "exec"), scope)  # noqa: S102
        net = scope["Net"]()
        net.initialize()
        return net

    x = mnp.array(onp.random.RandomState(0).normal(size=(2, 3, 5)).astype("float32"))
    try:
        original, converted_net = load(NP_FINDINGS), load(converted)
        original(x), converted_net(x)
        for p, q in zip(original.collect_params().values(), converted_net.collect_params().values()):
            q.set_data(p.data())
        want = original(x)
        converted_net.hybridize()
        got = converted_net(x)
        for g, w in zip(got, want):
            onp.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)
    finally:
        npx.reset_np()
