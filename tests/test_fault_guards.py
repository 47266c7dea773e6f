"""Faults of a second campaign: a killed ``hybridize-check --fix`` leaves no worker behind and
nothing writes after the kill; ``net.export``'s pair is checked on load; readers refuse FIFOs."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

MODULE = '''from mxnet.gluon import nn


class Net{k}(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        y = F.relu(x)
{body}        return y
'''


def _fixable_tree(root: Path, files: int, lines: int) -> Path:
    tree = root / "big"
    tree.mkdir()
    body = "".join(f"        y += {i}\n" for i in range(lines))
    for k in range(files):
        (tree / f"m{k}.py").write_text(MODULE.format(k=k, body=body))
    return tree


def _children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _snapshot(tree: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in tree.iterdir()}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the workers")
def test_killed_fix_leaves_no_worker_and_nothing_writes_after_the_kill(tmp_path) -> None:
    tree = _fixable_tree(tmp_path, files=120, lines=60)
    proc = subprocess.Popen([sys.executable, "-c", "from hybridize.cli import check_main; check_main()",
                             "--isolated", "--fix", "--unsafe-fixes", "-j", "2", str(tree)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: set[int] = set()
    deadline = time.monotonic() + 60
    while len(workers) < 2 and proc.poll() is None and time.monotonic() < deadline:
        workers |= _children(proc.pid)
        time.sleep(0.01)
    assert workers, "the check never started its workers"
    time.sleep(0.3)                                  # the workers are busy fixing
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    after_kill = _snapshot(tree)
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [w for w in workers if _alive(w)], "workers outlived the killed --fix"
    time.sleep(0.5)
    assert _snapshot(tree) == after_kill              # nobody writes once the parent is gone


def test_parallel_fix_writes_every_file_from_the_parent(tmp_path) -> None:
    from hybridize.transpile.check import checker
    from hybridize.transpile.check.config import Config

    tree = _fixable_tree(tmp_path, files=checker.PARALLEL_THRESHOLD + 4, lines=3)
    result = checker.check_paths([str(tree)], Config(), jobs=2, mode="fix", unsafe=True)
    assert not result.io_errors and all(r.io_error is None and r.pending_write is None for r in result.files)
    fixed = [p for p in tree.iterdir() if "y += 0" not in p.read_text()]
    assert len(fixed) == len(list(tree.iterdir()))


# -- the exported pair --------------------------------------------------------------------------
def _exported(net_seed: int):
    from hybridize.runtime import nd
    from hybridize.runtime.gluon import nn

    net = nn.HybridSequential(prefix="pair_")
    with net.name_scope():
        # same parameter shapes, another graph: the mix-up that runs with wrong numbers
        net.add(nn.Dense(4, in_units=3, activation="relu" if net_seed % 2 else "tanh"), nn.Dense(2, in_units=4))
    net.initialize()
    for k, p in enumerate(net.collect_params().values()):
        p.set_data(nd.full(p.shape, net_seed + k * 0.5))
    net.hybridize()
    net(nd.ones((1, 3)))
    return net


def _loaders(prefix: str) -> dict:
    from hybridize.runtime.gluon import SymbolBlock
    from hybridize.runtime.graph.model import Model
    from hybridize.runtime.model import load_checkpoint
    from hybridize.runtime.onnx import load_graph_and_params

    sym, params = f"{prefix}-symbol.json", f"{prefix}-0000.params"
    return {"SymbolBlock.imports": lambda: SymbolBlock.imports(sym, ["data"], params),
            "Model.load": lambda: Model.load(sym, params),
            "load_checkpoint": lambda: load_checkpoint(prefix, 0),
            "onnx load": lambda: load_graph_and_params(sym, params)}


def test_export_writes_the_digest_first_and_the_pair_loads(tmp_path) -> None:
    prefix = str(tmp_path / "net")
    _exported(1).export(prefix)
    assert sorted(os.listdir(tmp_path)) == ["net-0000.pair.json", "net-0000.params", "net-symbol.json"]
    for load in _loaders(prefix).values():
        load()


@pytest.mark.parametrize("stale", ["params", "symbol", "digest"])
def test_a_pair_from_an_interrupted_export_is_refused_in_one_line(tmp_path, stale) -> None:
    """An export killed after any of its first two renames (or a disk full on the second file) leaves
    one file of another export: every loader refuses the pair, naming both files."""
    from hybridize.runtime.base import LoadError

    old, new = str(tmp_path / "old"), str(tmp_path / "new")
    _exported(1).export(old)
    _exported(2).export(new)
    names = {"params": "-0000.params", "symbol": "-symbol.json", "digest": "-0000.pair.json"}
    for part, suffix in names.items():  # `new` with one part left over from `old`
        if part == stale:
            Path(new + suffix).write_bytes(Path(old + suffix).read_bytes())
    for what, load in _loaders(new).items():
        with pytest.raises(LoadError) as info:
            load()
        message = str(info.value)
        assert "\n" not in message and "were not written together" in message, what
        assert "new-symbol.json" in message and "new-0000.params" in message, what


def test_a_pair_without_a_digest_loads_as_mxnet_wrote_it(tmp_path) -> None:
    prefix = str(tmp_path / "net")
    _exported(1).export(prefix)
    os.remove(f"{prefix}-0000.pair.json")
    for load in _loaders(prefix).values():
        load()


# -- readers open regular files only ------------------------------------------------------------
@pytest.fixture
def fifo(tmp_path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def _hy(*args: str, cwd):
    """``hybridize ARGS`` in-process (click's runner): exit code and stderr as the console shows them."""
    from click.testing import CliRunner

    from hybridize.cli import main

    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    result.returncode = result.exit_code
    return result


def test_a_fifo_is_refused_by_every_reader_in_one_line(tmp_path, fifo) -> None:
    """Each would block forever in open(); now each says what the path is, in one line."""
    _exported(1).export(str(tmp_path / "net"))
    np_x = tmp_path / "x.npy"
    import numpy as np
    np.save(np_x, np.ones((1, 3), np.float32))
    runs = {
        "run symbol": _hy("run", str(fifo), "--input", f"data={np_x}", cwd=tmp_path),
        "run params": _hy("run", str(tmp_path / "net-symbol.json"), "--params", str(fifo),
                          "--input", f"data={np_x}", cwd=tmp_path),
        "run input": _hy("run", str(tmp_path / "net-symbol.json"), "--input", f"data={fifo}", cwd=tmp_path),
        "graph": _hy("graph", str(fifo), "-o", str(tmp_path / "g.dot"), cwd=tmp_path),
        "check": _hy("check", "--isolated", str(fifo), cwd=tmp_path),
    }
    for what, r in runs.items():
        lines = r.stderr.strip().splitlines()
        assert r.returncode in (1, 2), (what, r.returncode, r.stderr)
        assert len(lines) == 1 and "FIFO" in lines[0] and "fifo" in lines[0], (what, r.stderr)
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr, (what, r.stderr)


def test_a_symbol_json_beyond_its_limit_is_refused_naming_the_override(tmp_path, monkeypatch) -> None:
    from hybridize.runtime.base import LoadError
    from hybridize.runtime.graph import mxnet_json

    _exported(1).export(str(tmp_path / "net"))
    size = (tmp_path / "net-symbol.json").stat().st_size
    monkeypatch.setenv(mxnet_json.MAX_SYMBOL_BYTES_ENV, str(size - 1))
    with pytest.raises(LoadError) as info:
        mxnet_json.load(tmp_path / "net-symbol.json")
    assert mxnet_json.MAX_SYMBOL_BYTES_ENV in str(info.value) and "\n" not in str(info.value)
    monkeypatch.setenv(mxnet_json.MAX_SYMBOL_BYTES_ENV, str(size))
    mxnet_json.load(tmp_path / "net-symbol.json")


def test_a_fifo_cache_entry_is_ignored_not_waited_on(tmp_path, monkeypatch) -> None:
    from hybridize.readers import NotRegularFileError, open_regular

    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    os.mkfifo(tmp_path / "entry.json")
    with pytest.raises(NotRegularFileError, match="is a FIFO, not a regular file"):
        open_regular(tmp_path / "entry.json")
    with pytest.raises(IsADirectoryError):
        open_regular(tmp_path)


# -- special files and links in a transpile tree ------------------------------------------------
def _tree_with(tmp_path: Path) -> Path:
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "m.py").write_text(MODULE.format(k=0, body=""))
    (pkg / "notes.txt").write_text("data\n")
    return pkg


def _transpile(*args: str):
    from click.testing import CliRunner

    from hybridize.transpile.emit.cli import transpile

    return CliRunner().invoke(transpile, list(args), catch_exceptions=False)


def test_a_link_to_a_device_leaving_the_tree_is_named_and_not_followed(tmp_path) -> None:
    """`ln -s /dev/zero pkg/zero.bin` once copied forever; now the link is named, not followed."""
    pkg = _tree_with(tmp_path)
    os.symlink("/dev/zero", pkg / "zero.bin")
    os.symlink(tmp_path, pkg / "up")                       # a linked directory leaving the tree
    r = _transpile(str(pkg), "-o", str(tmp_path / "out"))
    assert r.exit_code == 0, r.stderr
    assert "zero.bin: a symbolic link leaving the tree (to /dev/zero): not followed" in r.stderr
    assert "up: a symbolic link leaving the tree" in r.stderr
    assert sorted(os.listdir(tmp_path / "out" / "pkg")) == ["__init__.py", "m.py", "notes.txt"]


def test_follow_links_still_refuses_a_device(tmp_path) -> None:
    pkg = _tree_with(tmp_path)
    outside = tmp_path / "outside.txt"
    outside.write_text("shared\n")
    os.symlink(outside, pkg / "shared.txt")
    r = _transpile(str(pkg), "-o", str(tmp_path / "out"), "--follow-links")
    assert r.exit_code == 0 and (tmp_path / "out" / "pkg" / "shared.txt").read_text() == "shared\n"
    os.symlink("/dev/zero", pkg / "zero.bin")
    r = _transpile(str(pkg), "-o", str(tmp_path / "out2"), "--follow-links")
    assert r.exit_code != 0 and "zero.bin: is a character device, not a regular file" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not (tmp_path / "out2" / "pkg").exists()


def test_a_fifo_in_the_tree_is_refused_in_one_line(tmp_path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this system")
    pkg = _tree_with(tmp_path)
    os.mkfifo(pkg / "pipe.py")
    r = _transpile(str(pkg), "-o", str(tmp_path / "out"))
    assert r.exit_code != 0 and "pipe.py: is a FIFO, not a regular file" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_copied_data_file_is_capped(tmp_path, monkeypatch) -> None:
    pkg = _tree_with(tmp_path)
    (pkg / "big.bin").write_bytes(bytes(4096))
    monkeypatch.setenv("HYBRIDIZE_MAX_COPY_BYTES", "1000")
    r = _transpile(str(pkg), "-o", str(tmp_path / "out"))
    assert r.exit_code != 0 and "HYBRIDIZE_MAX_COPY_BYTES" in r.stderr and "big.bin" in r.stderr
    assert not (tmp_path / "out" / "pkg").exists()


# -- the tuning cache ---------------------------------------------------------------------------
def _store_one(folder: Path) -> str:
    from hybridize.runtime.graph import tune_cache

    key = {"layer": "conv", "shape": [1, 3, 8, 8]}
    tune_cache.store(key, ("a", "b"), "a", {"a": 1.0, "b": 2.0}, threads=1)
    return tune_cache._entry_path(str(folder), tune_cache.fingerprint(1), tune_cache._jsonable(key))


def test_a_link_planted_in_the_cache_is_replaced_never_written_through(tmp_path, monkeypatch) -> None:
    from hybridize.runtime.graph import tune_cache

    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(folder))
    entry = Path(_store_one(folder))
    entry.unlink()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    entry.symlink_to(victim)
    assert tune_cache.load({"layer": "conv", "shape": [1, 3, 8, 8]}, ("a", "b"), 1) is None
    _store_one(folder)
    assert victim.read_text() == "precious\n" and not entry.is_symlink() and entry.is_file()


def test_a_cache_folder_writable_by_others_is_not_used(tmp_path, monkeypatch) -> None:
    from hybridize.runtime.graph import tune_cache

    folder = tmp_path / "shared-cache"
    folder.mkdir()
    os.chmod(folder, 0o777)
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(folder))
    entry = Path(_store_one(folder))
    assert not entry.exists()
    os.chmod(folder, 0o700)
    _store_one(folder)
    assert entry.is_file()
    assert tune_cache.load({"layer": "conv", "shape": [1, 3, 8, 8]}, ("a", "b"), 1) == "a"
