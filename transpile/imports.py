"""Import mapping for ``hybridize transpile``: ``mxnet`` -> ``hybridize.runtime``, relative imports resolved.

Pure functions over dotted names and paths (no libcst here; :mod:`.rewrite` applies the decisions):

* :func:`package_of` walks up the ``__init__.py`` files from a source file to find the package it
  belongs to: in ``../shared/corpus/`` the file ``mxnet/gluon/model_zoo/vision/resnet.py`` is the
  module ``mxnet.gluon.model_zoo.vision.resnet`` of package ``mxnet.gluon.model_zoo.vision``.
* :class:`Tree` is what one input path contributes to the output: its dotted root and every module
  (file or package) inside it.
* :func:`plan_from_import` decides what ``from <relative or absolute> import names`` becomes:
  a relative import whose target is inside the transpiled tree stays relative; a target under
  ``mxnet`` becomes the same path under ``hybridize.runtime``
  (``from ...block import HybridBlock`` in ``vision/resnet.py`` -> ``from hybridize.runtime.gluon.block
  import HybridBlock``); any other target outside the tree becomes absolute (its original package).
* :func:`map_module` maps an absolute dotted name (``mxnet.gluon.nn`` -> ``hybridize.runtime.gluon.nn``).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Optional

MXNET = "mxnet"
RUNTIME = "hybridize.runtime"


def map_module(name: str) -> Optional[str]:
    """``mxnet[.x.y]`` -> ``hybridize.runtime[.x.y]``; ``None`` for anything else."""
    if name == MXNET:
        return RUNTIME
    if name.startswith(MXNET + "."):
        return RUNTIME + name[len(MXNET):]
    return None


def package_of(path: str) -> Optional[str]:
    """Dotted package containing the file ``path`` (``None`` if its directory has no ``__init__.py``)."""
    directory = os.path.dirname(os.path.abspath(path))
    return _dotted_dir(directory)


def _dotted_dir(directory: str) -> Optional[str]:
    parts: list[str] = []
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parts.append(os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return ".".join(reversed(parts)) or None


def module_name_of(path: str) -> str:
    """Dotted module name of a source file (``pkg.sub.mod``, ``pkg.sub`` for ``__init__.py``)."""
    package = package_of(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "__init__":
        return package or stem
    return f"{package}.{stem}" if package else stem


def resolve_relative(package: Optional[str], level: int, module: Optional[str]) -> Optional[str]:
    """The absolute target of ``from <level dots><module> import ...`` in ``package``.

    ``None`` when the import cannot be resolved (not in a package, or more dots than levels).
    """
    if level == 0:
        return module
    if not package:
        return None
    parts = package.split(".")
    if level - 1 >= len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if module:
        base += module.split(".")
    return ".".join(base)


@dataclass(frozen=True)
class Tree:
    """One input path as it will appear in the output: its root's dotted name and its modules."""

    root: str                       # absolute path of the input file or directory
    package: Optional[str]          # dotted name of the root (a package, or the file's module)
    modules: frozenset[str] = field(default_factory=frozenset)

    @staticmethod
    def for_path(path: str, files: Optional[list[str]] = None) -> "Tree":
        """Build the tree of ``path``; ``files`` are its source files (default: ``*.py`` under it)."""
        root = os.path.abspath(path)
        if os.path.isdir(root):
            package = _dotted_dir(root)
            if files is None:
                files = [os.path.join(d, f) for d, _, names in os.walk(root) for f in names if f.endswith(".py")]
        else:
            package = module_name_of(root)
            files = [root]
        modules = set()
        for f in files:
            if package_of(f) is None and os.path.basename(f) != "__init__.py":
                continue
            modules.add(module_name_of(f))
        return Tree(root, package, frozenset(modules))

    def contains(self, dotted: str) -> bool:
        """Is ``dotted`` a module or package written as part of this tree?"""
        return dotted in self.modules


@dataclass(frozen=True)
class ImportPlan:
    """What one ``from X import names`` becomes.

    ``keep`` leaves the statement as written; otherwise ``module`` is the absolute module to
    import from (the statement loses its leading dots).
    """

    keep: bool
    module: Optional[str] = None
    reason: str = ""


def plan_from_import(level: int, module: Optional[str], package: Optional[str], tree: Tree,
                     names: tuple[str, ...] = ()) -> ImportPlan:
    """Decide the output form of ``from <'.' * level><module> import <names>`` in ``package``."""
    if level == 0:
        mapped = map_module(module or "")
        if mapped is None:
            return ImportPlan(True, reason="not mxnet")
        return ImportPlan(False, mapped, "mxnet")
    target = resolve_relative(package, level, module)
    if target is None:
        return ImportPlan(True, reason="unresolvable relative import")
    if tree.contains(target) or any(tree.contains(f"{target}.{n}") for n in names):
        return ImportPlan(True, reason=f"{target} is inside the transpiled tree")
    mapped = map_module(target)
    if mapped is not None:
        return ImportPlan(False, mapped, f"{target} is mxnet")
    return ImportPlan(False, target, f"{target} is outside the transpiled tree")


def plan_import(dotted: str, asname: Optional[str]) -> Optional[tuple[str, Optional[str], Optional[str]]]:
    """``import dotted [as asname]`` -> (new dotted, new asname, extra module to load) or ``None``.

    ``import mxnet.gluon`` binds ``mxnet``; it becomes ``import hybridize.runtime as mxnet`` and
    also loads ``hybridize.runtime.gluon`` so that ``mxnet.gluon`` works.
    """
    mapped = map_module(dotted)
    if mapped is None:
        return None
    if asname is not None:
        return mapped, asname, None
    if dotted == MXNET:
        return RUNTIME, MXNET, None
    return RUNTIME, MXNET, mapped
