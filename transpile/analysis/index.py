"""What a module contains, from CPython's ``ast``: imports, module names, classes, functions.

The index is the analysis' view of everything *outside* the function being analysed: which
module a name was imported from (so ``nd`` is known to be ``mxnet.ndarray`` because of an import,
not because of its spelling), which helper functions and methods exist and where (so they can be
parsed with libcst on demand), and which classes inherit from which in the same file.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..source import Snippet, SourceError, ast_depth, parse_function_snippet

#: Functions whose AST is deeper than this are not analysed (HY000 on the ``def``): the analysis
#: is recursive (a few frames per level; the checker allows 12000 frames). CPython's own parser
#: refuses much deeper code anyway.
MAX_FUNCTION_DEPTH = 1500
#: Below this size a function cannot hold an expression deep enough to matter, so the (costly)
#: depth walk is skipped.
DEPTH_CHECK_CHARS = 3000


@dataclass
class FunctionSpan:
    """Where one function lives in the file; parsed with libcst only when first needed."""

    name: str
    qualname: str
    first: int
    last: int
    indent: int
    def_row: int
    node: ast.AST = field(repr=False)
    _snippet: Optional[Snippet] = field(default=None, repr=False)

    def snippet(self, lines: list[str]) -> Snippet:
        """The libcst tree of this function (cached); :class:`SourceError` if it is pathological."""
        if self._snippet is None:
            size = sum(len(line) for line in lines[self.first - 1:self.last])
            if size > DEPTH_CHECK_CHARS and ast_depth(self.node, MAX_FUNCTION_DEPTH) is None:
                raise SourceError(
                    f"`{self.qualname}` is nested too deeply to analyse "
                    f"(more than {MAX_FUNCTION_DEPTH} levels)",
                    self.def_row,
                    self.indent + 1,
                )
            self._snippet = parse_function_snippet(lines, self.first, self.last, self.indent)
        return self._snippet


@dataclass
class ClassInfo:
    """A class: its methods and the names of its bases (resolved within the file on lookup)."""

    name: str
    row: int
    bases: list[str]
    methods: dict[str, FunctionSpan]


@dataclass
class ModuleIndex:
    """Module-level knowledge used by the analysis.

    ``imports`` maps a local name to a dotted qualified name. Relative imports keep their leading
    dots (``from ... import ndarray`` gives ``"...ndarray"``). ``module_names`` maps other
    module-level names to a qualified name when one is known (``logger = logging.getLogger()``
    gives ``"logging.getLogger()"``) or to ``""``.
    """

    imports: dict[str, str]
    module_names: dict[str, str]
    functions: dict[str, FunctionSpan]
    classes: dict[str, ClassInfo]
    lines: list[str] = field(repr=False)
    #: The module is written for MXNet's NumPy interface (:func:`np_mode`): its blocks trace into
    #: np-mode Symbols (``mxnet.symbol.numpy._Symbol``), which index, broadcast and reshape like
    #: arrays, and the rules judge it with those semantics.
    np_mode: bool = False

    def hybrid_forwards(self) -> Iterator[tuple[ClassInfo, FunctionSpan]]:
        """Every ``hybrid_forward`` method, in file order."""
        found = [
            (cls, cls.methods["hybrid_forward"])
            for cls in self.classes.values()
            if "hybrid_forward" in cls.methods
        ]
        found.sort(key=lambda pair: pair[1].first)
        return iter(found)

    def find_method(self, cls: ClassInfo, name: str, _seen: Optional[set] = None) -> Optional[tuple[ClassInfo, FunctionSpan]]:
        """Look ``name`` up in ``cls`` and then in its bases defined in this file (depth first)."""
        seen = _seen if _seen is not None else set()
        if cls.name in seen:
            return None
        seen.add(cls.name)
        if name in cls.methods:
            return cls, cls.methods[name]
        for base in cls.bases:
            base_cls = self.classes.get(base.rsplit(".", 1)[-1])
            if base_cls is not None:
                hit = self.find_method(base_cls, name, seen)
                if hit is not None:
                    return hit
        return None


    def derives_from(self, cls: ClassInfo, names: frozenset, _seen: Optional[set] = None) -> bool:
        """Does ``cls`` derive from a class whose name is one of ``names``, directly or through
        bases defined in this file?"""
        seen = _seen if _seen is not None else set()
        if cls.name in seen:
            return False
        seen.add(cls.name)
        for base in cls.bases:
            last = base.rsplit(".", 1)[-1]
            if last in names:
                return True
            base_cls = self.classes.get(last)
            if base_cls is not None and self.derives_from(base_cls, names, seen):
                return True
        return False


def _dotted(node: ast.AST) -> Optional[str]:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _span(node: ast.AST, qualname: str) -> FunctionSpan:
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return FunctionSpan(
        name=node.name,
        qualname=qualname,
        first=first,
        last=node.end_lineno or node.lineno,
        indent=node.col_offset,
        def_row=node.lineno,
        node=node,
    )


def build_index(tree: ast.Module, lines: list[str]) -> ModuleIndex:
    """Collect imports, module-level names, functions and (possibly nested) classes."""
    imports: dict[str, str] = {}
    module_names: dict[str, str] = {}
    functions: dict[str, FunctionSpan] = {}
    classes: dict[str, ClassInfo] = {}

    def record_import(stmt: ast.AST) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    top = alias.name.split(".", 1)[0]
                    imports[top] = top
        elif isinstance(stmt, ast.ImportFrom):
            base = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                if alias.name == "*":
                    continue
                sep = "" if base.endswith(".") or not base else "."
                imports[alias.asname or alias.name] = f"{base}{sep}{alias.name}"

    def visit_module_body(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                record_import(stmt)
            elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions[stmt.name] = _span(stmt, stmt.name)
            elif isinstance(stmt, ast.ClassDef):
                module_names.setdefault(stmt.name, "")
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                qual = _value_qualname(stmt.value, imports) if stmt.value is not None else ""
                for target in targets:
                    for name_node in ast.walk(target):
                        if isinstance(name_node, ast.Name):
                            module_names[name_node.id] = qual if isinstance(target, ast.Name) else ""
            elif isinstance(stmt, (ast.If, ast.Try)):
                # ``try: import x`` / ``if TYPE_CHECKING:`` blocks still bind module names.
                for block in _blocks(stmt):
                    visit_module_body(block)

    visit_module_body(tree.body)

    # Classes anywhere (nested in functions or other classes too), found by walking statement
    # bodies only: expressions cannot contain class definitions, and skipping them keeps
    # indexing a small fraction of the parse time.
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.ClassDef):
            methods = {
                stmt.name: _span(stmt, f"{node.name}.{stmt.name}")
                for stmt in node.body
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
            }
            bases = [b for b in (_dotted(base) for base in node.bases) if b]
            classes.setdefault(node.name, ClassInfo(node.name, node.lineno, bases, methods))
        for attr in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(node, attr, None)
            if isinstance(block, list):
                stack.extend(block)
    index = ModuleIndex(imports, module_names, functions, classes, lines)
    index.np_mode = np_mode(tree, imports, classes, lines)
    return index


#: What turns MXNet's NumPy semantics on (``npx.set_np()``, ``mx.util.set_np()``, ``@use_np``...).
_NP_SWITCHES = frozenset({"set_np", "set_np_shape", "use_np", "use_np_array", "use_np_shape", "np_shape",
                          "np_array"})
#: ``mxnet`` modules whose import marks NumPy-interface code (``from mxnet import np, npx``).
_NP_MODULES = frozenset({"mxnet.np", "mxnet.npx", "mxnet.numpy", "mxnet.numpy_extension"})


def np_mode(tree: ast.Module, imports: dict[str, str], classes: dict[str, ClassInfo], lines: list[str]) -> bool:
    """Is the module written for MXNet's NumPy interface (d2l 2.x, MXNet >= 1.6 code)?

    Yes when it imports ``mxnet.np``/``mxnet.npx`` (``mxnet.numpy``, ``mxnet.numpy_extension``),
    calls or decorates with one of MXNet's switches (``npx.set_np()``, ``mx.util.set_np()``,
    ``@use_np``), or its ``hybrid_forward`` s read only ``F.np``/``F.npx`` from ``F``: Gluon then
    traces its blocks into np-mode Symbols (code that reads both ``F.npx.X`` and a legacy ``F.Y``
    picks one by a flag: it runs in both modes). A module that only *defines* blocks for a caller who calls ``set_np``
    and uses neither is judged as legacy code (its ``F.X`` calls are the legacy API anyway), and
    so is one that asks ``is_np_array()`` (Gluon's own layers): it runs in both modes, so it must
    pass the stricter legacy rules.
    """
    text = "".join(lines)
    if "np" not in text or "is_np_array" in text:  # (cheap first: most legacy files never spell it)
        return False
    for qual in imports.values():
        if qual in _NP_MODULES or any(qual.startswith(m + ".") for m in _NP_MODULES):
            return True
    used: set[str] = set()  # what the module's ``hybrid_forward`` s read from ``F``
    for cls in classes.values():
        span = cls.methods.get("hybrid_forward")
        if span is None:
            continue
        args = span.node.args.args  # type: ignore[attr-defined]
        if len(args) >= 2:
            f_name = args[1].arg
            used.update(node.attr for node in ast.walk(span.node) if isinstance(node, ast.Attribute)
                        and isinstance(node.value, ast.Name) and node.value.id == f_name)
    if used and used <= {"np", "npx"}:
        return True
    if not any(switch in text for switch in _NP_SWITCHES):
        return False
    for stmt in tree.body:
        for node in ast.walk(stmt):
            target = node.func if isinstance(node, ast.Call) else node if isinstance(node, ast.Name) else None
            name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else None
            if name in _NP_SWITCHES:
                dotted = _dotted(target)
                head = dotted.split(".", 1)[0] if dotted else ""
                if imports.get(head, "").startswith("mxnet"):
                    return True
    return False


def _blocks(stmt: ast.AST) -> Iterator[list[ast.stmt]]:
    if isinstance(stmt, ast.If):
        yield stmt.body
        yield stmt.orelse
    elif isinstance(stmt, ast.Try):
        yield stmt.body
        for handler in stmt.handlers:
            yield handler.body
        yield stmt.orelse
        yield stmt.finalbody


def _value_qualname(value: ast.AST, imports: dict[str, str]) -> str:
    """Qualified name of a module-level value: aliases of imports and ``logging.getLogger()``."""
    if isinstance(value, ast.Call):
        inner = _value_qualname(value.func, imports)
        return f"{inner}()" if inner else ""
    dotted = _dotted(value)
    if not dotted:
        return ""
    head, _, rest = dotted.partition(".")
    if head in imports:
        return imports[head] + ("." + rest if rest else "")
    return ""
