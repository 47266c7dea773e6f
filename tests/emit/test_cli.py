"""``hybridize transpile`` on the command line: trees, refusals, --keep-going, --show/--diff, bad input."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from support import CORPUS, REPO, require_shared

GOOD = """\
from mxnet import nd
from mxnet.gluon import nn


class Net(nn.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        self.dense = nn.Dense(3)

    def hybrid_forward(self, F, x):
        return F.relu(self.dense(x))
"""

BAD = """\
from mxnet.gluon import nn


class Bad(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        y = x.asnumpy()
        return x
"""


def _package(root: Path, files: dict) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return root


def _tree(root: Path) -> dict:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def pkg(tmp_path):
    return _package(tmp_path / "src" / "mypkg", {
        "__init__.py": "from .net import Net\n",
        "net.py": GOOD,
        "sub/__init__.py": "",
        "sub/helpers.py": "from ..net import Net\nfrom mxnet.gluon import nn\n\n\ndef make():\n    return Net()\n",
    })


def test_tree_written_with_packages_kept(pkg, tmp_path, transpile_cmd, package_loader):
    out = tmp_path / "out"
    res = transpile_cmd(str(pkg), "-o", str(out))
    assert res.exit_code == 0, res.output
    assert sorted(_tree(out / "mypkg")) == ["__init__.py", "net.py", "sub/__init__.py", "sub/helpers.py"]
    helpers = (out / "mypkg" / "sub" / "helpers.py").read_text()
    assert "from ..net import Net\nfrom hybridize.runtime.gluon import nn\n" in helpers
    assert "Transpiled 4 of 4 modules" in res.stderr
    assert not [p for p in out.iterdir() if p.name.startswith(".hybridize")]
    load, unload = package_loader
    mod = load(out / "mypkg", "transpiled_mypkg_cli")
    try:
        import hybridize.runtime as mx
        assert mod.Net is importlib.import_module("transpiled_mypkg_cli.net").Net
        net = importlib.import_module("transpiled_mypkg_cli.sub.helpers").make()
        net.initialize()
        assert net(mx.nd.ones((2, 4))).shape == (2, 3)
    finally:
        unload("transpiled_mypkg_cli")


def test_rerun_replaces_the_previous_output(pkg, tmp_path, transpile_cmd):
    out = tmp_path / "out"
    assert transpile_cmd(str(pkg), "-o", str(out)).exit_code == 0
    (out / "mypkg" / "stale.py").write_text("x = 1\n")
    (pkg / "sub" / "helpers.py").unlink()
    assert transpile_cmd(str(pkg), "-o", str(out)).exit_code == 0
    assert sorted(_tree(out / "mypkg")) == ["__init__.py", "net.py", "sub/__init__.py"]


def test_single_file_input(pkg, tmp_path, transpile_cmd):
    out = tmp_path / "out"
    res = transpile_cmd(str(pkg / "net.py"), "-o", str(out))
    assert res.exit_code == 0
    assert (out / "net.py").read_text().startswith("# Transpiled by hybridize 0.1.0 (hybridize transpile) from ")


def test_refused_module_prints_findings_and_writes_nothing(pkg, tmp_path, transpile_cmd):
    (pkg / "bad.py").write_text(BAD)
    out = tmp_path / "out"
    res = transpile_cmd(str(pkg), "-o", str(out), "--format", "concise")
    assert res.exit_code == 1
    assert f"{os.path.join(str(pkg), 'bad.py')}:6:13: HY001 " in res.stdout
    assert "nothing written" in res.stderr
    assert not out.exists()


def test_keep_going_writes_the_whole_package(pkg, tmp_path, transpile_cmd):
    (pkg / "bad.py").write_text(BAD)
    out = tmp_path / "out"
    res = transpile_cmd(str(pkg), "-o", str(out), "--keep-going")
    assert res.exit_code == 1
    assert "HY001" in res.stdout
    assert sorted(_tree(out / "mypkg")) == ["__init__.py", "bad.py", "net.py", "sub/__init__.py", "sub/helpers.py"]
    assert "Transpiled 4 of 5 modules" in res.stderr
    assert f"1 refused (written anyway, see their headers: --keep-going): {pkg / 'bad.py'} (HY001)" in res.stderr
    bad = (out / "mypkg" / "bad.py").read_text()
    assert "@imperative_only('HY001 at " in bad and "@static_graph" not in bad


def test_show_and_diff(pkg, transpile_cmd):
    res = transpile_cmd("--show", str(pkg / "net.py"))
    assert res.exit_code == 0
    assert "    @static_graph\n    def hybrid_forward(self, F, x):\n" in res.stdout
    res = transpile_cmd("--show", str(pkg / "net.py"), "--diff")
    assert res.exit_code == 0
    assert "\n-from mxnet import nd\n" in res.stdout and "\n+from hybridize.runtime import nd\n" in res.stdout
    assert "+    @static_graph\n" in res.stdout
    (pkg / "bad.py").write_text(BAD)
    res = transpile_cmd("--show", str(pkg / "bad.py"))
    assert res.exit_code == 1 and "HY001" in res.stdout


def test_show_resnet_like_the_brief(transpile_cmd):
    require_shared()
    res = transpile_cmd("--show", str(CORPUS / "mxnet/gluon/model_zoo/vision/resnet.py"))
    assert res.exit_code == 0
    assert "from hybridize.runtime.gluon.block import HybridBlock\n" in res.stdout


# -- bad input: one line, exit 2, nothing half-written ----------------------------------------
def _one_line_error(res, *needles):
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = [l for l in res.stderr.splitlines() if l.strip()]
    errors = [l for l in lines if "error:" in l]
    assert len(errors) == 1, res.stderr
    for n in needles:
        assert n in errors[0], errors[0]
    assert "Traceback" not in res.output


def test_missing_path(tmp_path, transpile_cmd):
    res = transpile_cmd(str(tmp_path / "nope"), "-o", str(tmp_path / "out"))
    _one_line_error(res, "nope: no such file or directory")
    assert not (tmp_path / "out").exists()


def test_output_is_a_file(pkg, tmp_path, transpile_cmd):
    target = tmp_path / "out.txt"
    target.write_text("keep me")
    res = transpile_cmd(str(pkg), "-o", str(target))
    _one_line_error(res, "exists and is not a directory")
    assert target.read_text() == "keep me"


def test_unwritable_output(pkg, tmp_path, transpile_cmd):
    if os.geteuid() == 0:  # root writes anywhere permission bits say no: use a filesystem that refuses
        out = "/proc/hybridize-transpile-out"
        if not os.path.isdir("/proc"):
            pytest.skip("no /proc")
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        out = str(locked / "out")
    res = transpile_cmd(str(pkg), "-o", out)
    _one_line_error(res)
    assert not os.path.exists(out)


def test_output_inside_the_input_tree_is_refused(pkg, tmp_path, transpile_cmd):
    res = transpile_cmd(str(pkg), "-o", str(pkg / "build"))
    _one_line_error(res, "inside the input tree")
    res = transpile_cmd(str(pkg), "-o", str(pkg.parent))  # OUTDIR/mypkg would be the input itself
    _one_line_error(res, "would overwrite the input")
    assert not (pkg / "build").exists()


def test_syntax_error_exit_2_nothing_written(pkg, tmp_path, transpile_cmd):
    out = tmp_path / "out"
    assert transpile_cmd(str(pkg), "-o", str(out)).exit_code == 0
    before = _tree(out)
    (pkg / "broken.py").write_text("def f(:\n    pass\n")
    res = transpile_cmd(str(pkg), "-o", str(out))
    _one_line_error(res, "broken.py:1:7: syntax error")
    assert _tree(out) == before  # the previous output is untouched


def test_binary_file_is_bad_input(pkg, tmp_path, transpile_cmd):
    (pkg / "blob.py").write_bytes(b"\x00\x01\x02hybrid_forward")
    res = transpile_cmd(str(pkg), "-o", str(tmp_path / "out"))
    _one_line_error(res, "blob.py", "binary")
    assert not (tmp_path / "out").exists()


def test_usage_errors(pkg, transpile_cmd):
    res = transpile_cmd(str(pkg))
    assert res.exit_code == 2 and "-o OUTDIR" in res.output
    res = transpile_cmd("--show", str(pkg / "missing.py"))
    _one_line_error(res, "missing.py: no such file or directory")


def test_determinism_two_runs_identical_trees(tmp_path, transpile_cmd):
    require_shared()
    inputs = [str(CORPUS / "mxnet/gluon/model_zoo/vision"), str(REPO / "samples" / "mxnet_style")]
    a, b = tmp_path / "a", tmp_path / "b"
    assert transpile_cmd(*inputs, "-o", str(a)).exit_code == 0
    assert transpile_cmd(*inputs, "-o", str(b)).exit_code == 0
    ta, tb = _tree(a), _tree(b)
    assert len(ta) == 11 and ta == tb


def test_python_dash_m_entry_point(pkg, tmp_path):
    out = tmp_path / "out"
    res = subprocess.run([sys.executable, "-m", "hybridize.cli", "transpile", str(pkg), "-o", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert (out / "mypkg" / "net.py").is_file()


ZOO_USER = """\
from mxnet.gluon import nn
from mxnet.gluon.model_zoo import vision


class Classifier(nn.HybridBlock):
    def __init__(self, classes, **kwargs):
        super(Classifier, self).__init__(**kwargs)
        self.features = vision.get_model("mobilenet0.25").features
        self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))
"""


def test_user_code_importing_the_model_zoo_transpiles_and_runs(tmp_path, transpile_cmd, package_loader):
    """``from mxnet.gluon.model_zoo import vision`` becomes the runtime's own zoo (it used to be an ImportError)."""
    src = _package(tmp_path / "src" / "zoouser", {"__init__.py": "", "net.py": ZOO_USER})
    out = tmp_path / "out"
    res = transpile_cmd(str(src), "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "from hybridize.runtime.gluon.model_zoo import vision\n" in (out / "zoouser" / "net.py").read_text()
    load, unload = package_loader
    load(out / "zoouser", "transpiled_zoouser")
    try:
        import hybridize.runtime as mx
        net = importlib.import_module("transpiled_zoouser.net").Classifier(4)
        net.initialize()
        net.hybridize()
        assert net(mx.nd.ones((1, 3, 32, 32))).shape == (1, 4)
    finally:
        unload("transpiled_zoouser")
