"""Run the training scripts of ``tests/training/sweep/`` (written for MXNet 1.9.1) unchanged on the runtime: while a
script is imported and run, ``import mxnet`` and every ``mxnet.<sub>`` resolve to ``hybridize.runtime``
(``.<sub>``); afterwards ``mxnet`` is unknown again and NumPy mode is off."""
from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import sys
import types
from pathlib import Path
from typing import Iterator

SCRIPTS = Path(__file__).parent / "training" / "sweep"
NAMES = sorted(p.stem for p in SCRIPTS.glob("*.py") if not p.name.startswith("_"))
# MXNet modules whose content is in a differently named runtime module
RENAMED = {"mxnet.ndarray.ndarray": "hybridize.runtime.ndarray", "mxnet.symbol.symbol": "hybridize.runtime.symbol"}


class _Loader(importlib.abc.Loader):
    def __init__(self, module: types.ModuleType) -> None:
        self.module = module

    def create_module(self, spec):  # the runtime's module itself, not a copy
        return self.module

    def exec_module(self, module) -> None:
        pass


class _MxnetIsTheRuntime(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != "mxnet" and not fullname.startswith("mxnet."):
            return None
        real = RENAMED.get(fullname, "hybridize.runtime" + fullname[len("mxnet"):])
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError:  # a namespace attribute such as nd.random
            parent_name, _, leaf = fullname.rpartition(".")
            module = getattr(sys.modules.get(parent_name), leaf, None)
            if not isinstance(module, types.ModuleType):
                return None
        _register_submodules()
        return importlib.util.spec_from_loader(fullname, _Loader(module))


def _register_submodules() -> None:
    """The runtime's submodules of plain modules (``hybridize.runtime.ndarray.contrib``: ``ndarray`` is a
    module, not a package) under their ``mxnet`` names: the import system looks those up in
    ``sys.modules`` (``from mxnet.ndarray.contrib import adamw_update``) and cannot find them otherwise."""
    for name, module in list(sys.modules.items()):
        if name.startswith("hybridize.runtime.") and module is not None:
            sys.modules.setdefault("mxnet" + name[len("hybridize.runtime"):], module)


@contextlib.contextmanager
def mxnet_is_the_runtime() -> Iterator[None]:
    import hybridize.runtime as rt
    keep = {name: m.__spec__ for name, m in sys.modules.items() if name.startswith("hybridize.runtime")}
    finder = _MxnetIsTheRuntime()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "mxnet" or n.startswith("mxnet.")]:
            del sys.modules[name]
        for name, spec in keep.items():  # the loader's module_from_spec rebinds __spec__
            if name in sys.modules:
                sys.modules[name].__spec__ = spec
        rt.npx.reset_np()


def load(path: Path, name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"sweep_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_unchanged(name: str) -> dict:
    """Import ``sweep/<name>.py`` with ``mxnet`` being the runtime and return its ``run()``."""
    with mxnet_is_the_runtime():
        return load(SCRIPTS / f"{name}.py", name).run()


def transpile_one(name: str, outdir: Path) -> tuple[Path, str]:
    """``hybridize transpile`` of ``sweep/<name>.py`` into ``outdir`` (in-process): the transpiled
    file and the CLI's output."""
    from click.testing import CliRunner

    from hybridize.transpile.emit.cli import transpile

    res = CliRunner().invoke(transpile, [str(SCRIPTS / f"{name}.py"), "-o", str(outdir), "--format", "concise"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return outdir / f"{name}.py", res.output


def run_transpiled(path: Path, name: str) -> dict:
    """Import a transpiled script (it imports ``hybridize.runtime`` itself) and return its ``run()``."""
    from hybridize.runtime import npx
    try:
        return load(path, f"transpiled_{name}").run()
    finally:
        npx.reset_np()
