"""Smaller faults of the second campaign: hostile file and node names are escaped in every message
and never an internal error, an attribute MXNet refuses is refused by every command alike, and a
SIGTERM leaves no staging directory."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from hybridize.messages import printable

MODULE = '''from mxnet.gluon import nn


class Net(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.relu(x)
'''


def _cli(*args: str):
    from hybridize.cli import main

    try:
        runner = CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, [*map(str, args)])


def _graph(path: Path, nodes: list[dict], heads: list) -> Path:
    path.write_text(json.dumps({"nodes": nodes, "arg_nodes": [i for i, n in enumerate(nodes) if n["op"] == "null"],
                                "node_row_ptr": list(range(len(nodes) + 1)), "heads": heads,
                                "attrs": {"mxnet_version": ["int", 10901]}}))
    return path


def test_printable_escapes_controls_and_bidi_and_keeps_letters() -> None:
    assert printable("x\u202eyz\x00\n\t") == "x\\u202eyz\\x00\\n\\t"
    assert printable("caf\u00e9 \u4e2d\u6587 \u0416") == "caf\u00e9 \u4e2d\u6587 \u0416"
    assert printable("lat\udce9.py") == "lat\\udce9.py"      # an undecodable byte of a file name


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="file names with a newline and non-UTF-8 bytes")
def test_odd_file_names_in_a_tree_are_transpiled_and_printed_escaped(tmp_path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text(MODULE)
    (pkg / "new\nline.py").write_text(MODULE)
    with open(os.fsencode(pkg) + b"/lat\xe9.py", "w") as f:
        f.write(MODULE)
    r = _cli("transpile", pkg, "-o", tmp_path / "OUT")
    assert r.exit_code == 0, r.stderr
    assert "internal error" not in r.stderr
    assert r.stderr.count("\n") == 1
    out = tmp_path / "OUT" / "pkg"
    assert sorted(os.listdir(os.fsencode(out))) == [b"a.py", b"lat\xe9.py", b"new\nline.py"]
    header = (out / "new\nline.py").read_text().splitlines()[0]
    assert header.endswith("/pkg/new\\nline.py")
    assert (out / os.fsdecode(b"lat\xe9.py")).read_text().splitlines()[0].endswith("/pkg/lat\\udce9.py")


def test_node_names_with_nul_and_bidi_overrides_are_printed_escaped(tmp_path) -> None:
    sym = _graph(tmp_path / "m-symbol.json", [{"op": "null", "name": "da\u202eta\x00", "inputs": []},
                                              {"op": "relu", "name": "r\u202elu\x00", "inputs": [[0, 0, 0]]}],
                 [[1, 0, 0]])
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    ok = _cli("run", sym, "-i", tmp_path / "x.npy")
    assert ok.exit_code == 0
    assert ok.stdout == "out0 r\\u202elu\\x00_output: shape (2, 3), dtype float32\n"
    bad = _cli("run", sym, "-i", f"nope={tmp_path / 'x.npy'}")
    assert bad.exit_code == 2
    assert bad.stderr.endswith("(its inputs: da\\u202eta\\x00)\n") and bad.stderr.count("\n") == 1
    assert "\u202e" not in bad.stderr + ok.stdout and "\x00" not in bad.stderr + ok.stdout


def test_num_hidden_zero_is_refused_by_run_and_export_alike_as_mxnet_does(tmp_path) -> None:
    # MXNet 1.9.1, mx.sym.load of this file: "value 0 for Parameter num_hidden should be greater equal to 1"
    sym = _graph(tmp_path / "fc-symbol.json", [
        {"op": "null", "name": "data", "inputs": []}, {"op": "null", "name": "fc_weight", "inputs": []},
        {"op": "null", "name": "fc_bias", "inputs": []},
        {"op": "FullyConnected", "name": "fc", "attrs": {"num_hidden": "0"},
         "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]}], [[3, 0, 0]])
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    run = _cli("run", sym, "-i", tmp_path / "x.npy")
    export = _cli("export-onnx", sym, "-o", tmp_path / "fc.onnx")
    problem = "node 3 'fc': operator FullyConnected: attribute num_hidden='0': value 0 should be greater equal to 1\n"
    assert (run.exit_code, export.exit_code) == (1, 1)
    assert run.stderr == f"hybridize run: {sym}: {problem}"
    assert export.stderr == f"hybridize export-onnx: {sym}: {problem}"
    assert not (tmp_path / "fc.onnx").exists()


def test_num_hidden_zero_is_refused_when_building_too() -> None:
    from hybridize.runtime import nd, sym
    from hybridize.runtime.base import MXNetError

    with pytest.raises(MXNetError, match="num_hidden=0: value 0 should be greater equal to 1"):
        sym.FullyConnected(sym.var("data"), num_hidden=0)
    with pytest.raises(MXNetError, match="should be greater equal to 1"):
        nd.FullyConnected(nd.ones((2, 3)), nd.ones((1, 3)), nd.ones((1,)), num_hidden=0)


SIGTERM_CHILD = '''
import os, signal, sys
from hybridize import atomic
from hybridize.cli import main
write_text = atomic.StagedTree.write_text
def first_write_then_sigterm(self, rel, text, encoding="utf-8"):
    out = write_text(self, rel, text, encoding)
    os.kill(os.getpid(), signal.SIGTERM)     # as `kill PID` while the tree is being staged
    return out
atomic.StagedTree.write_text = first_write_then_sigterm
main(sys.argv[1:], prog_name="hybridize")
'''


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_while_staging_leaves_no_staging_directory(tmp_path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text(MODULE)
    out = tmp_path / "OUT"
    (out / "two").mkdir(parents=True)
    (out / "two" / "old.py").write_text("# old\n")
    done = subprocess.run([sys.executable, "-c", SIGTERM_CHILD, "transpile", tmp_path / "one", tmp_path / "two",
                           "-o", out], capture_output=True, text=True, timeout=120)
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert sorted(os.listdir(out)) == ["two"]                       # no .one.hy-*.tmp, no .two.hy-*.tmp
    assert os.listdir(out / "two") == ["old.py"]


def test_a_refused_module_with_a_newline_in_its_name_is_reported_on_one_line(tmp_path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "ref\nused.py").write_text(MODULE.replace("return F.relu(x)", "return x.asnumpy()"))
    r = _cli("transpile", pkg, "-o", tmp_path / "OUT", "--output-format", "concise")
    assert r.exit_code == 1
    assert "/pkg/ref\\nused.py:6:16: HY001 " in r.stdout
    assert r.stdout.count("\n") == 1
    assert "1 refused: " in r.stderr and "ref\\nused.py (HY001)" in r.stderr and r.stderr.count("\n") == 1
