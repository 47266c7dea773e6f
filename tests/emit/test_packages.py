"""Whole packages, honestly: ``hybridize transpile`` on a package with a model, a module it cannot
convert, a training module (names the runtime does not have) and data files.

What a user gets: every refused module and every unsupported API named in the summary; with
``--keep-going`` a package that imports, whose model runs (imperatively, and hybridized where it was
converted), whose refused block runs imperatively and refuses to hybridize naming the finding, and
whose data files are there; conversions applied before refusing (``--no-convert`` restores the
checker's gate); ``--diff`` over the whole tree; the same bytes on every run.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

MODEL = """\
from mxnet import nd
from mxnet.gluon import nn


class Net(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.fc = nn.Dense(6)

    def hybrid_forward(self, F, x):
        return F.relu(self.fc(x)).reshape(2, 3)
"""

REFUSED = """\
from mxnet.gluon import nn


class Gate(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.fc = nn.Dense(3)

    def hybrid_forward(self, F, x):
        y = self.fc(x)
        scale = y.sum().asscalar()
        return y * scale
"""

TRAIN = """\
import mxnet as mx
from mxnet import autograd, gluon, nd
from mxnet.io import MXDataIter

from .model import Net


def train(data, label, epochs=1):
    net = Net()
    net.initialize()
    tracker = mx.kvstore_server.KVStoreServer()
    batches = MXDataIter(data, label, batch_size=2)
    module = mx.rtc.CudaModule(symbol=None)
    for _ in range(epochs):
        with autograd.record():
            loss = net(nd.array(data)).sum()
        loss.backward()
        tracker.update([nd.ones((1,))], [loss])
    return net, batches, module
"""

FILES = {
    "__init__.py": "from . import train\nfrom .model import Net\nfrom .refused import Gate\n",
    "model.py": MODEL,
    "refused.py": REFUSED,
    "train.py": TRAIN,
    "vocab.txt": "a\nb\n",
    "assets/config.json": '{"units": 6}\n',
    "assets/weights.bin": None,  # binary
}


@pytest.fixture
def shop(tmp_path) -> Path:
    root = tmp_path / "src" / "shop"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if text is None:
            path.write_bytes(bytes(range(256)))
        else:
            path.write_text(textwrap.dedent(text))
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_refused_modules_and_unsupported_apis_are_named_and_nothing_is_written(shop, tmp_path, transpile_cmd):
    out = tmp_path / "out"
    res = transpile_cmd(str(shop), "-o", str(out), "--format", "concise")
    assert res.exit_code == 1
    assert not out.exists()
    summary = res.stderr
    assert f"2 refused: {shop / 'refused.py'} (HY001), {shop / 'train.py'} (HY012)" in summary
    assert "unsupported APIs (HY012): mxnet.io.MXDataIter, mxnet.kvstore_server.KVStoreServer, mxnet.rtc.CudaModule;" in summary
    assert "1 conversion applied" in summary  # model.py's reshape(2, 3) (HY011)
    assert "nothing written" in summary
    for line in ("train.py:3:1: HY012 `mxnet.io.MXDataIter` (`from mxnet.io import MXDataIter`)",
                 "train.py:11:15: HY012 `mxnet.kvstore_server.KVStoreServer` (`mx.kvstore_server.KVStoreServer`)",
                 "train.py:13:14: HY012 `mxnet.rtc.CudaModule` (`mx.rtc.CudaModule`)"):
        assert line in res.stdout


def test_keep_going_leaves_an_importable_package_with_its_data(shop, tmp_path, transpile_cmd, package_loader):
    load_package, unload = package_loader
    out = tmp_path / "out"
    res = transpile_cmd(str(shop), "-o", str(out), "--keep-going")
    assert res.exit_code == 1
    assert "Transpiled 2 of 4 modules" in res.stderr
    written = _files(out / "shop")
    assert sorted(written) == ["__init__.py", "assets/config.json", "assets/weights.bin", "model.py",
                               "refused.py", "train.py", "vocab.txt"]
    for rel in ("vocab.txt", "assets/config.json", "assets/weights.bin"):  # data files: byte for byte
        assert written[rel] == (shop / rel).read_bytes()
    refused = written["refused.py"].decode()
    assert "# NOT CONVERTED: hybrid_forward left imperative" in refused
    assert "@imperative_only('HY001 at " in refused
    train = written["train.py"].decode()
    assert "# UNSUPPORTED APIs" in train  # and the import of a missing name does not break the package:
    assert "MXDataIter = _hybridize_unsupported('mxnet.io.MXDataIter')" in train

    import hybridize.runtime as mx
    from hybridize.runtime.base import HybridizeError

    name = "transpiled_shop_under_test"
    pkg = load_package(out / "shop", name)
    try:
        x = mx.nd.array(np.random.RandomState(0).rand(1, 4).astype("float32"))
        net = pkg.Net()
        net.initialize()
        imperative = net(x).asnumpy()
        net.hybridize()
        np.testing.assert_allclose(net(x).asnumpy(), imperative, rtol=1e-6)
        assert imperative.shape == (2, 3)

        gate = pkg.Gate()
        gate.initialize()
        y = gate.fc(x).asnumpy()
        np.testing.assert_allclose(gate(x).asnumpy(), y * float(y.sum()), rtol=1e-5)  # runs imperatively
        from hybridize.runtime.gluon.static_graph import ImperativeOnlyWarning

        with pytest.warns(ImperativeOnlyWarning, match=r"stays imperative: it cannot be hybridized .*HY001 at "):
            gate.hybridize()
        np.testing.assert_allclose(gate(x).asnumpy(), y * float(y.sum()), rtol=1e-5)  # still imperatively

        # the training module imports; what the runtime lacks raises where it is used, named
        with pytest.raises(HybridizeError, match=r"`mxnet.io.MXDataIter` is not provided by hybridize.runtime"):
            pkg.train.MXDataIter(np.zeros((4, 4)), np.zeros(4), batch_size=2)
        with pytest.raises(HybridizeError, match=r"`mxnet.kvstore_server.KVStoreServer` is not provided by hybridize.runtime"):
            pkg.train.train(np.zeros((2, 4), "float32"), np.zeros(2, "float32"))
    finally:
        unload(name)


def test_no_convert_refuses_what_a_conversion_would_repair(shop, tmp_path, transpile_cmd):
    for rel in ("refused.py", "train.py"):
        (shop / rel).unlink()
    (shop / "__init__.py").write_text("from .model import Net\n")
    res = transpile_cmd(str(shop), "-o", str(tmp_path / "out"), "--no-convert", "--format", "concise")
    assert res.exit_code == 1 and "model.py:11:16: HY011" in res.stdout
    res = transpile_cmd(str(shop), "-o", str(tmp_path / "out"))
    assert res.exit_code == 0, res.output
    code = (tmp_path / "out" / "shop" / "model.py").read_text()
    assert "return F.relu(self.fc(x)).reshape((2, 3))" in code


def test_diff_on_a_whole_tree_writes_nothing(shop, tmp_path, transpile_cmd):
    res = transpile_cmd(str(shop), "--diff", "--keep-going", "--format", "concise")
    assert res.exit_code == 1
    for rel in ("__init__.py", "model.py", "refused.py", "train.py"):
        assert f"--- a/{shop.relative_to('/') / rel}" in res.stdout or f"--- a/{rel}" in res.stdout \
            or f"+++ b/{str(shop / rel).lstrip('/')}" in res.stdout
    assert "+        return F.relu(self.fc(x)).reshape((2, 3))" in res.stdout
    assert "+    @imperative_only(" in res.stdout
    assert "nothing written" in res.stderr
    res = transpile_cmd(str(shop), "--diff", "-o", str(tmp_path / "out"))
    assert res.exit_code == 2 and not (tmp_path / "out").exists()


def test_the_same_package_gives_the_same_bytes(shop, tmp_path, transpile_cmd):
    a, b = tmp_path / "a", tmp_path / "b"
    assert transpile_cmd(str(shop), "-o", str(a), "--keep-going").exit_code == 1
    assert transpile_cmd(str(shop), "-o", str(b), "--keep-going").exit_code == 1
    assert _files(a) == _files(b) and len(_files(a)) == 7
