"""``hybridize.atomic``: the one helper every writer goes through. A write replaces the final path
as a whole (file or tree), files get the permissions the umask gives (not mkstemp's 0600), a
replaced file keeps its mode, a failed write leaves the old content and no temporary behind, and
leftovers of killed writers are swept by the next write.

Every product writer is checked for the permissions here; the kill, full-disk and concurrency
guarantees are in ``test_faults.py``."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest

from hybridize import atomic


@contextmanager
def umask(mask: int):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def hidden(folder) -> list[str]:
    return sorted(p for p in os.listdir(folder) if p.startswith("."))


@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077])
def test_new_file_gets_the_permissions_the_umask_gives(tmp_path, mask) -> None:
    with umask(mask):
        atomic.write_bytes(tmp_path / "f.bin", b"data")
    assert (tmp_path / "f.bin").read_bytes() == b"data"
    assert mode(tmp_path / "f.bin") == 0o666 & ~mask
    assert hidden(tmp_path) == []


def test_replaced_file_keeps_its_mode_and_a_link_is_written_through(tmp_path) -> None:
    target = tmp_path / "script.py"
    target.write_text("old")
    os.chmod(target, 0o750)
    atomic.write_text(target, "new")
    assert target.read_text() == "new" and mode(target) == 0o750
    link = tmp_path / "link.py"
    link.symlink_to(target)
    atomic.write_text(link, "through")
    assert link.is_symlink() and target.read_text() == "through"


def test_a_failed_write_leaves_the_old_content_and_no_temporary(tmp_path) -> None:
    target = tmp_path / "out.npz"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with atomic.open_for_write(target) as f:
            f.write(b"half of the new")
            raise RuntimeError("writer failed")
    assert target.read_bytes() == b"old"
    assert hidden(tmp_path) == []


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_a_tree_is_replaced_as_a_whole(tmp_path, monkeypatch, exchange) -> None:
    if not exchange:
        monkeypatch.setattr(atomic, "_exchange", lambda a, b: False)
    final = tmp_path / "out"
    with umask(0o022):
        with atomic.replace_tree(final) as tree:
            tree.write_text("a.py", "A1")
            tree.write_text("pkg/b.py", "B1")
        assert _tree(final) == {"a.py": b"A1", "pkg/b.py": b"B1"}
        assert mode(final) == 0o755 and mode(final / "pkg") == 0o755 and mode(final / "a.py") == 0o644
        with atomic.replace_tree(final) as tree:
            tree.write_text("c.py", "C2")
        assert _tree(final) == {"c.py": b"C2"}  # the old tree is gone, not merged
        with pytest.raises(ValueError):
            with atomic.replace_tree(final) as tree:
                tree.write_text("d.py", "D3")
                raise ValueError("a module failed")
    assert _tree(final) == {"c.py": b"C2"}
    assert hidden(tmp_path) == []


def test_a_tree_replaces_a_file_and_rejects_paths_outside_it(tmp_path) -> None:
    final = tmp_path / "out"
    final.write_text("a file")
    with atomic.replace_tree(final) as tree:
        tree.write_text("x.py", "X")
        with pytest.raises(ValueError):
            tree.write_text("../escape.py", "no")
    assert _tree(final) == {"x.py": b"X"} and not (tmp_path / "escape.py").exists()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_leftovers_of_a_killed_writer_are_swept_and_an_old_tree_set_aside_is_restored(tmp_path) -> None:
    pid = _dead_pid()
    stale = tmp_path / f".out.npz.hy-{pid}-00000000.tmp"
    stale.write_bytes(b"half")
    live = tmp_path / f".out.npz.hy-{os.getpid()}-11111111.tmp"   # a live writer's: never touched
    live.write_bytes(b"in progress")
    long_ago = time.time() - 3600
    os.utime(stale, (long_ago, long_ago))
    os.utime(live, (long_ago, long_ago))
    atomic.write_bytes(tmp_path / "out.npz", b"new")
    assert not stale.exists() and live.exists()
    live.unlink()

    # the fallback's window: killed after moving the old tree aside, before renaming the new one in
    old = tmp_path / f".tree.hy-{pid}-22222222.old"
    (old / "pkg").mkdir(parents=True)
    (old / "pkg" / "m.py").write_text("old")
    os.utime(old, (long_ago, long_ago))
    with atomic.replace_tree(tmp_path / "tree") as tree:
        assert _tree(tmp_path / "tree") == {"pkg/m.py": b"old"}  # restored before anything else
        tree.write_text("pkg/m.py", "new")
    assert _tree(tmp_path / "tree") == {"pkg/m.py": b"new"}
    assert hidden(tmp_path) == []


# -- every writer of the product: the umask's permissions -------------------------------------------
def _cli(*args: str, cwd, mask: int) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", "import sys; from hybridize.cli import main; main()", *args],
                          cwd=cwd, env=env, capture_output=True, text=True,
                          preexec_fn=lambda: os.umask(mask), timeout=120)


@pytest.mark.parametrize("mask", [0o022, 0o002])
def test_every_writer_gives_the_umask_permissions(tmp_path, mask) -> None:
    from hybridize.runtime import nd
    from hybridize.runtime.gluon import nn

    with umask(mask):
        net = nn.HybridSequential()
        net.add(nn.Dense(3, in_units=4))
        net.initialize()
        net.hybridize()
        net(nd.ones((1, 4)))
        net.export(str(tmp_path / "net"))
        net.save_parameters(str(tmp_path / "net.params"))
        net.save_parameters(str(tmp_path / "net.npz"))
        nd.save(str(tmp_path / "arrays.nd"), [nd.ones((2,))])
    np.save(tmp_path / "x.npy", np.ones((1, 4), np.float32))
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text("import mxnet as mx\nx = 1 \n")
    assert _cli("run", "net-symbol.json", "--input", "x.npy", "-o", "y.npz", cwd=tmp_path, mask=mask).returncode == 0
    _cli("check", "src", "-o", "report.txt", cwd=tmp_path, mask=mask)
    assert _cli("transpile", "src", "-o", "out", cwd=tmp_path, mask=mask).returncode == 0
    files = ["net-symbol.json", "net-0000.params", "net.params", "net.npz", "arrays.nd", "y.npz",
             "report.txt", "out/src/m.py"]
    assert {f: oct(mode(tmp_path / f)) for f in files} == {f: oct(0o666 & ~mask) for f in files}
    assert {d: oct(mode(tmp_path / d)) for d in ("out", "out/src")} == {d: oct(0o777 & ~mask) for d in ("out", "out/src")}
