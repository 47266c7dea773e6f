"""The API surface check (HY012): every ``mxnet`` name a module uses must exist in ``hybridize.runtime``.

The transpiled module imports ``hybridize.runtime`` where the source imported ``mxnet``
(:mod:`.imports`). A name MXNet has and the runtime does not (``mx.io.ImageRecordIter``,
``mx.rtc``, ...) would only fail when the line runs, so it
is reported instead, with its dotted name. The answer comes from the runtime itself: the mapped
name is imported and looked up attribute by attribute (:func:`missing_part`, cached), never from
a hand-kept list.

Which names a module uses, from CPython ``ast``:

* every import that maps into the runtime (``from mxnet.io import NDArrayIter``, ``import mxnet.io``,
  relative imports of an MXNet copy that leave the transpiled tree, as :func:`.imports.plan_from_import`
  decides them);
* every attribute chain rooted at a name bound by such an import (``mx.io.NDArrayIter(...)`` is
  ``mxnet.io.NDArrayIter``), except inside a function where that name is rebound locally.
"""
from __future__ import annotations

import ast
import functools
import importlib
import re
from dataclasses import dataclass
from typing import Iterator, Optional

from ..diagnostics import Finding, Location, Severity
from .imports import MXNET, RUNTIME, Tree, map_module, plan_from_import

CODE = "HY012"


@dataclass(frozen=True)
class Use:
    """One use of an MXNet name: its dotted MXNet name, as written, and where."""

    name: str
    written: str
    node: ast.AST


@functools.lru_cache(maxsize=None)
def missing_part(runtime_name: str) -> Optional[str]:
    """The shortest prefix of ``runtime_name`` (``hybridize.runtime...``) the runtime does not
    provide, or ``None`` if the whole name resolves. Submodules are imported on the way (as
    ``import mxnet.io`` would); an import that fails for any reason counts as missing."""
    parts = runtime_name.split(".")
    root = RUNTIME.split(".")
    if parts[:len(root)] != root:
        return None
    try:
        obj = importlib.import_module(RUNTIME)
    except Exception:  # pragma: no cover - the runtime itself is importable
        return RUNTIME
    done = list(root)
    for part in parts[len(root):]:
        done.append(part)
        try:
            obj = getattr(obj, part)
            continue
        except AttributeError:
            pass
        except Exception:
            return ".".join(done)
        if not hasattr(obj, "__path__"):  # not a package: no submodule to import
            return ".".join(done)
        try:
            obj = importlib.import_module(".".join(done))
        except Exception:
            return ".".join(done)
    return None


def _mxnet_name(runtime_name: str) -> str:
    return MXNET + runtime_name[len(RUNTIME):]


def _chain(node: ast.AST) -> Optional[tuple[str, list[str]]]:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return node.id, list(reversed(parts))


def _local_bindings(fn: ast.AST) -> set[str]:
    """Names a function binds itself (parameters, assignments, loop targets, local imports)."""
    bound: set[str] = set()
    args = fn.args  # type: ignore[attr-defined]
    for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if a is not None:
            bound.add(a.arg)
    stack = list(fn.body) if isinstance(fn.body, list) else [fn.body]  # type: ignore[attr-defined]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return bound


class _Collector(ast.NodeVisitor):
    def __init__(self, package: Optional[str], tree: Tree) -> None:
        self.package = package
        self.tree = tree
        self.bound: dict[str, str] = {}     # name -> mxnet dotted name (module level and local imports)
        self.shadowed: list[set[str]] = []
        self.uses: list[Use] = []
        self.postponed = False  # `from __future__ import annotations`: annotations are never evaluated

    # imports bind names; an import of a runtime name is itself a use
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if map_module(alias.name) is None:
                continue
            self.uses.append(Use(alias.name, alias.name, node))
            if alias.asname:
                self.bound[alias.asname] = alias.name
            else:
                self.bound[alias.name.split(".")[0]] = MXNET

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module == "__future__" and any(a.name == "annotations" for a in node.names):
            self.postponed = True
        names = tuple(a.name for a in node.names)
        plan = plan_from_import(node.level, node.module, self.package, self.tree, names)
        if plan.keep or plan.module is None or not plan.module.startswith(RUNTIME):
            return
        base = _mxnet_name(plan.module)
        for alias in node.names:
            if plan.moved and alias.name not in plan.moved:
                continue
            if alias.name == "*":
                self.uses.append(Use(base, base, node))
                continue
            dotted = f"{base}.{alias.name}"
            self.uses.append(Use(dotted, self._written(node, alias.name), node))
            self.bound[alias.asname or alias.name] = dotted

    @staticmethod
    def _written(node: ast.ImportFrom, name: str) -> str:
        return f"from {'.' * node.level}{node.module or ''} import {name}"

    def _function(self, node: ast.AST) -> None:
        for d in getattr(node, "decorator_list", []):
            self.visit(d)
        args = node.args  # type: ignore[attr-defined]
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self.visit(default)
        if not self.postponed:  # annotations run when the def runs: `-> mx.io.DataBatch` is a use
            params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            for a in [*(p.annotation for p in params if p is not None), getattr(node, "returns", None)]:
                if a is not None:
                    self.visit(a)
        self.shadowed.append(_local_bindings(node) - self._imported_in(node))
        try:
            body = node.body  # type: ignore[attr-defined]
            for stmt in body if isinstance(body, list) else [body]:
                self.visit(stmt)
        finally:
            self.shadowed.pop()

    @staticmethod
    def _imported_in(fn: ast.AST) -> set[str]:
        names: set[str] = set()
        for node in ast.walk(fn):
            if isinstance(node, ast.Import):
                names.update(a.asname or a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                names.update(a.asname or a.name for a in node.names)
        return names

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_Attribute(self, node: ast.Attribute) -> None:
        found = _chain(node)
        if found is None or not self._is_mxnet(found[0]):
            self.generic_visit(node)
            return
        head, parts = found
        self.uses.append(Use(".".join([self.bound[head], *parts]), ".".join([head, *parts]), node))

    def _is_mxnet(self, name: str) -> bool:
        return name in self.bound and not any(name in s for s in self.shadowed)


def uses(module: ast.Module, package: Optional[str], tree: Tree) -> list[Use]:
    """Every use of an MXNet name that the transpiled module will look up in the runtime."""
    collector = _Collector(package, tree)
    collector.visit(module)
    return collector.uses


def unsupported(module: ast.Module, package: Optional[str], tree: Tree) -> Iterator[tuple[Use, str]]:
    """(use, the missing MXNet name) for every use the runtime cannot satisfy."""
    for use in uses(module, package, tree):
        runtime_name = map_module(use.name)
        if runtime_name is None:
            continue
        missing = missing_part(runtime_name)
        if missing is not None:
            yield use, _mxnet_name(missing)


# the last module's answer, one (text, package, tree, found) tuple: a transpile asks twice for the
# text it converts (its HY012 findings, then the rewrite's placeholders), each a parse and a walk of
# the whole module (a tenth of a transpile)
_last: list = [None]


def unsupported_in(text: str, package: Optional[str], tree: Tree,
                   module: Optional[ast.Module] = None) -> list[tuple[Use, str]]:
    """:func:`unsupported` of a module's text (``module``: its syntax tree, where already parsed)."""
    last = _last[0]
    if last is not None and last[0] == text and last[1] == package and last[2] is tree:
        return last[3]
    found = list(unsupported(ast.parse(text) if module is None else module, package, tree))
    _last[0] = (text, package, tree, found)
    return found


def surface_findings(text: str, path: str, package: Optional[str] = None, tree: Optional[Tree] = None,
                     label: Optional[str] = None, config=None) -> list[Finding]:
    """HY012 findings for one module's text (``path`` locates its package; ``label`` names it)."""
    from ..source import SourceError, parse_python, split_lines
    from .imports import package_of

    if config is not None and CODE not in config.codes_for(label or path):
        return []
    try:
        module = parse_python(text)
    except SourceError:
        return []
    if package is None:
        package = package_of(path)
    tree = tree or Tree.for_path(path)
    lines = split_lines(text)
    out = []
    for use, missing in unsupported_in(text, package, tree, module):
        row, col = use.node.lineno, use.node.col_offset  # type: ignore[attr-defined]
        end_row = use.node.end_lineno or row  # type: ignore[attr-defined]
        end_col = use.node.end_col_offset or col  # type: ignore[attr-defined]
        start = Location(row, _char_col(lines, row, col))
        end = Location(end_row, _char_col(lines, end_row, end_col))
        if _suppressed(lines, row):
            continue
        how = f" (`{use.written}`)" if use.written not in (use.name, missing) else ""
        where = missing.rsplit(".", 1)
        detail = f"`{_runtime(where[0])}` has no `{where[1]}`" if len(where) == 2 else "no such module"
        name = api_name(use.name, missing)
        out.append(Finding(label or path, CODE, f"`{name}`{how} is not provided by hybridize.runtime: "
                           f"{detail}; the transpiled module raises where it uses it",
                           Severity.ERROR, start, end))
    return out


def api_name(used: str, missing: str) -> str:
    """The name a finding (and the summary) gives: the missing part and at most one name after it
    (``mxnet.io.NDArrayIter``, not ``mxnet.io`` nor ``mxnet.name.NameManager._current.value.get``)."""
    if not used.startswith(missing):
        return missing
    rest = used[len(missing):].lstrip(".").split(".")
    return missing + ("." + rest[0] if rest and rest[0] else "")


_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)


def _suppressed(lines: list[str], row: int) -> bool:
    """``# noqa`` or ``# noqa: HY012`` on the line (as the checker's suppressions)."""
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    match = _NOQA.search(line) if "noqa" in line.lower() else None
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or CODE in re.split(r"[\s,]+", codes.upper())


def _runtime(mxnet_name: str) -> str:
    return map_module(mxnet_name) or mxnet_name


def _char_col(lines: list[str], row: int, byte_col: int) -> int:
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    if line.isascii():
        return byte_col + 1
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="replace")) + 1
