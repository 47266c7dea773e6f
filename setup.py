"""Maps the repository's top-level folders under one installed package, ``hybridize``.

The source tree keeps the design card's layout (``runtime/``, ``transpile/``, ``cli.py`` at the
top level) while the wheel installs them as ``hybridize.runtime``, ``hybridize.transpile`` and
``hybridize.cli``, so nothing claims a generic top-level import name.
"""
import os

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_PACKAGES = ("runtime", "transpile")


def _packages():
    found = ["hybridize"]
    for top in TOP_PACKAGES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(HERE, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__pycache__")))
            if "__init__.py" in filenames:
                rel = os.path.relpath(dirpath, HERE).replace(os.sep, ".")
                found.append("hybridize." + rel)
    return found


setup(
    packages=_packages(),
    package_dir={"hybridize": "."},
    py_modules=[],
    package_data={"hybridize.transpile": ["*.toml", "*.json"]},
    include_package_data=False,
    exclude_package_data={"hybridize": ["setup.py"]},
)
