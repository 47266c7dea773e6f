"""A converted block holding a refused one: ``hybridize transpile --keep-going`` converts module by
module, so a package's ``Net`` (converted, ``@static_graph``) may hold a ``Gate`` it refused
(``@imperative_only``: ``np.histogram(y.asnumpy())``, HY001). The package must run as on MXNet:
imperatively until ``hybridize()``; ``hybridize()`` then hybridizes what can be and names, in one
warning line before the first call, the descendant that keeps ``Net`` imperative.

Expected numbers: MXNet 1.9.1 on the original package (``fixtures/gated/record.py`` -> ``gated.npz``).
"""
from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

FIXTURE = Path(__file__).parent / "fixtures" / "gated"


@pytest.fixture
def gated(tmp_path, transpile_cmd, package_loader):
    """The transpiled package, imported; and MXNet's record."""
    load, unload = package_loader
    src = tmp_path / "src" / "gated"
    shutil.copytree(FIXTURE / "gated", src, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path / "out"
    res = transpile_cmd(str(src), "-o", str(out), "--keep-going")
    assert res.exit_code == 1, res.output  # the gate's module is refused, the package written
    assert "Transpiled 2 of 3 modules" in res.stderr and f"{src / 'gate.py'} (HY001)" in res.stderr
    assert ("1 converted block holds an imperative-only block and runs imperatively (hybridize() hybridizes "
            f"the rest): {src / 'model.py'}: Net (Gate)") in res.stderr
    assert "@static_graph" in (out / "gated" / "model.py").read_text()
    assert "@imperative_only('HY001 at " in (out / "gated" / "gate.py").read_text()
    name = "transpiled_gated_under_test"
    pkg = load(out / "gated", name)
    yield pkg, dict(np.load(FIXTURE / "gated.npz"))
    unload(name)


def _net(pkg, record):
    import hybridize.runtime as mx

    net = pkg.Net()
    net.initialize()
    x = mx.nd.array(record["x"])
    net(x)  # deferred shapes, imperatively
    for name, param in net._collect_params_with_prefix().items():
        param.set_data(mx.nd.array(record[f"param:{name}"]))
    return net, x


def test_a_converted_parent_of_a_refused_child_runs_imperatively_with_mxnets_result(gated):
    pkg, record = gated
    net, x = _net(pkg, record)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a plain call: nothing to say
        out = net(x).asnumpy()
    np.testing.assert_allclose(out, record["imperative"], rtol=1e-5, atol=1e-6)
    assert not net._active and net._cached_op is None  # no graph was traced


def test_hybridize_names_the_imperative_descendant_and_hybridizes_the_rest(gated):
    from hybridize.runtime.gluon.static_graph import ImperativeOnlyWarning

    pkg, record = gated
    net, x = _net(pkg, record)
    # MXNet fails at the first call after net.hybridize() (recorded):
    assert str(record["hybridize_error"]).startswith("NotImplementedForSymbol: Function asnumpy")
    with pytest.warns(ImperativeOnlyWarning) as caught:
        net.hybridize()
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "\n" not in message
    assert message.startswith(f"Net '{net.name}' stays imperative: its descendant Gate '{net.gate.name}' "
                              "cannot be hybridized (hybridize transpile left it imperative because of HY001 at ")
    assert (net._active, net.gate._active) == (False, False)
    assert (net.body._active, net.head._active, net.gate.fc._active) == (True, True, True)
    out = net(x).asnumpy()  # MXNet users' way: the children hybridized, the same numbers
    np.testing.assert_allclose(out, record["children_hybridized"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out, record["imperative"], rtol=1e-5, atol=1e-6)
    assert net.head._cached_op is not None and net._cached_op is None


def test_the_refused_block_itself_stays_imperative_and_cannot_be_exported(gated, tmp_path):
    from hybridize.runtime.base import HybridizeError
    from hybridize.runtime.gluon.static_graph import ImperativeOnlyWarning

    pkg, record = gated
    net, x = _net(pkg, record)
    with pytest.warns(ImperativeOnlyWarning, match=rf"^Gate '{net.gate.name}' stays imperative: it cannot be "):
        net.gate.hybridize()
    expected = net.gate(net.body(x)).asnumpy()
    assert np.isfinite(expected).all() and not net.gate._active
    with pytest.raises(HybridizeError, match=rf"^Net '{net.name}' cannot be exported: its descendant Gate "):
        net.export(str(tmp_path / "net"))


def test_the_summary_names_blocks_holding_a_refused_block_through_others(tmp_path, transpile_cmd):
    src = tmp_path / "src" / "deep"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("")
    shutil.copy(FIXTURE / "gated" / "gate.py", src / "gate.py")
    (src / "stage.py").write_text(
        "from mxnet.gluon import nn\n\nfrom .gate import Gate\n\n\nclass Stage(nn.HybridBlock):\n"
        "    def __init__(self, **kwargs):\n        super(Stage, self).__init__(**kwargs)\n        self.gate = Gate()\n\n"
        "    def hybrid_forward(self, F, x):\n        return self.gate(x)\n\n\n"
        "class Plain(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.relu(x)\n")
    (src / "net.py").write_text(
        "from mxnet.gluon import nn\n\nfrom . import stage\n\n\nclass Net(nn.HybridBlock):\n"
        "    def __init__(self, **kwargs):\n        super(Net, self).__init__(**kwargs)\n"
        "        self.body = stage.Stage()\n        self.tail = stage.Plain()\n\n"
        "    def hybrid_forward(self, F, x):\n        return self.tail(self.body(x))\n")
    res = transpile_cmd(str(src), "-o", str(tmp_path / "out"), "--keep-going")
    assert res.exit_code == 1
    assert (f"2 converted blocks hold an imperative-only block and run imperatively (hybridize() hybridizes the "
            f"rest): {src / 'net.py'}: Net (Gate), {src / 'stage.py'}: Stage (Gate)") in res.stderr
