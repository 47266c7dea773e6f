"""Faults: a writer killed (SIGKILL) at a random moment, a full disk, and two processes writing
the same path. Every final path holds its old content or the complete new content, never a
truncated file or a half tree (``hybridize.atomic``).

Kill tests: a forked child repeats one writer in a loop, alternating two contents A and B, and
reports on a pipe when a cycle's atomic write starts and when the cycle ends; the parent measures
a cycle, then kills the child at a random point (seeded, so a failure is reproducible): half the
kills anywhere in a cycle, half inside the write phase, where a broken writer would show. Then the
final path must be exactly A or exactly B (loadable and equal, for formats with timestamps). Each writer named
by the fault campaign is killed several times: ``hybridize transpile``, ``net.export``, ``save_parameters``
(``.params`` and ``.npz``), ``nd.save``, ``hybridize-check --fix`` and ``-o REPORT``,
``hybridize run -o``.
"""
from __future__ import annotations

import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest


KILLS = 6            # kill points per writer
ROUNDS = 2           # rounds of two concurrent writers


# -- content ------------------------------------------------------------------------------------
def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _visible(folder: Path) -> list[str]:
    return sorted(p for p in os.listdir(folder) if not p.startswith("."))


MODULE = '''from mxnet.gluon import nn


class Net{k}(nn.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.fc = nn.Dense({k} + 1)

    def hybrid_forward(self, F, x):
        y = self.fc(x)
        y = y + {k}
        return F.relu(y)
'''


def _package(root: Path, variant: str, modules: int = 6) -> Path:
    """A package of ``modules`` modules, every third in a subpackage: a tree of several files in two
    folders, what a tree write stages (more modules only make each killed cycle longer)."""
    pkg = root / variant / "pkg"
    (pkg / "sub").mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text(f"# variant {variant}\n")
    for k in range(modules):
        where = pkg / "sub" if k % 3 == 0 else pkg
        (where / f"m{k}_{variant}.py").write_text(MODULE.format(k=k) + f"\n# {variant}\n" * (k + 1))
    (pkg / "sub" / "__init__.py").write_text("")
    return pkg


def _fixable(n: int) -> str:
    body = "".join(f"        x += {k}\n" for k in range(n))
    return MODULE.split("    def hybrid_forward")[0].format(k=1) + (
        "    def hybrid_forward(self, F, x):\n        x = self.fc(x)\n" + body + "        return x\n")


def _net(seed: int, units: int = 256):
    from hybridize.runtime import nd
    from hybridize.runtime.gluon import nn

    net = nn.HybridSequential(prefix="faults_")
    with net.name_scope():
        net.add(nn.Dense(units, in_units=units), nn.Dense(4, in_units=units))
    net.initialize()
    net.hybridize()
    net(nd.ones((1, units)))
    rng = np.random.default_rng(seed)
    for p in net.collect_params().values():
        p.set_data(nd.array(rng.standard_normal(p.shape).astype(np.float32)))
    return net


def _run_cli(cmd, args: list[str]) -> int:
    """A click command in-process, as its console script would run it; the exit code."""
    try:
        code = cmd.main(args, standalone_mode=False)
    except SystemExit as e:
        return int(e.code or 0)
    except Exception:  # a usage error or an abort: not a success
        return 1
    return code if isinstance(code, int) else 0


# -- the kill harness ---------------------------------------------------------------------------
def _temporaries(folder: Path) -> set[str]:
    return {str(p) for p in folder.rglob(".*.hy-*")}


def _child(write, w: int) -> None:
    """The forked writer: ``write(i)`` forever; b"w" on the pipe when a cycle's first atomic write
    starts (hooked into ``hybridize.atomic``'s staging classes), b"." when the cycle is done."""
    from hybridize import atomic

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    started = [False]

    def announcing(init):
        def __init__(self, *args, **kwargs):
            if not started[0]:
                started[0] = True
                os.write(w, b"w")
            init(self, *args, **kwargs)
        return __init__

    atomic.StagedFile.__init__ = announcing(atomic.StagedFile.__init__)
    atomic.StagedTree.__init__ = announcing(atomic.StagedTree.__init__)
    i = 0
    while True:
        started[0] = False
        write(i)
        os.write(w, b".")
        i += 1


def _next(r: int, want: bytes, deadline: float) -> float:
    """Reads the pipe up to the byte ``want``; its arrival time."""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([r], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        got = os.read(r, 1)
        if not got:
            break
        if got == want:
            return time.monotonic()
    raise AssertionError("the writer stopped reporting (it died or hung)")


def kill_repeatedly(write, check, rng: random.Random, folder: Path, kills: int = KILLS) -> dict:
    """Forks a child that repeats ``write(i)`` (i = 0, 1, 2, ...), measures a cycle and its write
    phase over two cycles, then SIGKILLs it at a random point: half the kills anywhere in a cycle,
    half inside the write phase (after the cycle's first atomic write started); then ``check()``.
    ``kills`` times. Returns how many kills left a temporary behind (so landed inside a write:
    printed with ``-s``)."""
    stats = {"kills": 0, "inside_a_write": 0}
    seen = _temporaries(folder)
    for k in range(kills):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            try:
                os.close(r)
                _child(write, w)
            finally:
                os._exit(0)
        os.close(w)
        try:
            deadline = time.monotonic() + 60
            _next(r, b".", deadline)                     # one full cycle: the child is warm
            cycles = []
            for _ in range(2):
                begun = _next(r, b"w", deadline)
                cycles.append((begun, _next(r, b".", deadline)))
            phase = sum(done - begun for begun, done in cycles) / 2
            if k % 2:
                _next(r, b"w", deadline)
                time.sleep(rng.uniform(0, phase))
            else:
                time.sleep(rng.uniform(0, cycles[1][1] - cycles[0][1]))
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(r)
        stats["kills"] += 1
        left = _temporaries(folder)
        stats["inside_a_write"] += bool(left - seen)
        seen |= left
        check()
    print(f"\n{stats}")
    return stats


def _assert_one_of(path: Path, a: bytes, b: bytes) -> None:
    got = path.read_bytes()
    assert got in (a, b), f"{path}: {len(got)} bytes, neither the old ({len(a)}) nor the new ({len(b)}) content"


@pytest.fixture
def rng(request):
    seed = sum(map(ord, request.node.name))
    return random.Random(seed)


def test_kill_during_nd_save(tmp_path, rng) -> None:
    from hybridize.runtime import nd
    from hybridize.runtime.graph import params

    versions = [[nd.array(np.full((512, 1024), v, np.float32)), nd.array(np.arange(7.0) * v)] for v in (1, 2)]
    expected = [params.dumps(v) for v in versions]
    path = tmp_path / "arrays.nd"
    path.write_bytes(expected[0])
    kill_repeatedly(lambda i: nd.save(str(path), versions[i % 2]),
                    lambda: _assert_one_of(path, *expected), rng, tmp_path)
    assert _visible(tmp_path) == ["arrays.nd"]


@pytest.mark.parametrize("suffix", [".params", ".npz"])
def test_kill_during_save_parameters(tmp_path, rng, suffix) -> None:
    from hybridize.runtime.graph import params

    nets = [_net(0), _net(1)]
    refs = []
    for k, net in enumerate(nets):
        ref = tmp_path / f"ref{k}{suffix}"
        net.save_parameters(str(ref))
        refs.append(params.load(ref))
    path = tmp_path / f"net{suffix}"
    nets[0].save_parameters(str(path))

    def check() -> None:
        got = params.load(path)          # complete and loadable ...
        assert any(got.keys() == ref.keys() and all(np.array_equal(got[k], ref[k]) for k in ref)
                   for ref in refs)      # ... and exactly one of the two versions
        if suffix == ".params":
            _assert_one_of(path, (tmp_path / "ref0.params").read_bytes(), (tmp_path / "ref1.params").read_bytes())

    kill_repeatedly(lambda i: nets[i % 2].save_parameters(str(path)), check, rng, tmp_path)


def test_kill_during_export(tmp_path, rng) -> None:
    nets = [_net(0), _net(1)]
    for k, net in enumerate(nets):
        net.export(str(tmp_path / f"ref{k}"))
    prefix = tmp_path / "out" / "net"
    prefix.parent.mkdir()
    nets[0].export(str(prefix))
    sym = [(tmp_path / f"ref{k}-symbol.json").read_bytes() for k in (0, 1)]
    par = [(tmp_path / f"ref{k}-0000.params").read_bytes() for k in (0, 1)]

    def check() -> None:
        from hybridize.runtime.base import LoadError
        from hybridize.runtime.graph.pair import check_pair

        _assert_one_of(Path(f"{prefix}-symbol.json"), *sym)
        _assert_one_of(Path(f"{prefix}-0000.params"), *par)
        assert _visible(prefix.parent) == ["net-0000.pair.json", "net-0000.params", "net-symbol.json"]
        pair = (Path(f"{prefix}-symbol.json").read_bytes(), Path(f"{prefix}-0000.params").read_bytes())
        try:  # a mixed pair never passes for one
            check_pair(f"{prefix}-symbol.json", f"{prefix}-0000.params")
        except LoadError:
            return
        assert pair in list(zip(sym, par)), "a new graph with old parameters (or the reverse) passed the check"

    kill_repeatedly(lambda i: nets[i % 2].export(str(prefix)), check, rng, prefix.parent)


def test_kill_during_run_output(tmp_path, rng) -> None:
    from hybridize.runtime.graph import params
    from hybridize.runtime.run_cli import run

    symbol = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                        {"op": "elemwise_add", "name": "add0", "inputs": [[0, 0, 0], [0, 0, 0]]}],
              "arg_nodes": [0], "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}
    (tmp_path / "net-symbol.json").write_text(json.dumps(symbol))
    xs = [np.full((256, 1024), v, np.float32) for v in (1, 2)]
    for k, x in enumerate(xs):
        np.save(tmp_path / f"x{k}.npy", x)
    out = tmp_path / "y.npz"

    def write(i: int) -> None:
        _run_cli(run, [str(tmp_path / "net-symbol.json"), "--input", str(tmp_path / f"x{i % 2}.npy"),
                       "-o", str(out), "--executor", "interpret"])

    write(0)

    def check() -> None:
        y = params.load(out)["out0"]
        assert any(np.array_equal(y, 2 * x) for x in xs)

    kill_repeatedly(write, check, rng, tmp_path)


def test_kill_during_check_report_and_fix(tmp_path, rng) -> None:
    from hybridize.transpile.check.cli import check
    from hybridize import atomic

    for variant, n in (("a", 3), ("b", 40)):
        (tmp_path / variant).mkdir()
        (tmp_path / variant / "model.py").write_text(_fixable(n))
    report = tmp_path / "report.txt"
    reports = []
    for variant in ("a", "b"):
        _run_cli(check, ["--isolated", "--output-format", "json", "-o", str(report), str(tmp_path / variant)])
        reports.append(report.read_bytes())
    assert reports[0] != reports[1] and all(reports)
    report.write_bytes(reports[0])
    kill_repeatedly(lambda i: _run_cli(check, ["--isolated", "--output-format", "json", "-o", str(report),
                                               str(tmp_path / "ab"[i % 2])]),
                    lambda: _assert_one_of(report, *reports), rng, tmp_path)

    target = tmp_path / "b" / "model.py"
    unfixed = target.read_bytes()
    _run_cli(check, ["--isolated", "--fix", str(target)])
    fixed = target.read_bytes()
    assert fixed != unfixed and b"x = x + 39" in fixed

    def write(i: int) -> None:  # restore the original, fix it again: both complete writes
        atomic.write_bytes(target, unfixed)
        _run_cli(check, ["--isolated", "--fix", str(target)])

    kill_repeatedly(write, lambda: _assert_one_of(target, unfixed, fixed), rng, target.parent)
    assert _visible(target.parent) == ["model.py"]


def test_kill_during_transpile(tmp_path, rng) -> None:
    from hybridize.transpile.emit.cli import transpile

    srcs = [_package(tmp_path, v) for v in ("a", "b")]
    trees = []
    for k, src in enumerate(srcs):
        assert _run_cli(transpile, [str(src), "-o", str(tmp_path / f"ref{k}")]) == 0
        trees.append(_tree(tmp_path / f"ref{k}" / "pkg"))
    assert trees[0].keys() != trees[1].keys()
    out = tmp_path / "out"
    _run_cli(transpile, [str(srcs[0]), "-o", str(out)])

    def check() -> None:
        got = _tree(out / "pkg")
        assert got in trees, f"a half tree: {sorted(got)}"
        assert _visible(out) == ["pkg"]

    kill_repeatedly(lambda i: _run_cli(transpile, [str(srcs[i % 2]), "-o", str(out)]), check, rng, out)
    # the next run sweeps nothing it should not and replaces the tree as a whole
    assert _run_cli(transpile, [str(srcs[1]), "-o", str(out)]) == 0
    assert _tree(out / "pkg") == trees[1]


def test_kill_during_tree_swap_without_renameat2(tmp_path, rng) -> None:
    """Off Linux (no atomic exchange) the documented window: the final path may be absent, with
    the complete old tree beside it, and the next write puts it back before anything else."""
    from hybridize import atomic
    from hybridize.transpile.emit.cli import transpile

    srcs = [_package(tmp_path, v) for v in ("a", "b")]
    trees = []
    for k, src in enumerate(srcs):
        assert _run_cli(transpile, [str(src), "-o", str(tmp_path / f"ref{k}")]) == 0
        trees.append(_tree(tmp_path / f"ref{k}" / "pkg"))
    out = tmp_path / "out"
    _run_cli(transpile, [str(srcs[0]), "-o", str(out)])

    def write(i: int) -> None:
        atomic._exchange = lambda a, b: False      # in the forked child only
        _run_cli(transpile, [str(srcs[i % 2]), "-o", str(out)])

    def check() -> None:
        if (out / "pkg").exists():
            assert _tree(out / "pkg") in trees
        else:
            (old,) = out.glob(".pkg.hy-*.old")
            assert _tree(old) in trees

    kill_repeatedly(write, check, rng, out)
    atomic.StagedTree(out / "pkg").discard()       # a new write first restores a set-aside tree
    assert _tree(out / "pkg") in trees


# -- full disk ----------------------------------------------------------------------------------
@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB tmpfs (root only); skipped with the reason where it cannot be mounted."""
    mount = shutil.which("mount")
    disk = tmp_path / "disk"
    disk.mkdir()
    if mount is None or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root and mount(8): full-disk behaviour untested here")
    r = subprocess.run([mount, "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(disk)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip() or r.returncode}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


def _fill(disk: Path) -> None:
    """Leaves no free block on ``disk``."""
    fd = os.open(disk / ".filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (1 << 16, 1 << 12, 1):
            try:
                while True:
                    os.write(fd, bytes(size))
            except OSError:
                pass
    finally:
        os.close(fd)


def _cli(*args: str, cwd) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run([sys.executable, "-c", "from hybridize.cli import main; main()", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_full_disk_is_one_line_and_keeps_the_old_content(tmp_path, small_disk) -> None:
    from hybridize.runtime import nd

    disk = small_disk
    net = _net(0, units=64)
    net.export(str(disk / "net"))
    net.save_parameters(str(disk / "net.params"))
    nd.save(str(disk / "arrays.nd"), [nd.ones((4,))])
    symbol = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                        {"op": "elemwise_add", "name": "add0", "inputs": [[0, 0, 0], [0, 0, 0]]}],
              "arg_nodes": [0], "heads": [[1, 0, 0]], "attrs": {"mxnet_version": ["int", 10901]}}
    (tmp_path / "add-symbol.json").write_text(json.dumps(symbol))
    np.save(tmp_path / "x.npy", np.ones((64, 64), np.float32))
    assert _cli("run", "add-symbol.json", "--input", "x.npy", "-o", str(disk / "y.npz"), cwd=tmp_path).returncode == 0
    src = _package(tmp_path, "a", modules=4)
    for k in range(3):
        (tmp_path / "a" / f"lint{k}.py").write_text(_fixable(5))
    assert _cli("transpile", str(src), "-o", str(disk / "out"), cwd=tmp_path).returncode == 0
    assert _cli("check", "--isolated", "a", "-o", str(disk / "report.txt"), cwd=tmp_path).returncode == 1
    (disk / "fixme.py").write_text(_fixable(5))
    before = {p: p.read_bytes() for p in disk.rglob("*") if p.is_file()}
    _fill(disk)

    with pytest.raises(OSError):
        nd.save(str(disk / "arrays.nd"), [nd.ones((1000,))])
    with pytest.raises(OSError):
        _net(1, units=64).export(str(disk / "net"))
    with pytest.raises(OSError):
        _net(1, units=64).save_parameters(str(disk / "net.params"))
    np.save(tmp_path / "x2.npy", np.full((64, 64), 3, np.float32))
    runs = {
        "run -o": _cli("run", "add-symbol.json", "--input", "x2.npy", "-o", str(disk / "y.npz"), cwd=tmp_path),
        "transpile": _cli("transpile", str(_package(tmp_path, "b", modules=4)), "-o", str(disk / "out"), cwd=tmp_path),
        "check -o": _cli("check", "--isolated", "a", "-o", str(disk / "report.txt"), cwd=tmp_path),
        "check --fix": _cli("check", "--isolated", "--fix", str(disk / "fixme.py"), cwd=tmp_path),
    }
    for what, r in runs.items():
        lines = r.stderr.splitlines()
        assert r.returncode in (1, 2) and lines, (what, r.returncode, r.stderr)
        assert any("No space left on device" in line and str(disk) in line for line in lines), (what, r.stderr)
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr, (what, r.stderr)
        assert len([line for line in lines if "No space" in line]) == 1, (what, r.stderr)
    after = {p: p.read_bytes() for p in disk.rglob("*") if p.is_file() and p.name != ".filler"}
    assert after == before                          # every old file intact, nothing half-written
    assert [p for p in os.listdir(disk) if p.startswith(".") and p != ".filler"] == []  # no temporaries


# -- concurrency --------------------------------------------------------------------------------
def test_two_transpiles_into_the_same_output(tmp_path) -> None:
    from hybridize.transpile.emit.cli import transpile

    srcs = [_package(tmp_path, v, modules=30) for v in ("a", "b")]
    trees = []
    for k, src in enumerate(srcs):  # the references in this process; the racing writers below are processes
        assert _run_cli(transpile, [str(src), "-o", str(tmp_path / f"ref{k}")]) == 0
        trees.append(_tree(tmp_path / f"ref{k}" / "pkg"))
    env = dict(os.environ)
    for round_ in range(ROUNDS):
        out = tmp_path / f"out{round_}"
        procs = [subprocess.Popen([sys.executable, "-c", "from hybridize.cli import main; main()", "transpile",
                                   str(src), "-o", str(out)], env=env, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for src in srcs]
        results = [(p.wait(timeout=120), p.stderr.read()) for p in procs]
        for p in procs:
            p.stdout.close()
            p.stderr.close()
        for code, err in results:  # success, or a clean one-line error
            assert code == 0 or (code in (1, 2) and len(err.strip().splitlines()) == 1), err
        assert any(code == 0 for code, _ in results)
        assert _tree(out / "pkg") in trees
        assert os.listdir(out) == ["pkg"]           # no staging left behind by either


def test_concurrent_writers_and_a_reader_of_one_parameter_file(tmp_path) -> None:
    """Two processes saving the same file over and over while a third loads it: the reader never
    sees anything but one complete version (what any shared on-disk cache relies on)."""
    from hybridize.runtime import nd
    from hybridize.runtime.graph import params

    versions = [[nd.array(np.full((256, 512), v, np.float32))] for v in (1, 2)]
    path = tmp_path / "shared.params"
    nd.save(str(path), versions[0])
    writers = []
    for k in (0, 1):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                for _ in range(40):
                    nd.save(str(path), versions[k])
                code = 0
            finally:
                os._exit(code)
        writers.append(pid)
    reads, running, codes = 0, set(writers), []
    try:
        while running:
            (arr,) = params.load(path)
            assert arr.shape == (256, 512) and arr.min() == arr.max() and arr[0, 0] in (1, 2)
            reads += 1
            for pid in list(running):
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    running.discard(pid)
                    codes.append(status)
    finally:
        for pid in running:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    assert codes == [0, 0]
    assert reads > 0
    assert _visible(tmp_path) == ["shared.params"]
