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
  ``from <package in the tree> import n`` where ``n`` is a submodule *outside* the tree (neither a
  module of the tree nor a name the package's ``__init__.py`` binds) leaves the tree too:
  ``from . import engine`` in a partial copy of ``mxnet/__init__.py`` becomes
  ``from hybridize.runtime import engine`` (the statement is split if some names stay relative).
  Only for packages under ``mxnet``: a partial copy of another package is left as written.
* :func:`map_module` maps an absolute dotted name (``mxnet.gluon.nn`` -> ``hybridize.runtime.gluon.nn``).
"""
from __future__ import annotations

import ast
import functools
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

    def binds(self, package: str, name: str) -> Optional[bool]:
        """Does the ``__init__.py`` of ``package`` (a package of this tree) bind ``name`` at top level,
        other than by importing its own submodule ``name`` (``from . import name``)?

        ``None`` when that cannot be told: ``package`` is not a package of this tree, its
        ``__init__.py`` does not parse, or it has a star import.
        """
        if not self.package or not os.path.isdir(self.root) or not self.contains(package):
            return None
        if package == self.package:
            rel: list[str] = []
        elif package.startswith(self.package + "."):
            rel = package[len(self.package) + 1:].split(".")
        else:
            return None
        init = os.path.join(self.root, *rel, "__init__.py")
        if not os.path.isfile(init):
            return None
        names = _init_bindings(init)
        if names is None:
            return None
        return name in names


def _init_bindings(path: str) -> Optional[frozenset[str]]:
    """Top-level names bound by the module at ``path`` (not counting ``from . import n`` binding the
    submodule ``n``); ``None`` if it has a star import or cannot be read and parsed."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _bindings(path, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=256)
def _bindings(path: str, mtime_ns: int, size: int) -> Optional[frozenset[str]]:
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return None
    bound: set[str] = set()

    def targets(node: ast.AST) -> None:
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                bound.add(n.id)

    def scan(body: list) -> bool:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(stmt.name)
            elif isinstance(stmt, ast.Import):
                bound.update(a.asname or a.name.split(".")[0] for a in stmt.names)
            elif isinstance(stmt, ast.ImportFrom):
                for a in stmt.names:
                    if a.name == "*":
                        return False
                    if stmt.level == 1 and stmt.module is None and a.asname in (None, a.name):
                        continue  # the submodule itself
                    bound.add(a.asname or a.name)
            elif isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]):
                    targets(t)
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                targets(stmt.target)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        targets(item.optional_vars)
            if isinstance(stmt, ast.Try):
                for handler in stmt.handlers:
                    if handler.name:
                        bound.add(handler.name)
                    if not scan(handler.body):
                        return False
            for attr in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, attr, None)
                if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                      ast.ClassDef)):
                    if not scan(inner):
                        return False
        return True

    if not scan(tree.body):
        return None
    return frozenset(bound)


@dataclass(frozen=True)
class ImportPlan:
    """What one ``from X import names`` becomes.

    ``keep`` leaves the statement as written; otherwise ``module`` is the absolute module to
    import from (the statement loses its leading dots).
    """

    keep: bool
    module: Optional[str] = None
    reason: str = ""
    moved: tuple[str, ...] = ()   # when not empty: only these names go to ``module``, the rest stay as written


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
    if tree.contains(target):
        mapped = map_module(target)
        outside = tuple(n for n in names if n != "*" and not tree.contains(f"{target}.{n}")
                        and tree.binds(target, n) is False) if mapped is not None else ()
        if not outside:  # (a partial copy of any other package: left as written, nothing to map to)
            return ImportPlan(True, reason=f"{target} is inside the transpiled tree")
        why = f"{', '.join(outside)}: submodule(s) of {target} outside the transpiled tree"
        if len(outside) == len(names):
            return ImportPlan(False, mapped, why)
        return ImportPlan(False, mapped, why, moved=outside)
    if any(tree.contains(f"{target}.{n}") for n in names):
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
