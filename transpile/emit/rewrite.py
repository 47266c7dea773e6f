"""Rewrite one checked Gluon module into a static graph-building module for ``hybridize.runtime``.

The design (what a reader of the output sees):

* Every ``hybrid_forward`` method gets the ``@static_graph`` marker
  (``hybridize.runtime.gluon.static_graph``): the method is run with
  ``F = hybridize.runtime.symbol``, once per input signature, to build the graph; calls
  with NDArrays run the compiled graph (imperatively called blocks are compiled on first use, as if
  ``hybridize()`` had been called), except in a block whose subtree holds a block of a refused
  module (``@imperative_only``, ``--keep-going``): that one runs its body with ``F = nd`` and
  ``hybridize()`` hybridizes only the parts that can be (the marker module's docstring). The body is
  the graph construction, written out:
  - tensor-independent control flow (``if self.use_bias:``, ``for blk in self.layers:``) is kept: it
    is Python that runs while the graph is built;
  - trace-only side effects (``print``/logging of a tensor, HY008) are turned into comments, since
    they would print a Symbol once at build time and never again;
  - a tensor stored on ``self`` (HY008) is kept and annotated;
  - branches guarded to run only imperatively (``if F is nd:``, ``isinstance(x, nd.NDArray)``,
    ``F is nd and self.debug``) are resolved: the graph never takes them. Which tests are certain
    while tracing is the checker's analysis' verdict (``ModuleAnalysis.guard_verdicts``), not
    re-derived here: checker and transpiler share one semantic model.
* Imports are mapped by :mod:`.imports` (``mxnet`` -> ``hybridize.runtime``; relative imports leaving
  the transpiled tree become absolute).
* A header names the source file and the tool version. Everything else (constructors, helpers,
  docstrings, comments, formatting) is preserved byte for byte through libcst.

The checker runs first; a module with error-level findings is refused (see
:func:`check_for_transpile`, the one adapter between the two).
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

import libcst as cst
from libcst.helpers import get_full_name_for_node

from ...messages import printable
from ..diagnostics import Finding, Severity
from ..source import parse_module_cst
from .imports import Tree, package_of, plan_from_import, plan_import

MARKER_MODULE = "hybridize.runtime.gluon.static_graph"
MARKER = "static_graph"
IMPERATIVE = "imperative_only"
UNSUPPORTED = "HY012"
TRACE_ONLY = "HY008"
_LOGGING = frozenset({"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "fatal"})
_CODING = re.compile(r"^#.*coding[:=]")


def tool_version() -> str:
    from ... import __version__
    return __version__


# ---------------------------------------------------------------------------------------------
# the checker, behind one adapter
def check_for_transpile(text: str, path: str, config=None) -> list[Finding]:
    """All checker findings for ``text`` (errors refuse the file; HY008 warnings drive the rewrite)."""
    return analyse_for_transpile(text, path, config)[0]


def analyse_for_transpile(text: str, path: str, config=None):
    """The checker's findings and the semantic model they came from (the rewrite resolves the
    imperative-only branches the analysis found, so checker and transpiler agree)."""
    from ..check.checker import analyse_source

    return analyse_source(text, path, config, with_edits=False)


#: Warnings that still refuse a module when left unconverted: arithmetic whose operands may
#: broadcast (HY013) makes a graph that fails when it is built, if they do; transpile only writes
#: the graph once the conversion (``F.broadcast_*``, exact either way) has been applied.
REFUSING_WARNINGS = frozenset({"HY013"})


def blocking(findings: Sequence[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity is Severity.ERROR or f.code in REFUSING_WARNINGS]


# ---------------------------------------------------------------------------------------------
@dataclass
class Rewritten:
    """The outcome for one module. ``code`` is ``None`` when it was refused (error findings);
    ``fallback`` is then what ``--keep-going`` writes: the module with its imports mapped and its
    ``hybrid_forward`` methods left imperative (``@imperative_only``). ``converted`` counts the
    conversions (rule fixes) applied before the rewrite."""

    path: str
    code: Optional[str]
    findings: list[Finding] = field(default_factory=list)
    graph_methods: list[str] = field(default_factory=list)
    commented: int = 0
    resolved_guards: int = 0
    mapped_imports: int = 0
    fallback: Optional[str] = None
    converted: int = 0
    converted_codes: list[str] = field(default_factory=list)

    @property
    def refused(self) -> bool:
        return self.code is None

    @property
    def blocking(self) -> list[Finding]:
        return blocking(self.findings)


def rewrite_source(text: str, path: str, tree: Optional[Tree] = None, label: Optional[str] = None,
                   config=None, findings: Optional[list[Finding]] = None, analysis=None,
                   notes: Sequence[Finding] = ()) -> Rewritten:
    """Check and rewrite one module.

    ``path`` is the file on disk (its package is found from it), ``tree`` the transpiled tree it
    belongs to (default: the file alone), ``label`` the name written in the header (default ``path``).
    Raises :class:`~..source.SourceError` where libcst cannot parse a module CPython accepted.
    """
    if findings is None or analysis is None:
        findings, analysis = analyse_for_transpile(text, label or path, config)
    if blocking(findings):
        return Rewritten(label or path, None, list(findings))
    tree = tree or Tree.for_path(path)
    module = parse_module_cst(text)
    verdicts = analysis.guard_verdicts() if analysis is not None else {}
    plan = _plan(ast.parse(text), text, [f for f in findings if f.code == TRACE_ONLY], verdicts)
    marker = MARKER if not re.search(r"\b%s\b" % MARKER, text) else "_hybridize_" + MARKER
    package = package_of(path)
    transformer = _Rewriter(package, tree, plan, marker, label or path, module,
                            notes=_finding_notes(list(notes), False),
                            unsupported=_unsupported_sites(text, package, tree))
    out = module.visit(transformer)
    code = out.code
    compile(code, printable(label or path), "exec")  # the output must compile; a failure here is a bug of ours
    return Rewritten(label or path, code, list(findings), transformer.graph_methods, transformer.commented,
                     transformer.resolved_guards, transformer.mapped_imports)


def imperative_source(text: str, path: str, findings: Sequence[Finding], tree: Optional[Tree] = None,
                      label: Optional[str] = None) -> str:
    """The module as ``--keep-going`` writes it when it cannot be converted: imports mapped, every
    ``hybrid_forward`` marked ``@imperative_only(<the finding that refused it>)`` (it runs
    imperatively; hybridizing it raises naming the finding), the findings listed in the header.
    Nothing else changes (no conversion, no trace-only rewrite: the code runs as written)."""
    tree = tree or Tree.for_path(path)
    label = label or path
    errors = blocking(findings)
    spans = _method_spans(ast.parse(text))
    reasons = {}
    for qualname, (first, last) in spans.items():
        inside = [f for f in errors if first <= f.start.row <= last] or errors
        if inside:
            reasons[qualname] = _reason(inside[0], len(errors))
    module = parse_module_cst(text)
    marker = IMPERATIVE if not re.search(r"\b%s\b" % IMPERATIVE, text) else "_hybridize_" + IMPERATIVE
    package = package_of(path)
    transformer = _Rewriter(package, tree, _Plan(), marker, label, module,
                            imperative=reasons, notes=_finding_notes(errors, bool(reasons)),
                            unsupported=_unsupported_sites(text, package, tree))
    code = module.visit(transformer).code
    compile(code, label, "exec")
    return code


def _unsupported_sites(text: str, package: Optional[str], tree: Tree) -> dict[tuple[int, int], str]:
    """(line, 0-based character column) -> MXNet dotted name, for every attribute chain through an
    imported MXNet module that names something the runtime lacks (``mx.io.DataIter``: HY012, the
    surface check's own uses). The rewrite puts a placeholder there, so that a module which only
    *names* it at import time (a base class, an annotation) still imports."""
    from .surface import unsupported_in

    out: dict[tuple[int, int], str] = {}
    lines = text.splitlines()
    for use, _missing in unsupported_in(text, package, tree):
        node = use.node
        if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
            continue  # (an assignment target stays as written: a call cannot be assigned to)
        line = lines[node.lineno - 1] if 0 < node.lineno <= len(lines) else ""
        col = len(line.encode("utf-8")[:node.col_offset].decode("utf-8", errors="replace"))
        out[(node.lineno, col)] = use.name
    return out


def _reason(finding: Finding, total: int) -> str:
    more = f" (and {total - 1} more: see the module header)" if total > 1 else ""
    return f"{finding.code} at {finding.path}:{finding.start.row}:{finding.start.column}: {finding.message}{more}"


def _finding_notes(errors: Sequence[Finding], methods: bool) -> list[str]:
    if not errors:
        return []
    head = ("NOT CONVERTED: hybrid_forward left imperative (@imperative_only: hybridize() leaves it, and the "
            "blocks holding it, imperative) because of:"
            if methods else "NOT CONVERTED: written as is (imports mapped) because of:")
    if all(f.code == UNSUPPORTED for f in errors):
        head = "UNSUPPORTED APIs: hybridize.runtime does not provide these names; the module fails where it uses them:"
    return [head] + [f"  {f.code} {f.start.row}:{f.start.column}: {f.message}" for f in errors]


def _method_spans(tree: ast.Module) -> dict[str, tuple[int, int]]:
    """``Class.hybrid_forward`` -> (first row incl. decorators, last row) for methods directly in classes."""
    out: dict[str, tuple[int, int]] = {}

    def visit(body: list, prefix: list[str]) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name == "hybrid_forward":
                        first = min([item.lineno] + [d.lineno for d in item.decorator_list])
                        out[".".join(prefix + [node.name, item.name])] = (first, item.end_lineno or item.lineno)
                visit(node.body, prefix + [node.name])
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(node.body, prefix)  # the rewriter names methods by their classes only
            else:
                for attr in ("body", "orelse", "finalbody"):
                    inner = getattr(node, attr, None)
                    if isinstance(inner, list):
                        visit(inner, prefix)

    visit(tree.body, [])
    return out


# ---------------------------------------------------------------------------------------------
# the ast pre-pass: which scopes need the (slow, pure-Python) libcst traversal, and which
# statements are trace-only. Statements are identified by (scope path, source text, ordinal among
# equal texts in that scope), which libcst recomputes in the same source order: no positions needed.
def _norm(code: str) -> str:
    return code.strip().rstrip(";").strip()


@dataclass
class _Plan:
    needed: set = field(default_factory=set)        # scope paths (tuples of names) to traverse
    drop: set = field(default_factory=set)          # (scope, text, ordinal) -> comment out
    annotate: set = field(default_factory=set)      # (scope, text, ordinal) -> HY008 note
    guards: dict = field(default_factory=dict)      # (scope, test text, ordinal) -> value while tracing


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class _Segments:
    """``ast.get_source_segment(text, node)`` with the lines split (and encoded) once: the stdlib
    function splits the whole source on every call, which made the pre-pass quadratic (seconds
    for a large module such as gluon/block.py)."""

    def __init__(self, text: str) -> None:
        self._lines = [line.encode("utf-8") for line in _LINE.findall(text)]  # as ast: no split on \f

    def __call__(self, node: ast.AST) -> Optional[str]:
        try:
            if node.end_lineno is None or node.end_col_offset is None:  # type: ignore[attr-defined]
                return None
            first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
            col, end_col = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        except AttributeError:
            return None
        lines = self._lines
        if first == last:
            return lines[first][col:end_col].decode("utf-8")
        return "".join([lines[first][col:].decode("utf-8"),
                        *(line.decode("utf-8") for line in lines[first + 1:last]),
                        lines[last][:end_col].decode("utf-8")])


def _plan(tree: ast.Module, text: str, trace_only: list[Finding],
          verdicts: Optional[dict[tuple[int, int], bool]] = None) -> _Plan:
    plan = _Plan()
    verdicts = verdicts or {}
    if_counts: dict = {}
    segment = _Segments(text)
    rows = {}
    for f in trace_only:
        rows.setdefault(f.start.row, []).append(f.start.column)
    counts: dict = {}

    def visit(node: ast.AST, scope: tuple, in_graph: bool) -> bool:
        """Returns whether ``node`` holds something the rewrite touches."""
        interesting = False
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inner = scope + (child.name,)
                graph = in_graph or (isinstance(child, ast.FunctionDef) and child.name == "hybrid_forward"
                                     and isinstance(node, ast.ClassDef))
                if visit(child, inner, graph) or graph:
                    plan.needed.add(inner)
                    interesting = True
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                interesting = True
            if in_graph and isinstance(child, ast.If):
                test = segment(child.test)
                if test is not None:
                    key = (scope, _norm(test))
                    ordinal = if_counts.get(key, 0)
                    if_counts[key] = ordinal + 1
                    truth = verdicts.get((child.lineno, child.col_offset))
                    if truth is not None:
                        plan.guards[key + (ordinal,)] = truth
            if isinstance(child, ast.stmt) and not isinstance(child, (ast.If, ast.For, ast.While, ast.With,
                                                                      ast.Try, ast.AsyncFor, ast.AsyncWith)):
                seg = segment(child) if in_graph else None
                if seg is not None:
                    key = (scope, _norm(seg))
                    ordinal = counts.get(key, 0)
                    counts[key] = ordinal + 1
                    hits = [c for r in range(child.lineno, (child.end_lineno or child.lineno) + 1)
                            for c in rows.get(r, ()) if _inside(child, r, c)]
                    if hits:
                        starts_here = child.lineno in rows and child.col_offset + 1 in rows[child.lineno]
                        if (isinstance(child, ast.Expr) and isinstance(child.value, ast.Call) and starts_here
                                and _is_output_ast(child.value)):
                            plan.drop.add((scope, key[1], ordinal))
                        else:
                            plan.annotate.add((scope, key[1], ordinal))
            if visit(child, scope, in_graph):
                interesting = True
        return interesting

    visit(tree, (), False)
    return plan


def _inside(node: ast.stmt, row: int, col: int) -> bool:
    start = (node.lineno, node.col_offset + 1)
    end = (node.end_lineno or node.lineno, (node.end_col_offset or 0) + 1)
    return start <= (row, col) <= end


def _is_output_ast(call: ast.Call) -> bool:
    if isinstance(call.func, ast.Name):
        return call.func.id == "print"
    if isinstance(call.func, ast.Attribute):
        return call.func.attr in _LOGGING
    return False


# ---------------------------------------------------------------------------------------------
def _dotted(node: Optional[cst.BaseExpression]) -> Optional[str]:
    if node is None:
        return None
    return get_full_name_for_node(node)


def _comment_lines(text: str, prefix: str) -> list[cst.EmptyLine]:
    lines = text.strip("\n").splitlines() or [""]
    out = []
    for i, line in enumerate(lines):
        body = (prefix + line) if i == 0 else ("#     " + line.rstrip())
        out.append(cst.EmptyLine(indent=True, comment=cst.Comment(body.rstrip())))
    return out


class _Rewriter(cst.CSTTransformer):
    def __init__(self, package: Optional[str], tree: Tree, plan: _Plan, marker: str, label: str,
                 module: cst.Module, imperative: Optional[dict[str, str]] = None,
                 notes: Sequence[str] = (), unsupported: Optional[dict[tuple[int, int], str]] = None) -> None:
        super().__init__()
        self.unsupported = unsupported or {}  # see _unsupported_sites
        self._positions = None
        if self.unsupported:
            from ..convert.fixes import _positions

            self._positions = _positions(module)
        self._placeholder_import = False
        self.imperative = imperative  # Class.hybrid_forward -> reason, for @imperative_only
        self.notes = list(notes)
        self.package = package
        self.tree = tree
        self.plan = plan
        self._counts: dict = {}
        self._if_counts: dict = {}
        self.marker = marker
        self.label = label
        self.module = module
        self.graph_methods: list[str] = []
        self.commented = 0
        self.resolved_guards = 0
        self.mapped_imports = 0
        self.stubbed = 0
        self._depth = 0                # open indented blocks: 0 is the module's top level
        self._runtime_bound = False    # a top-level import already bound ``mxnet`` to the runtime
        self._classes: list[str] = []
        self._scopes: list[str] = []
        self._path: list[str] = []
        self._graph_fn: list[Optional[str]] = []  # the F parameter name inside a hybrid_forward
        self._drop: dict[int, list[cst.EmptyLine]] = {}
        self._annotate: dict[int, list[cst.EmptyLine]] = {}
        self._guards: dict[int, bool] = {}  # id(If) -> condition value once F is symbol

    # -- scopes -----------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._classes.append(node.name.value)
        self._scopes.append("class")
        self._path.append(node.name.value)
        return self.imperative is not None or bool(self.unsupported) or tuple(self._path) in self.plan.needed

    def leave_ClassDef(self, original: cst.ClassDef, updated: cst.ClassDef) -> cst.ClassDef:
        self._classes.pop()
        self._scopes.pop()
        self._path.pop()
        return updated

    def _is_graph_method(self, node: cst.FunctionDef) -> bool:
        """``hybrid_forward`` defined directly in a class body."""
        return node.name.value == "hybrid_forward" and bool(self._scopes) and self._scopes[-1] == "class"

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        graph = self._is_graph_method(node)
        params = [p.name.value for p in node.params.params]
        if graph:
            self.graph_methods.append(".".join(self._classes + ["hybrid_forward"]))
            self._graph_fn.append(params[1] if len(params) >= 2 else "F")
        else:
            self._graph_fn.append(self._graph_fn[-1] if self._graph_fn else None)
        self._scopes.append("def")
        self._path.append(node.name.value)
        return self.imperative is not None or bool(self.unsupported) or tuple(self._path) in self.plan.needed

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        self._scopes.pop()
        self._graph_fn.pop()
        self._path.pop()
        if not self._is_graph_method(original):
            return updated
        if self.imperative is not None:
            reason = self.imperative.get(self.graph_methods[-1] if self.graph_methods else "")
            if reason is None:
                return updated
            call = cst.Call(func=cst.Name(self.marker), args=[cst.Arg(cst.SimpleString(repr(reason)))])
            return updated.with_changes(decorators=[*updated.decorators, cst.Decorator(decorator=call)])
        if any(_dotted(d.decorator) in (self.marker, f"{MARKER_MODULE}.{MARKER}") for d in updated.decorators):
            return updated
        decorator = cst.Decorator(decorator=cst.Name(self.marker))
        return updated.with_changes(decorators=[*updated.decorators, decorator])

    @property
    def _in_graph(self) -> Optional[str]:
        return self._graph_fn[-1] if self._graph_fn else None

    # -- statements: trace-only side effects and imperative-only branches ---------------------
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if self._in_graph is None:
            return
        scope = tuple(self._path)
        for stmt in node.body:
            text = _norm(self.module.code_for_node(stmt))
            ordinal = self._counts.get((scope, text), 0)
            self._counts[(scope, text)] = ordinal + 1
            key = (scope, text, ordinal)
            if key in self.plan.drop and len(node.body) == 1:
                self._drop[id(node)] = _comment_lines(text, "# trace-only, not part of the graph: ")
            elif key in self.plan.drop or key in self.plan.annotate:
                self._annotate[id(node)] = _comment_lines(
                    "note (HY008): runs once, while the graph is built; it keeps a Symbol, not a value", "# ")

    def visit_If(self, node: cst.If) -> None:
        """Branches the analysis found certain while tracing (``if F is nd and self.debug:``)
        are resolved; the same ordinal scheme as the ast pre-pass finds the statement."""
        if self._in_graph is None:
            return
        key = (tuple(self._path), _norm(self.module.code_for_node(node.test)))
        ordinal = self._if_counts.get(key, 0)
        self._if_counts[key] = ordinal + 1
        truth = self.plan.guards.get(key + (ordinal,))
        if truth is not None:
            self._guards[id(node)] = truth

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        self._depth -= 1
        if not any(id(o) in self._drop or id(o) in self._annotate or id(o) in self._guards for o in original.body):
            return updated
        body: list[cst.BaseStatement] = []
        pending: list[cst.EmptyLine] = []
        for o, u in zip(original.body, updated.body):
            if id(o) in self._drop:
                pending += [*u.leading_lines, *self._drop[id(o)]]
                self.commented += 1
                continue
            if id(o) in self._annotate:
                u = u.with_changes(leading_lines=[*u.leading_lines, *self._annotate[id(o)]])
            if id(o) in self._guards and isinstance(u, cst.If):
                self.resolved_guards += 1
                taken = self._guards[id(o)]
                test = self.module.code_for_node(o.test)
                note = _comment_lines(f"`if {test}:` resolved: F is symbol here, so the "
                                      f"{'imperative-only branch is dropped' if not taken else 'condition holds'}",
                                      "# ")
                lead = [*pending, *u.leading_lines, *note]
                pending = []
                stmts = _branch(u, taken)
                if not stmts:
                    pending = lead
                    continue
                stmts[0] = stmts[0].with_changes(leading_lines=[*lead, *stmts[0].leading_lines])
                body.extend(stmts)
                continue
            if pending:
                u = u.with_changes(leading_lines=[*pending, *u.leading_lines])
                pending = []
            body.append(u)
        footer = list(updated.footer)
        if pending:
            if body:
                footer = [*pending, *footer]
            else:
                body = [cst.SimpleStatementLine([cst.Pass()], leading_lines=pending)]
        return updated.with_changes(body=body, footer=footer)

    # -- names the runtime lacks (HY012) ------------------------------------------------------
    def leave_Attribute(self, original: cst.Attribute, updated: cst.BaseExpression) -> cst.BaseExpression:
        """``mx.io.DataIter`` -> ``_hybridize_unsupported('mxnet.io.DataIter')``: evaluating it (a
        base class, an annotation, a default) works; calling it or instantiating a class derived
        from it raises naming it (``runtime.gluon.static_graph.unsupported_api``)."""
        if self._positions is None:
            return updated
        where = self._positions.get(original)
        name = self.unsupported.get((where.start.line, where.start.column)) if where is not None else None
        if name is None:
            return updated
        self.stubbed += 1
        self._placeholder_import = True
        return cst.Call(func=cst.Name("_hybridize_unsupported"), args=[cst.Arg(cst.SimpleString(repr(name)))],
                        lpar=updated.lpar, rpar=updated.rpar)

    # -- imports ----------------------------------------------------------------------------
    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        level = len(original.relative)
        module = _dotted(original.module)
        names: tuple[str, ...] = ()
        if not isinstance(original.names, cst.ImportStar):
            names = tuple(_dotted(a.name) or "" for a in original.names)
        plan = plan_from_import(level, module, self.package, self.tree, names)
        if plan.keep:
            return updated
        self.mapped_imports += 1
        if not plan.moved:
            mapped = updated.with_changes(relative=[], module=cst.parse_expression(plan.module))
            return self._stub_unsupported(mapped, plan.module)
        # some names are submodules outside the tree, the others stay relative: two statements
        assert not isinstance(updated.names, cst.ImportStar)
        stay = [a for a in updated.names if (_dotted(a.name) or "") not in plan.moved]
        move = [a for a in updated.names if (_dotted(a.name) or "") in plan.moved]
        tail = updated.names[-1].comma if updated.lpar is not None else cst.MaybeSentinel.DEFAULT
        moved = self._stub_unsupported(updated.with_changes(relative=[], module=cst.parse_expression(plan.module),
                                                            names=_alias_list(move, tail)), plan.module)
        return cst.FlattenSentinel([  # type: ignore[return-value]
            updated.with_changes(names=_alias_list(stay, tail)),
            *(moved if isinstance(moved, cst.FlattenSentinel) else [moved]),
        ])

    def _stub_unsupported(self, node: cst.ImportFrom, runtime_module: Optional[str]):
        """``from hybridize.runtime.gluon import Trainer``: names the runtime lacks (HY012) are bound
        to ``unsupported_api("mxnet.gluon.Trainer")`` instead, so the module still imports and the
        first use raises naming the name; the others stay in the import."""
        from .surface import missing_part
        from .imports import MXNET, RUNTIME

        if isinstance(node.names, cst.ImportStar) or not runtime_module or not runtime_module.startswith(RUNTIME):
            return node
        lacking = [a for a in node.names if missing_part(f"{runtime_module}.{_dotted(a.name)}") is not None]
        if not lacking:
            return node
        keep = [a for a in node.names if a not in lacking]
        out: list = []
        if keep:
            tail = node.names[-1].comma if node.lpar is not None else cst.MaybeSentinel.DEFAULT
            out.append(node.with_changes(names=_alias_list(keep, tail)))
        out.append(cst.parse_statement(
            f"from {MARKER_MODULE} import unsupported_api as _hybridize_unsupported\n").body[0])
        for alias in lacking:
            name = _dotted(alias.name) or ""
            bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            mxnet_name = MXNET + f"{runtime_module}.{name}"[len(RUNTIME):]
            out.append(cst.parse_statement(f"{bound} = _hybridize_unsupported({mxnet_name!r})\n").body[0])
        self.stubbed += len(lacking)
        return cst.FlattenSentinel(out)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                  updated: cst.SimpleStatementLine):
        """A lone import split in several statements (see :meth:`leave_ImportFrom`,
        :meth:`leave_Import`) becomes one line each."""
        if len(original.body) == 1 and len(updated.body) >= 2 and isinstance(original.body[0],
                                                                             (cst.ImportFrom, cst.Import)):
            first, *rest = updated.body
            return cst.FlattenSentinel([
                updated.with_changes(body=[first.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]),
                *(cst.SimpleStatementLine(body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])
                  for s in rest)])
        return updated

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self._depth += 1

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> None:
        self._depth += 1

    def leave_SimpleStatementSuite(self, original: cst.SimpleStatementSuite,
                                   updated: cst.SimpleStatementSuite) -> cst.SimpleStatementSuite:
        self._depth -= 1
        return updated

    def leave_Import(self, original: cst.Import, updated: cst.Import) -> cst.Import:
        from .surface import missing_part

        new_names: list[cst.ImportAlias] = []
        stubs: list[cst.BaseSmallStatement] = []
        changed = False
        for alias in updated.names:
            dotted = _dotted(alias.name) or ""
            asname = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else None
            plan = plan_import(dotted, asname)
            if plan is None:
                new_names.append(alias)
                continue
            changed = True
            new_dotted, new_as, extra = plan
            lacking = missing_part(extra or new_dotted) is not None
            if lacking and asname is not None:  # import mxnet.kvstore as kv: kv is a placeholder
                stubs.append(cst.parse_statement(f"{asname} = _hybridize_unsupported({dotted!r})\n").body[0])
                self.stubbed += 1
                continue
            if lacking and extra is not None:  # import mxnet.io: binds mxnet; mxnet.io.X are placeholders
                extra = None
            if extra is not None:
                new_names.append(cst.ImportAlias(name=cst.parse_expression(extra)))
                if alias.asname is None and self._depth == 0 and self._runtime_bound:
                    continue  # ``mxnet`` is bound to the runtime already: no second ``... as mxnet``
            if alias.asname is None and self._depth == 0:
                self._runtime_bound = True
            as_node = alias.asname or cst.AsName(name=cst.Name(new_as))
            if alias.asname is None:
                as_node = cst.AsName(name=cst.Name(new_as))
            new_names.append(alias.with_changes(name=cst.parse_expression(new_dotted), asname=as_node))
        if not changed:
            return updated
        self.mapped_imports += 1
        fixed = []
        for i, a in enumerate(new_names):  # commas between all but the last
            if i < len(new_names) - 1 and a.comma is cst.MaybeSentinel.DEFAULT:
                a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            elif i == len(new_names) - 1 and not isinstance(a.comma, cst.MaybeSentinel):
                a = a.with_changes(comma=cst.MaybeSentinel.DEFAULT)
            fixed.append(a)
        if not stubs:
            return updated.with_changes(names=fixed)
        head = [updated.with_changes(names=fixed)] if fixed else []
        importer = cst.parse_statement(
            f"from {MARKER_MODULE} import unsupported_api as _hybridize_unsupported\n").body[0]
        return cst.FlattenSentinel([*head, importer, *stubs])  # type: ignore[return-value]

    # -- module: header and the marker's import -----------------------------------------------
    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        header = list(updated.header)
        keep = 0
        while keep < len(header) and keep < 2 and header[keep].comment is not None and (
                header[keep].comment.value.startswith("#!") or _CODING.match(header[keep].comment.value)):
            keep += 1
        ours = [cst.EmptyLine(comment=cst.Comment(
            f"# Transpiled by hybridize {tool_version()} (hybridize transpile) from {printable(self.label)}"))]
        if self.graph_methods and self.imperative is None:
            ours.append(cst.EmptyLine(comment=cst.Comment(
                "# hybrid_forward methods marked @static_graph build a static graph: F is hybridize.runtime.symbol")))
        ours += [cst.EmptyLine(comment=cst.Comment(_one_line("# " + note))) for note in self.notes]
        rest = header[keep:]
        while rest and rest[0].comment is not None and rest[0].comment.value.startswith(_OUR_HEADER):
            rest = rest[1:]  # transpiling a transpiled module: one header, the new one
        if len(rest) < len(header[keep:]) and rest and rest[0].comment is None:
            rest = rest[1:]
        sep = [cst.EmptyLine()] if rest or updated.body else []
        if rest and rest[0].comment is None:
            sep = []
        body = list(updated.body)
        if self._placeholder_import:
            body = _insert_placeholder_import(body)
        if self.imperative:
            body = _insert_marker_import(body, self.marker, IMPERATIVE)
        elif self.graph_methods and self.imperative is None:
            body = _insert_marker_import(body, self.marker)
        return updated.with_changes(header=[*header[:keep], *ours, *sep, *rest], body=body)


# the header lines this module writes (see ``leave_Module``)
_OUR_HEADER = ("# Transpiled by hybridize ", "# hybrid_forward methods marked @static_graph build a static graph")


def _alias_list(aliases: list, tail) -> list:
    """``aliases`` with commas between them and ``tail`` after the last (the statement's original
    trailing comma when it is parenthesized, else none: ``from x import a, b``)."""
    out = []
    for i, a in enumerate(aliases):
        if i < len(aliases) - 1 and not isinstance(a.comma, cst.Comma):
            a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        elif i == len(aliases) - 1:
            a = a.with_changes(comma=tail)
        out.append(a)
    return out


def _is_output_call(call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value == "print"
    if isinstance(func, cst.Attribute):
        return func.attr.value in _LOGGING
    return False


def _branch(node: cst.If, taken: bool) -> list[cst.BaseStatement]:
    """The statements that replace ``node`` when its test is ``taken``."""
    if taken:
        return list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else [
            cst.SimpleStatementLine(list(node.body.body))]
    orelse = node.orelse
    if orelse is None:
        return []
    if isinstance(orelse, cst.If):  # elif: becomes a plain if
        return [orelse.with_changes(leading_lines=[])]
    block = orelse.body
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    return [cst.SimpleStatementLine(list(block.body))]


def _is_import_line(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _one_line(comment: str) -> str:
    return " ".join(comment.splitlines()).rstrip()


def _insert_placeholder_import(body: list) -> list:
    """``unsupported_api`` imported before any statement that may use it: after the docstring and
    ``from __future__`` imports."""
    new = cst.parse_statement(f"from {MARKER_MODULE} import unsupported_api as _hybridize_unsupported\n")
    at = 0
    for i, stmt in enumerate(body):
        if i == at and isinstance(stmt, cst.SimpleStatementLine) and (
                (isinstance(stmt.body[0], cst.Expr) and i == 0
                 and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))
                or (isinstance(stmt.body[0], cst.ImportFrom) and _dotted(stmt.body[0].module) == "__future__")):
            at = i + 1
            continue
        break
    return [*body[:at], new, *body[at:]]


def _insert_marker_import(body: list, marker: str, name: str = MARKER) -> list:
    """After the last top-level import that precedes the first class/def (after docstring and
    ``from __future__`` otherwise)."""
    line = f"from {MARKER_MODULE} import {name}" + (f" as {marker}" if marker != name else "") + "\n"
    new = cst.parse_statement(line)
    if any(stmt.deep_equals(new) for stmt in body if isinstance(stmt, cst.SimpleStatementLine)):
        return body  # already there (a transpiled module transpiled again): never a repeated import
    at = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, (cst.ClassDef, cst.FunctionDef)):
            break
        if _is_import_line(stmt):
            at = i + 1
        elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr) \
                and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)) and at == 0:
            at = 1
    return [*body[:at], new, *body[at:]]
