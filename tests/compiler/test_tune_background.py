"""Lazy and background convolution tuning (``kernels/conv/background.py``): a compile never blocks past
its timing budget; what it could not time is timed later, while no program runs, for the next compile;
a program already compiled never changes. No timing assertions: time_conv is a deterministic fake."""
import json
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compiler_helpers import FAKE_SECONDS as FAKE, TUNE_ATTRS as ATTRS, TUNE_CANDIDATES as CANDIDATES, check  # noqa: E402

from hybridize.runtime import symbol as sym
from hybridize.runtime.graph.kernels import parallel
from hybridize.runtime.graph.kernels.conv import background, tune


@pytest.fixture
def timed(monkeypatch):
    calls = []
    monkeypatch.setenv("HYBRIDIZE_TUNE_BACKGROUND", "1")
    monkeypatch.setattr(background, "IDLE_SECONDS", 0.0)
    monkeypatch.setattr(tune, "_TUNED", {})
    monkeypatch.setattr(tune, "time_conv", lambda shape, a, dtype: calls.append((shape[0], a.algo)) or FAKE[a.algo])
    yield calls
    assert background.wait(60)


def test_past_the_budget_a_shape_is_timed_in_the_background(timed):
    assert tune.tune_conv_algo((1, 8, 8, 4), dict(ATTRS), np.float32, CANDIDATES, [0.0]) is None   # rule now
    assert background.wait(60)
    assert sorted(timed) == [(1, "gemm"), (1, "wino"), (1, "wino4")]
    files = list(Path(os.environ["HYBRIDIZE_CACHE_DIR"]).rglob("*.json"))
    assert [json.loads(f.read_text())["algo"] for f in files] == ["wino"]          # persisted
    tune._TUNED.clear()                                                           # a new process
    assert tune.tune_conv_algo((1, 8, 8, 4), dict(ATTRS), np.float32, CANDIDATES, [0.0]) == "wino"
    assert len(timed) == 3


def test_a_new_batch_size_takes_a_nearby_verdict_until_it_is_timed(timed):
    assert tune.tune_conv_algo((4, 8, 8, 4), dict(ATTRS), np.float32, CANDIDATES) == "wino"
    assert tune.sibling_batches(8) == [7, 9, 4, 16]
    assert tune.tune_conv_algo((8, 8, 8, 4), dict(ATTRS), np.float32, CANDIDATES, [0.0]) == "wino"
    assert tune.tune_conv_algo((64, 8, 8, 4), dict(ATTRS), np.float32, CANDIDATES, [0.0]) is None   # too far
    assert background.wait(60)
    assert {n for n, _ in timed} == {4, 8, 64}


def test_the_tuner_is_off_with_the_environment(timed, monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_TUNE_BACKGROUND", "0")
    assert tune.tune_conv_algo((1, 8, 8, 4), dict(ATTRS), np.float32, CANDIDATES, [0.0]) is None
    assert background.pending() == 0 and timed == []


def test_a_sample_disturbed_by_a_program_call_is_thrown_away(monkeypatch):
    monkeypatch.setattr(background, "IDLE_SECONDS", 0.0)
    monkeypatch.setattr(background, "MAX_RETRIES", 3)

    def own_kernel() -> float:          # the tuner's own kernels enter BLAS's context: not a program call
        with parallel.blas_single_threaded():
            pass
        return 2.0

    def program_call_meanwhile() -> float:
        def call():
            with parallel.blas_single_threaded():   # what a compiled program's call enters
                pass
        t = threading.Thread(target=call)
        t.start()
        t.join()
        return 1.0
    assert background._sample(own_kernel) == 2.0
    assert background._sample(program_call_meanwhile) is None


def test_background_tuning_never_changes_a_compiled_program(timed, monkeypatch):
    monkeypatch.setattr(tune, "TUNE_BUDGET_SECONDS", 0.0)
    x = sym.var("data")
    y = sym.relu(sym.Convolution(x, kernel=(3, 3), num_filter=8, pad=(1, 1), name="c"))
    prog = check(y, {"data": (1, 8, 6, 6)})
    assert prog.stats["layout"].get("conv_wino") is None                   # the fixed rule's choice
    data = np.random.default_rng(0).standard_normal((1, 8, 6, 6)).astype(np.float32)
    before = prog(data)[0]
    assert background.wait(60) and timed                                    # tuned meanwhile: wino wins
    assert np.array_equal(prog(data)[0], before)                            # this program: unchanged
    again = check(y, {"data": (1, 8, 6, 6)})                                # the next compile uses it
    assert again.stats["layout"]["conv_wino"] == 1
    np.testing.assert_allclose(again(data)[0], before, rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_starts_with_an_empty_tuner(timed):
    """A job running in the parent at fork time must not make the child wait for a thread it lacks."""
    gate = threading.Event()
    started = threading.Event()
    assert background.schedule("blocked", lambda sample: started.set() or gate.wait(30))
    assert started.wait(30)
    pid = os.fork()
    if pid == 0:                                  # the child: no tuner thread, nothing pending
        ok = background.pending() == 0 and background.wait(5)
        os._exit(0 if ok else 1)
    gate.set()
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


def test_a_failing_job_is_logged_not_swallowed(timed, caplog):
    def broken(sample):
        raise TypeError("a bug in a tuning job")
    with caplog.at_level("WARNING", logger="hybridize.tune"):
        assert background.schedule("broken", broken)
        assert background.wait(30)
    assert [str(r.exc_info[1]) for r in caplog.records if r.exc_info] == ["a bug in a tuning job"]


def test_blas_runs_single_threaded_inside_a_program_and_restores_after():
    from hybridize.runtime.graph.kernels.parallel import _blas_functions, blas_single_threaded
    setter, getter = _blas_functions()
    if setter is None:
        import pytest
        pytest.skip("threadpoolctl finds no BLAS it can control in this numpy")
    setter(2)
    with blas_single_threaded():
        assert getter() == 1
    assert getter() == 2


def test_any_python_thread_can_make_blas_single_threaded():
    # a compiled program is entered from whatever thread calls it, not only the first one
    import threading
    from hybridize.runtime.graph.kernels.parallel import _blas_functions, blas_single_threaded
    setter, getter = _blas_functions()
    if setter is None:
        import pytest
        pytest.skip("no OpenBLAS found in this numpy")
    setter(2)
    seen = []

    def enter():
        with blas_single_threaded():
            seen.append(getter())
    for _ in range(2):
        t = threading.Thread(target=enter)
        t.start()
        t.join()
    assert seen == [1, 1] and getter() == 2
