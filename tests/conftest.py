"""Suite-wide isolation: the tests never touch the user's tuning cache (``HYBRIDIZE_CACHE_DIR``).

Without it the tests would write convolution verdicts into the real ``~/.cache/hybridize`` and read
back verdicts of earlier tests or earlier runs, so whether a test times anything would depend on
history. The whole session (module- and session-scoped fixtures included) points at one temporary
directory, removed at the end; each test then gets its own empty one. Subprocesses the tests start
inherit the variable. Under pytest-xdist every worker is its own session: its own directory.

The suite runs on every core (``-n auto --dist worksteal`` in pyproject's ``addopts``); with
``-p no:xdist`` those options would be unknown, so they are then accepted and ignored here and the
suite runs serially. The modules of the longest tests are scheduled first, so that with several
workers no long test starts last and leaves the other workers idle at the end.

Where ``PYTHONDONTWRITEBYTECODE`` is set (nothing written beside the sources), every subprocess the
tests start (the CLI, crash and packaging tests', a hundred or so) would compile the package from
source again, about a second each; they byte-compile into one ``PYTHONPYCACHEPREFIX`` of the run
instead (still nothing in the tree), shared by the workers' children and removed at the end. The
workers themselves keep the installed libraries' own bytecode (a prefix would hide it: they start
together, so each would compile numpy, hypothesis, onnx... again). Hypothesis keeps its constants
cache in the session's directory, not in ``.hypothesis/``.

Hypothesis (6.131 and later) also mines the literals of every imported non-test module (the whole
package: some 270 modules parsed, 5-7 s of CPU in each xdist worker's collection) to bias what its
strategies draw. The suite turns that off: its property tests are derandomized, and with the
mining their examples would change whenever any constant anywhere in the package changed; without
it they depend only on the tests' own strategies and seeds."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

_session_cache: list[str] = []

# modules holding the tests of a minute or more on a loaded 2-core machine (`--durations=25`)
# (worksteal hands each worker a contiguous half and steals from the tails: the tails must be short)
# (the last is a module of many short tests: the worker still in the group at the end is not left
# with a long one while the other has nothing to steal)
LONG_FIRST = ("tests/test_packaging.py", "tests/emit/test_corpus.py", "tests/check/test_precommit.py",
              "tests/onnx/test_onnx_models.py", "tests/test_faults.py", "tests/compiler/test_models.py",
              "tests/runtime/test_models.py", "tests/convert/test_differential.py",
              "tests/distributed/test_dist_kvstore.py", "tests/deploy/test_dask.py", "tests/check/test_properties.py",
              "tests/autograd/test_grad_nn_families.py", "tests/gluon/test_model_zoo_vision.py")


def pytest_addoption(parser, pluginmanager) -> None:
    if not pluginmanager.has_plugin("xdist"):
        # pytest reserves lowercase short options for plugins; xdist registers -n the same way
        parser.getgroup("xdist", "xdist not loaded")._addoption(
            "-n", "--numprocesses", dest="numprocesses", default=0,
            help="ignored: pytest-xdist is not loaded, the tests run in this process")
        parser.getgroup("xdist")._addoption("--dist", dest="dist", default="no",
                                            help="ignored: pytest-xdist is not loaded")


@pytest.hookimpl(tryfirst=True)   # before hypothesis's plugin, which mines the constants here
def pytest_collection_modifyitems(config, items) -> None:
    def rank(item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return next((i for i, long in enumerate(LONG_FIRST) if path.endswith(long[len("tests/"):])),
                    len(LONG_FIRST))

    items.sort(key=rank)  # stable: the order within a module and among the others is kept
    if "hypothesis" in sys.modules:  # imported by the test modules just collected
        from hypothesis.configuration import set_hypothesis_home_dir

        set_hypothesis_home_dir(os.environ["HYBRIDIZE_CACHE_DIR"])
        _no_local_constants()


def _no_local_constants() -> None:
    """Hypothesis without the package's mined literals (see the module's docstring). An internal of
    hypothesis: where it has moved, nothing is changed (the suite is only slower)."""
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:
        return
    if callable(getattr(providers, "_get_local_constants", None)) and hasattr(providers, "_local_constants"):
        providers._get_local_constants = lambda: providers._local_constants


CHILD_PYCACHE = "HYBRIDIZE_TEST_CHILD_PYCACHE"   # the run's bytecode folder for subprocesses


def pytest_configure(config) -> None:
    if os.environ.get("PYTHONDONTWRITEBYTECODE") and not os.environ.get("PYTHONPYCACHEPREFIX") \
            and not os.environ.get(CHILD_PYCACHE):   # (xdist's workers inherit the controller's)
        _session_cache.append(tempfile.mkdtemp(prefix="hy-test-pycache-"))
        os.environ[CHILD_PYCACHE] = _session_cache[-1]
    _session_cache.append(tempfile.mkdtemp(prefix="hy-test-cache-"))
    os.environ["HYBRIDIZE_CACHE_DIR"] = _session_cache[-1]
    # no background convolution timing in the suite's processes (tests that want it turn it on)
    os.environ.setdefault("HYBRIDIZE_TUNE_BACKGROUND", "0")


def pytest_unconfigure(config) -> None:
    for folder in _session_cache:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session", autouse=True)
def _children_bytecode_cache():
    """Processes started by the tests byte-compile into the run's folder (see the module's docstring)."""
    prefix = os.environ.get(CHILD_PYCACHE)
    if not prefix or not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        yield
        return
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPYCACHEPREFIX", prefix)
        patch.delenv("PYTHONDONTWRITEBYTECODE")
        yield


@pytest.fixture(autouse=True)
def _private_tuning_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path_factory.mktemp("hy-cache")))
