"""Faults: ``hybridize transpile A B -o OUT`` commits its targets as one set.

A forked writer commits new versions of a tree and a file over old ones (``atomic.commit_all``, what
``hybridize transpile`` uses) and is SIGKILLed just before its k-th file-system change of the
commit (every rename, exchange, removal and the journal's own write), for every k until a run is
not interrupted. After the next write into that folder both are old or both new, never one of each,
whether the system swaps by ``renameat2`` or by two renames. Then the same through the command:
a transpile killed between its two targets is completed by the next run into OUT.
"""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

MODULE = '''from mxnet.gluon import nn


class Net(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.fc = nn.Dense({units})

    def hybrid_forward(self, F, x):
        return F.relu(self.fc(x))
'''


@pytest.fixture(autouse=True)
def no_fsync(monkeypatch):
    """What is tested is the order of renames, not durability across a power cut: ``fsync`` (most
    of these tests' time on a busy disk) is skipped, in the forked writers too."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


def _sources(root: Path, version: int) -> list[Path]:
    pkg = root / f"v{version}" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(f"# version {version}\n")
    (pkg / "net.py").write_text(MODULE.format(units=version + 1))
    mod = root / f"v{version}" / "mod.py"
    mod.write_text(MODULE.format(units=version + 10))
    return [pkg, mod]


def _snapshot(out: Path) -> dict[str, bytes]:
    files = [out / "mod.py"] + sorted((out / "pkg").rglob("*.py")) if (out / "pkg").exists() else [out / "mod.py"]
    return {str(p.relative_to(out)): p.read_bytes() for p in files if p.exists()}


def _run(args: list[str]) -> int:
    from hybridize.transpile.emit.cli import transpile

    try:
        code = transpile.main(args, standalone_mode=False)
    except SystemExit as e:
        return int(e.code or 0)
    return code if isinstance(code, int) else 0


def _killed_at(step: int, write, exchange: bool = True) -> bool:
    """Runs ``write()`` in a forked child that SIGKILLs itself just before its ``step``-th
    file-system change (rename, replace, unlink, exchange, removal of a tree) inside
    :func:`hybridize.atomic.commit_all`; True if it was killed, False if it ran to its end."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            from hybridize import atomic

            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            seen = [0]
            committing = [False]

            def counted(fn):
                def call(*a, **k):
                    if committing[0]:
                        seen[0] += 1
                        if seen[0] == step:
                            os.kill(os.getpid(), signal.SIGKILL)
                    return fn(*a, **k)
                return call

            commit_all = atomic.commit_all

            def watched(items):
                committing[0] = True
                commit_all(items)
                committing[0] = False

            atomic.commit_all = watched
            os.rename, os.replace, os.unlink = counted(os.rename), counted(os.replace), counted(os.unlink)
            atomic._remove = counted(atomic._remove)
            atomic._exchange = counted(atomic._exchange if exchange else (lambda a, b: False))
            os._exit(write())
        finally:
            os._exit(99)
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status):
        assert os.WEXITSTATUS(status) == 0, f"the writer failed with {os.WEXITSTATUS(status)}"
        return False
    assert os.WTERMSIG(status) == signal.SIGKILL
    return True


def _stage_and_commit(folder: Path, version: str) -> int:
    from hybridize import atomic

    tree = atomic.StagedTree(folder / "pkg")
    tree.write_text("__init__.py", f"# {version}\n")
    tree.write_text("sub/net.py", f"units = {version!r}\n")
    single = atomic.StagedFile(folder / "mod.py")
    single.write(f"# {version}\n".encode())
    atomic.commit_all([tree, single])
    return 0


def _contents(folder: Path) -> dict[str, bytes]:
    files = [folder / "mod.py", *sorted((folder / "pkg").rglob("*.py"))]
    return {str(p.relative_to(folder)): p.read_bytes() for p in files if p.exists()}


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_a_kill_at_every_step_of_a_set_commit_leaves_all_old_or_all_new(tmp_path, exchange) -> None:
    from hybridize import atomic

    expected = {}
    for version in ("old", "new"):
        ref = tmp_path / f"ref-{version}"
        ref.mkdir()
        _stage_and_commit(ref, version)
        expected[version] = _contents(ref)
    outcomes = []
    step = 1
    while True:
        folder = tmp_path / f"out{step}"
        folder.mkdir()
        _stage_and_commit(folder, "old")
        killed = _killed_at(step, lambda: _stage_and_commit(folder, "new"), exchange)
        atomic.write_text(folder / "other.txt", "the next write into the folder\n")
        got = _contents(folder)
        assert got in (expected["old"], expected["new"]), f"killed at step {step}: a mixture {got}"
        assert not list(folder.glob(".*.journal")), "a journal outlived the next write"
        outcomes.append("old" if got == expected["old"] else "new")
        if not killed:
            break
        step += 1
        assert step < 40, "the commit never ran to its end"
    # the journal's write is the commit point: killed before it, old; after it, new
    assert outcomes == sorted(outcomes, key=("old", "new").index)
    assert outcomes[0] == "old" and outcomes[-1] == "new" and "new" in outcomes[:-1]


def test_transpile_killed_between_two_targets_is_completed_by_the_next_run(tmp_path) -> None:
    """Killed after OUT/pkg's swap and before OUT/mod.py's: the next run into OUT, even of an
    unrelated input, finishes the set."""
    old, new = _sources(tmp_path, 1), _sources(tmp_path, 2)
    other = tmp_path / "other.py"
    other.write_text(MODULE.format(units=3))
    ref = tmp_path / "ref"
    assert _run([*map(str, new), "-o", str(ref)]) == 0
    out = tmp_path / "out"
    assert _run([*map(str, old), "-o", str(out)]) == 0
    before = _snapshot(out)
    # step 1 writes the journal, 2 swaps OUT/pkg, 3 would swap OUT/mod.py
    assert _killed_at(3, lambda: _run([*map(str, new), "-o", str(out)]))
    half = _snapshot(out)
    assert half["pkg/__init__.py"] != before["pkg/__init__.py"] and half["mod.py"] == before["mod.py"]
    assert _run([str(other), "-o", str(out)]) == 0
    assert _snapshot(out) == _snapshot(ref)
    assert sorted(p.name for p in out.iterdir()) == ["mod.py", "other.py", "pkg"]


def test_a_journal_naming_anything_but_staged_outputs_is_never_acted_on(tmp_path) -> None:
    from hybridize import atomic

    (tmp_path / "keep.txt").write_text("mine")
    (tmp_path / "victim").write_text("theirs")
    st = os.lstat(tmp_path / "keep.txt")
    journal = tmp_path / ".commit.hy-999999999-0000.journal"   # a dead writer's journal, planted
    journal.write_text(json.dumps({"version": 1, "targets": [
        {"final": "victim", "staged": "keep.txt", "backup": "x.old", "dev": st.st_dev, "ino": st.st_ino}]}))
    atomic.recover(tmp_path)
    assert (tmp_path / "victim").read_text() == "theirs" and (tmp_path / "keep.txt").read_text() == "mine"


def test_a_live_writers_journal_is_left_to_it(tmp_path) -> None:
    from hybridize import atomic

    staged = tmp_path / f".pkg.hy-{os.getpid()}-0000.tmp"
    staged.mkdir()
    st = os.lstat(staged)
    journal = tmp_path / f".commit.hy-{os.getpid()}-0000.journal"
    journal.write_text(json.dumps({"version": 1, "targets": [
        {"final": "pkg", "staged": staged.name, "backup": ".pkg.hy-1-0.old", "dev": st.st_dev, "ino": st.st_ino}]}))
    atomic.recover(tmp_path)
    assert staged.exists() and journal.exists() and not (tmp_path / "pkg").exists()


def test_a_sigterm_inside_the_commit_finishes_the_set_before_exiting(tmp_path, monkeypatch) -> None:
    """SIGTERM is ``SystemExit(143)`` in the commands: raised past the commit point (here by the
    first swap), the set is completed on the way out, then the exit goes on."""
    from hybridize import atomic

    _stage_and_commit(tmp_path, "old")
    exchange = atomic._exchange
    calls = []

    def interrupted(a, b):
        calls.append(b)
        if len(calls) == 1:
            raise SystemExit(143)
        return exchange(a, b)

    monkeypatch.setattr(atomic, "_exchange", interrupted)
    with pytest.raises(SystemExit):
        _stage_and_commit(tmp_path, "new")
    assert _contents(tmp_path) == {"mod.py": b"# new\n", "pkg/__init__.py": b"# new\n",
                                   "pkg/sub/net.py": b"units = 'new'\n"}
    assert not list(tmp_path.glob(".*.hy-*"))
