"""Maps the repository's top-level folders under one installed package, ``hybridize``.

The source tree keeps the design card's layout (``runtime/``, ``transpile/``, ``cli.py`` at the
top level) while the wheel installs them as ``hybridize.runtime``, ``hybridize.transpile`` and
``hybridize.cli``, so nothing claims a generic top-level import name.
"""
import os

from setuptools import setup
from setuptools.command.build_py import build_py

# Files at the repository root that are not part of the package although they sit in its folder.
_NOT_MODULES = {"setup.py", "conftest.py"}

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


class _BuildPy(build_py):
    """Leaves the build script itself out of the root package."""

    def find_package_modules(self, package, package_dir):
        found = super().find_package_modules(package, package_dir)
        if package != "hybridize":
            return found
        return [m for m in found if os.path.basename(m[2]) not in _NOT_MODULES]


setup(
    cmdclass={"build_py": _BuildPy},
    packages=_packages(),
    package_dir={"hybridize": "."},
    py_modules=[],
    include_package_data=False,
)
