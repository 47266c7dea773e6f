"""A module that only *names* an MXNet API the runtime lacks while it is imported still imports
after ``hybridize transpile --keep-going`` (HY012); the API raises, named, where it is really used.

Real packages do this at module level: Sockeye's ``data_io.py`` derives its batch iterator from
``mx.io.DataIter`` and annotates ``-> mx.io.DataBatch`` (the runtime has those now; the test uses names it
still lacks: MXNet's C++ iterators and ``mx.rtc``); half the package imports ``data_io``, so
one base class made the whole transpiled package unimportable. What the transpiled module does:

* ``mx.io.MXDataIter`` (an attribute chain through an imported MXNet module) becomes a placeholder,
  as a name imported from MXNet already did (``from mxnet.io import MXDataIter``);
* a class derived from a placeholder is defined; creating an instance raises naming the base;
* annotations are uses (they run with the ``def``), unless ``from __future__ import annotations``
  postpones them;
* ``import mxnet.io`` keeps binding ``mxnet``; ``import mxnet.rtc as metric`` binds a placeholder.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from hybridize.runtime.base import HybridizeError

DATA = """\
import mxnet as mx
import mxnet.io
import mxnet.rtc as metric
from mxnet.io import ImageRecordUInt8Iter
from mxnet.gluon import nn


class Batches(mx.io.MXDataIter):
    def __init__(self, batch_size):
        super().__init__(batch_size)

    def next(self) -> mx.io.ImageRecordUInt8Iter:
        return ImageRecordUInt8Iter([mx.nd.ones((1,))])


class Prefetching(ImageRecordUInt8Iter):
    pass


def store(kind: mxnet.io.ImageRecordInt8Iter = None):
    return metric.create(kind or "acc")


class Net(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.fc = nn.Dense(2)

    def hybrid_forward(self, F, x):
        return F.relu(self.fc(x))
"""

POSTPONED = """\
from __future__ import annotations

import mxnet as mx


def first(batch: mx.io.ImageRecordUInt8Iter) -> mx.io.ImageRecordUInt8Iter:
    return batch
"""


@pytest.fixture
def pkg(tmp_path) -> Path:
    root = tmp_path / "src" / "loaders"
    root.mkdir(parents=True)
    (root / "__init__.py").write_text("from .data import Batches, Net, store\n")
    (root / "data.py").write_text(textwrap.dedent(DATA))
    (root / "postponed.py").write_text(textwrap.dedent(POSTPONED))
    return root


def test_names_used_at_import_are_reported(pkg, tmp_path, transpile_cmd):
    res = transpile_cmd(str(pkg), "-o", str(tmp_path / "out"), "--keep-going", "--format", "concise")
    assert res.exit_code == 1
    for line in ("data.py:8:15: HY012 `mxnet.io.MXDataIter` (`mx.io.MXDataIter`)",
                 "data.py:12:23: HY012 `mxnet.io.ImageRecordUInt8Iter` (`mx.io.ImageRecordUInt8Iter`)",  # the annotation
                 "data.py:20:17: HY012 `mxnet.io.ImageRecordInt8Iter` is not provided"):
        assert line in res.stdout
    assert "postponed.py" not in res.stdout  # never evaluated: nothing is used


def test_the_package_imports_and_the_missing_names_raise_where_used(pkg, tmp_path, transpile_cmd,
                                                                      package_loader):
    load_package, unload = package_loader
    out = tmp_path / "out"
    transpile_cmd(str(pkg), "-o", str(out), "--keep-going")
    data = (out / "loaders" / "data.py").read_text()
    assert "class Batches(_hybridize_unsupported('mxnet.io.MXDataIter')):" in data
    assert "metric = _hybridize_unsupported('mxnet.rtc')" in data

    import hybridize.runtime as mx

    name = "transpiled_loaders_under_test"
    loaded = load_package(out / "loaders", name)
    try:
        net = loaded.Net()  # the model of the same module is converted and runs
        net.initialize()
        x = mx.nd.array(np.ones((1, 3), "float32"))
        assert net(x).shape == (1, 2)
        with pytest.raises(HybridizeError, match=r"Batches derives from `mxnet.io.MXDataIter`, which is not provided"):
            loaded.Batches(2)
        with pytest.raises(HybridizeError, match=r"Prefetching derives from `mxnet.io.ImageRecordUInt8Iter`"):
            loaded.data.Prefetching()
        with pytest.raises(HybridizeError, match=r"`mxnet.rtc.create` is not provided by hybridize.runtime"):
            loaded.store()
    finally:
        unload(name)
