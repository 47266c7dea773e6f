"""Fixtures for the ``hybridize transpile`` tests: run the command, load an output package."""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from support import CORPUS, FIXTURES, require_shared

VISION = CORPUS / "mxnet" / "gluon" / "model_zoo" / "vision"


def run_transpile(*args: str):
    """``hybridize transpile ARGS`` in-process; returns click's Result (exit_code, stdout, stderr)."""
    from hybridize.transpile.emit.cli import transpile

    return CliRunner().invoke(transpile, list(args), catch_exceptions=False)


def load_package(directory: Path, name: str):
    """Import the package at ``directory`` under the unique module name ``name``."""
    spec = importlib.util.spec_from_file_location(name, directory / "__init__.py",
                                                  submodule_search_locations=[str(directory)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def unload(name: str) -> None:
    for key in [k for k in sys.modules if k == name or k.startswith(name + ".")]:
        del sys.modules[key]


def recipe():
    spec = importlib.util.spec_from_file_location("params_recipe", FIXTURES / "params_recipe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.recipe


@pytest.fixture(scope="session")
def vision_out(tmp_path_factory) -> Path:
    """The zoo (``corpus/.../model_zoo/vision``) transpiled once per session: OUTDIR/vision."""
    require_shared()
    out = tmp_path_factory.mktemp("zoo")
    result = run_transpile(str(VISION), "-o", str(out))
    assert result.exit_code == 0, result.stdout + result.stderr
    return out / "vision"


@pytest.fixture(scope="session")
def vision_pkg(vision_out):
    name = "transpiled_vision_under_test"
    module = load_package(vision_out, name)
    yield module
    unload(name)


# test modules cannot import conftest under --import-mode=importlib: helpers are fixtures
@pytest.fixture(scope="session")
def transpile_cmd():
    return run_transpile


@pytest.fixture(scope="session")
def params_recipe():
    require_shared()
    return recipe()


@pytest.fixture(scope="session")
def package_loader():
    return load_package, unload
