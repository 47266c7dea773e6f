"""The persistent tuning cache (``runtime/graph/tune_cache.py``): a verdict measured in one process
is reused by the next without timing; a file that is corrupt, truncated, foreign or names an algorithm
outside the candidates is ignored; an unwritable or disabled cache only means tuning as before; two
processes writing at once leave valid entries. Timing calls are counted, never timed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hybridize.runtime.graph import tune_cache
from hybridize.runtime.graph.kernels.conv import tune as conv_tune

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compiler_helpers import FAKE_SECONDS as FAKE, TUNE_ATTRS as ATTRS, TUNE_CANDIDATES as CANDIDATES  # noqa: E402


@pytest.fixture
def timed(monkeypatch):
    """Fresh process state (empty in-process memo); ``time_conv`` replaced by a counting fake."""
    calls: list[str] = []
    monkeypatch.setattr(conv_tune, "_TUNED", {})
    monkeypatch.setattr(conv_tune, "time_conv", lambda shape, a, dtype: calls.append(a.algo) or FAKE[a.algo])
    return calls


def tune(shape=(1, 8, 8, 4)):
    return conv_tune.tune_conv_algo(shape, dict(ATTRS), np.float32, CANDIDATES)


def new_process(monkeypatch):
    monkeypatch.setattr(conv_tune, "_TUNED", {})


def entries(folder) -> list[Path]:
    return sorted(Path(folder).rglob("*.json"))


def test_a_warm_cache_skips_timing(timed, monkeypatch):
    assert tune() == "wino" and len(timed) == 3
    [entry] = entries(os.environ["HYBRIDIZE_CACHE_DIR"])
    assert json.loads(entry.read_text())["algo"] == "wino"
    new_process(monkeypatch)
    assert tune() == "wino" and len(timed) == 3                 # read back, nothing timed


def test_the_key_is_per_layer_shape(timed, monkeypatch):
    tune((1, 8, 8, 4))
    tune((2, 8, 8, 4))                                          # a new batch size is a new layer shape
    assert len(timed) == 6
    new_process(monkeypatch)
    tune((2, 8, 8, 4))
    tune((1, 8, 8, 4))
    assert len(timed) == 6


@pytest.mark.parametrize("content", [b"", b"{\"schema\": \"hybridize-conv", b"\x00\xff garbage", b"[1, 2]",
                                     b"{\"schema\": \"hybridize-conv-tune/1\"}"])
def test_a_corrupt_or_truncated_file_is_ignored(timed, monkeypatch, content):
    tune()
    [entry] = entries(os.environ["HYBRIDIZE_CACHE_DIR"])
    entry.write_bytes(content)
    new_process(monkeypatch)
    assert tune() == "wino" and len(timed) == 6                 # timed again, no error
    assert json.loads(entry.read_text())["algo"] == "wino"       # and repaired


def test_a_foreign_or_forged_file_is_not_trusted(timed, monkeypatch):
    tune()
    [entry] = entries(os.environ["HYBRIDIZE_CACHE_DIR"])
    record = json.loads(entry.read_text())
    foreign = {**record, "fingerprint": {**record["fingerprint"], "cpu": "Some Other CPU"}, "algo": "gemm"}
    entry.write_text(json.dumps(foreign))
    new_process(monkeypatch)
    assert tune() == "wino" and len(timed) == 6
    entry.write_text(json.dumps({**record, "algo": "os.system"}))   # not one of the candidates
    new_process(monkeypatch)
    assert tune() == "wino" and len(timed) == 9


def test_another_machine_fingerprint_misses(timed, monkeypatch):
    tune()
    monkeypatch.setattr(tune_cache, "_fingerprint", {**tune_cache.fingerprint(1), "numpy": "0.0.0"})
    new_process(monkeypatch)
    tune()
    assert len(timed) == 6
    assert len(entries(os.environ["HYBRIDIZE_CACHE_DIR"])) == 2


def test_an_unwritable_directory_is_silently_skipped(timed, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(blocker / "cache"))
    assert tune() == "wino"
    new_process(monkeypatch)
    assert tune() == "wino" and len(timed) == 6                 # works, just not remembered


def test_a_read_only_directory_is_silently_skipped(timed, monkeypatch, tmp_path):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root writes into read-only directories")
    tmp_path.chmod(0o500)
    try:
        monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path))
        assert tune() == "wino" and entries(tmp_path) == []
    finally:
        tmp_path.chmod(0o700)


@pytest.mark.parametrize("value", ["off", "OFF", "0", "none"])
def test_the_cache_can_be_disabled(timed, monkeypatch, value, tmp_path):
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", value)
    monkeypatch.chdir(tmp_path)
    assert tune_cache.cache_dir() is None
    tune()
    new_process(monkeypatch)
    tune()
    assert len(timed) == 6 and list(tmp_path.iterdir()) == []


def test_the_default_directory_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("HYBRIDIZE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert tune_cache.cache_dir() == str(tmp_path / "hybridize")


WRITER = """
import sys
import numpy as np
from hybridize.runtime.graph.kernels.conv import tune as conv_tune
conv_tune.time_conv = lambda shape, a, dtype: {"gemm": 3.0, "wino": 1.0, "wino4": 2.0}[a.algo]
attrs = dict(kernel=(3, 3), stride=(1, 1), pad=(1, 1), dilate=(1, 1), num_filter=4, groups=1, act=(),
             has_bias=True, has_res=False)
for round in range(40):
    conv_tune._TUNED.clear()
    for n in range(1, 6):
        assert conv_tune.tune_conv_algo((n, 8, 8, 4), attrs, np.float32, ("gemm", "wino", "wino4")) == "wino"
"""


def test_two_processes_writing_at_once_leave_a_valid_cache(timed, monkeypatch):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER], env=os.environ.copy()) for _ in range(2)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    folder = os.environ["HYBRIDIZE_CACHE_DIR"]
    files = entries(folder)
    assert len(files) == 5                                       # one per layer shape, no temporaries
    assert not [p for p in Path(folder).rglob("*") if p.is_file() and p.suffix != ".json"]
    assert all(json.loads(f.read_text())["algo"] == "wino" for f in files)
    for n in range(1, 6):
        assert tune((n, 8, 8, 4)) == "wino"
    assert timed == []                                           # all read back
