"""pytest plugin: ``import mxnet`` (and every ``mxnet.*``) is ``hybridize.runtime`` (``.*``).

Loaded by ``tools/mxnet_unittests/run.py`` with ``-p mxnet_alias``. It also
- gives each test a wall-clock limit (``MXUT_TIMEOUT`` seconds, SIGALRM), so one slow numpy test
  cannot stall the run; a test over the limit fails;
- runs only the tests whose names are listed in ``$MXUT_SELECT`` (the in-scope ones, decided by
  run.py before anything is imported), and writes one JSON line per test outcome to ``$MXUT_REPORT``;
- calls nose's class fixtures ``setupClass``/``teardownClass`` of ``unittest.TestCase`` classes (MXNet
  1.9.1's tests were written for nose, which calls them; pytest only knows ``setUpClass``);
- stands in for data.mxnet.io for the files run.py has local copies of (``$MXUT_LOCAL_COPIES``: a JSON
  map URL -> local file): a ``download`` of such a URL to a place where the file is not (a random
  temporary folder) first copies the local copy there, then goes through the runtime's ``download``,
  which uses a file in place. Any other download is the runtime's refusal. Nothing is fetched.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import json
import os
import signal
import sys
import types

import pytest

TARGET = "hybridize.runtime"
# MXNet modules whose content lives in a differently named runtime module
RENAMED = {
    "mxnet.ndarray.ndarray": "hybridize.runtime.ndarray",
    "mxnet.symbol.symbol": "hybridize.runtime.symbol",
    "mxnet.executor": "hybridize.runtime.executor",
}


# Out-of-scope MXNet modules (sparse storage; the symbolic NumPy front end until the runtime has it) the
# test files import at module level: stand-ins so that the file imports; touching any attribute raises,
# so a test using them fails. mxnet.numpy / mxnet.numpy_extension are the runtime's own.
OUT_OF_SCOPE_MODULES = ("mxnet.ndarray.sparse", "mxnet.symbol.numpy", "mxnet.symbol.sparse")


class _OutOfScope(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise NotImplementedError(f"{self.__name__}.{attr}: out of scope for hybridize.runtime")


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, module: types.ModuleType):
        self.module = module

    def create_module(self, spec):  # the aliased module itself, not a copy
        return self.module

    def exec_module(self, module):
        pass


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``mxnet.a.b`` to ``hybridize.runtime.a.b``: a real module, else an attribute of the
    parent that is a module-like namespace (``nd.contrib``, ``nd.random``), else not found."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mxnet" and not fullname.startswith("mxnet."):
            return None
        if fullname in OUT_OF_SCOPE_MODULES:
            return importlib.util.spec_from_loader(fullname, _AliasLoader(_OutOfScope(fullname)))
        real = RENAMED.get(fullname, TARGET + fullname[len("mxnet"):])
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as e:
            if e.name != real and not real.startswith(str(e.name) + "."):
                raise
            parent_name, _, leaf = fullname.rpartition(".")
            parent = sys.modules.get(parent_name) if parent_name else None
            module = getattr(parent, leaf, None) if parent is not None else None
            if module is None or isinstance(module, (type, types.FunctionType)):
                return None
        spec = importlib.util.spec_from_loader(fullname, _AliasLoader(module))
        return spec


def _install() -> None:
    if not any(isinstance(f, _AliasFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
    # module_from_spec would overwrite __spec__ of the real module: keep the runtime's own spec
    import hybridize.runtime as rt
    keep = rt.__spec__
    import mxnet  # noqa: F401
    rt.__spec__ = keep
    # submodules of what is a plain module here (mxnet.ndarray.ndarray) cannot go through the finder
    # (the import system wants a package parent): register them directly
    for alias in OUT_OF_SCOPE_MODULES:
        if "." in alias[len("mxnet."):]:
            stand_in = sys.modules.setdefault(alias, _OutOfScope(alias))
            parent, _, leaf = alias.rpartition(".")
            parent_mod = importlib.import_module(parent)
            if not hasattr(parent_mod, leaf):  # ``import mxnet.ndarray.sparse as s`` reads the attribute
                setattr(parent_mod, leaf, stand_in)
    for alias, real in RENAMED.items():
        try:
            sys.modules.setdefault(alias, importlib.import_module(real))
        except ImportError:
            pass


_install()
_SELECT = None
if os.environ.get("MXUT_SELECT"):
    with open(os.environ["MXUT_SELECT"]) as f:
        _SELECT = set(json.load(f))
_TIMEOUT = int(os.environ.get("MXUT_TIMEOUT", "60"))


def pytest_collection_modifyitems(session, config, items):
    if _SELECT is None:
        return
    keep = [it for it in items if it.originalname in _SELECT or it.name in _SELECT]
    drop = [it for it in items if it not in keep]
    items[:] = keep
    config.hook.pytest_deselected(items=drop)


class _TestTimeout(Exception):
    pass


def _alarm(signum, frame):
    raise _TestTimeout(f"test exceeded {_TIMEOUT} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(_TIMEOUT)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def pytest_runtest_logstart(nodeid, location):
    """Writes a start record before each test, so that a test ending its process (a crash, an OOM
    kill) is named by the runner, which resumes the file after it."""
    path = os.environ.get("MXUT_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"nodeid": nodeid, "outcome": "started", "when": "start", "message": ""}) + "\n")


def pytest_runtest_logreport(report):
    path = os.environ.get("MXUT_REPORT")
    if not path:
        return
    if report.when == "call" or (report.when == "setup" and not report.passed):
        msg = ""
        if report.failed:
            crash = getattr(report.longrepr, "reprcrash", None)
            msg = (crash.message if crash is not None else str(report.longrepr)).splitlines()
            msg = msg[0][:300] if msg else ""
        with open(path, "a") as f:
            f.write(json.dumps({"nodeid": report.nodeid, "outcome": report.outcome,
                                "when": report.when, "message": msg}) + "\n")


# -- nose's class fixtures ------------------------------------------------------------------------
_NOSE_CLASSES: list = []


def pytest_runtest_setup(item):
    cls = getattr(item, "cls", None)
    if cls is None or cls in _NOSE_CLASSES or "setUpClass" in vars(cls):
        return
    if callable(getattr(cls, "setupClass", None)):
        _NOSE_CLASSES.append(cls)
        cls.setupClass()


def pytest_sessionfinish(session):
    for cls in reversed(_NOSE_CLASSES):
        teardown = getattr(cls, "teardownClass", None)
        if callable(teardown):
            try:
                teardown()
            except Exception:  # a fixture's cleanup failing does not change the outcomes
                pass


# -- local copies of data.mxnet.io's files ------------------------------------------------------------
def _serve_local_copies() -> None:
    path = os.environ.get("MXUT_LOCAL_COPIES")
    if not path:
        return
    import shutil

    with open(path) as f:
        copies = json.load(f)
    from hybridize.runtime import test_utils
    from hybridize.runtime.gluon import utils as gluon_utils

    def place(url, target):
        if url in copies and target and not os.path.exists(target):
            os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
            shutil.copyfile(copies[url], target)

    test_download = test_utils.download

    def download(url, fname=None, dirname=None, overwrite=False, retries=5):
        target = fname if fname is not None else url.split("/")[-1]
        if dirname is not None:
            target = os.path.join(dirname, target)
        place(url, target)
        return test_download(url, fname, dirname, overwrite, retries)

    gluon_download = gluon_utils.download

    def gluon(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
        target = url.split("/")[-1] if path is None else os.path.expanduser(path)
        if path is not None and os.path.isdir(target):
            target = os.path.join(target, url.split("/")[-1])
        place(url, target)
        return gluon_download(url, path, overwrite, sha1_hash, retries, verify_ssl)

    test_utils.download = download
    gluon_utils.download = gluon


_serve_local_copies()
