"""Scopes, bindings and the tensor dataflow: the one place that knows what a tensor is.

Library API (used by the checker and meant for the transpiler)::

    from hybridize.transpile.analysis import analyze_text

    result = analyze_text(source_text)          # raises source.SourceError if unparsable
    for fn in result.functions:                 # every analysed hybrid_forward
        fn.class_name, fn.span.node             # the method's ``ast.FunctionDef``
    value = result.value_of(ast_expression)     # values.Value or None
    value = result.value_at(row, col, end_row, end_col)  # same, by 1-based position
    value.is_tensor, value.holds_tensor, value.kind, value.origin.explain("y")
    result.events                               # events.Event list the rules consume

``value_of`` answers "is this expression a tensor here?" for every expression evaluated on the
symbolic path of a ``hybrid_forward`` (and the helpers it calls). Nodes are CPython ``ast`` nodes
(the fast parser the checker validates files with). A libcst-based caller (the transpiler) maps
its nodes by position with ``value_at``: libcst's ``PositionProvider`` range of an unparenthesised
expression equals the ast range. Expressions in branches that only run imperatively
(``if F is nd:``) have no value.

How: :class:`~.interpreter.Interpreter` runs over each ``hybrid_forward`` two or three times.
The first pass records *evidence* of how undecided values (inputs, child-block results) are used;
the next pass decides them (an input used in ``x + 1`` is a tensor; one iterated and extended is
a list) and emits the events and values the rules see.
"""
from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..source import SourceError, ast_depth, parse_python, split_lines
from . import knowledge as K
from .events import Event, EventKind, Evidence, Site
from .index import DEPTH_CHECK_CHARS, MAX_FUNCTION_DEPTH, ClassInfo, FunctionSpan, ModuleIndex, build_index
from .interpreter import Interpreter
from .values import Category, Kind, Origin, Value

__all__ = [
    "AnalysedFunction", "ModuleAnalysis", "analyze_index", "analyze_text", "build_index",
    "Event", "EventKind", "Kind", "Value", "Origin", "Category", "Site", "ModuleIndex",
]

MAX_PASSES = 3


@dataclass
class AnalysedFunction:
    """One ``hybrid_forward`` that was analysed (``span.node`` is its ``ast.FunctionDef``)."""

    class_name: str
    span: FunctionSpan


@dataclass
class ModuleAnalysis:
    index: ModuleIndex
    functions: list[AnalysedFunction] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    errors: list[SourceError] = field(default_factory=list)
    _values: dict = field(default_factory=dict, repr=False)
    _guards: dict = field(default_factory=dict, repr=False)
    _by_span: Optional[dict] = field(default=None, repr=False)

    def value_of(self, node: ast.AST) -> Optional[Value]:
        """The abstract value of an expression node, if it was evaluated on the symbolic path."""
        hit = self._values.get(id(node))
        return hit[1] if hit is not None and hit[0] is node else None

    def traced_truth(self, node: ast.AST) -> Optional[bool]:
        """For an ``if``/conditional expression analysed on the symbolic path: the value of its
        test while the block is traced, when certain (``if F is nd and self.debug:`` -> False),
        else ``None``. The transpiler resolves exactly these branches."""
        hit = self._guards.get(id(node))
        return hit[1] if hit is not None and hit[0] is node else None

    def guard_verdicts(self) -> dict[tuple[int, int], bool]:
        """(row, ast byte column) of every ``if``/conditional expression whose test has a certain
        value while tracing -> that value (see :meth:`traced_truth`)."""
        return {(node.lineno, node.col_offset): truth for node, truth in self._guards.values()
                if truth is not None}

    def value_at(self, row: int, col: int, end_row: int, end_col: int) -> Optional[Value]:
        """The value of the expression spanning exactly this 1-based range (end exclusive)."""
        if self._by_span is None:
            self._by_span = {}
            for node, value, site in self._values.values():
                self._by_span[site.span(node)] = value
        return self._by_span.get((row, col, end_row, end_col))


def analyze_text(text: str) -> ModuleAnalysis:
    """Parse and analyse a whole module given as text."""
    lines = split_lines(text)
    return analyze_index(build_index(parse_python(text), lines))


def analyze_index(index: ModuleIndex) -> ModuleAnalysis:
    """Analyse every ``hybrid_forward`` of an indexed module (see the module docstring)."""
    analysis = ModuleAnalysis(index)
    targets: list[tuple[ClassInfo, FunctionSpan]] = []
    for cls, span in index.hybrid_forwards():
        size = sum(len(line) for line in index.lines[span.first - 1:span.last])
        if size > DEPTH_CHECK_CHARS and ast_depth(span.node, MAX_FUNCTION_DEPTH) is None:
            analysis.errors.append(SourceError(
                f"`{span.qualname}` is nested too deeply to analyse (more than {MAX_FUNCTION_DEPTH} levels)",
                span.def_row, span.indent + 1))
            continue
        targets.append((cls, span))
        analysis.functions.append(AnalysedFunction(cls.name, span))
    if not targets:
        return analysis
    # every class of the file: helpers may run with a base class as ``cls`` (each read on first use)
    attributes = _LazyAttributes(index)
    if not attributes.unparse_cannot_fail():
        attributes.read_all()  # (as before: a call nested too deeply to unparse stops the analysis)
    init_ndarrays, init_params = attributes.view(0), attributes.view(1)
    init_layers = _LazyLayers(index)

    decided: Optional[Evidence] = None
    interp: Optional[Interpreter] = None
    for pass_no in range(MAX_PASSES):
        evidence = Evidence()
        if decided is not None:  # evidence only grows: keep what earlier passes saw
            evidence.merge(decided)
        interp = Interpreter(index, evidence, decided, emit=pass_no > 0, init_ndarrays=init_ndarrays,
                             init_params=init_params, init_layers=init_layers)
        for cls, span in targets:
            interp.run_hybrid_forward(cls, span.node, Site(index.lines, span.qualname, function=span,
                                                                np_mode=index.np_mode))
        if pass_no > 0 and decided is not None and evidence.snapshot() == decided.snapshot():
            break
        decided = evidence
    assert interp is not None
    analysis.events = interp.events
    analysis._values = interp.values
    analysis._guards = interp.guards
    return analysis


def _init_attributes(index: ModuleIndex, cls: ClassInfo) -> tuple["_CallTexts", "_CallTexts"]:
    """``self.attr = nd.array(...)`` and ``self.attr = self.params.get(...)`` in ``__init__``.

    The ``__init__`` of the class and of its bases defined in this file are read (a subclass's
    own assignment wins): the first dict holds NDArrays made by the imperative API, the second
    Parameters (``self.params.get``/``get_constant``, ``gluon.Parameter``/``Constant``) and, as
    ``attr.*``, Gluon layers (whose Parameters are ``self.attr.weight``), each as the creating
    call's text and row. Read from the ``ast`` already built for the index: no
    libcst parse is needed.
    """
    ndarrays = _CallTexts()
    params = _CallTexts()  # a child block ``a`` is recorded as ``a.*``
    for owner in reversed(_class_chain(index, cls)):
        init = owner.methods.get("__init__")
        if init is None:
            continue
        for stmt in _call_assignments(init.node):
            kind = _created_by(stmt.value.func, index)
            if kind is None:
                continue
            for target in stmt.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    for table in (ndarrays, params):
                        table.pop(target.attr, None)
                        table.pop(target.attr + ".*", None)
                    table = ndarrays if kind == "ndarray" else params
                    table[target.attr + (".*" if kind == "block" else "")] = stmt.value
    return ndarrays, params


def _statements(body: list) -> Iterator[ast.AST]:
    """Every statement of ``body`` at any depth (bodies, else branches, handlers), in the order the
    ``__init__`` readers have always visited them (a stack: last statement first)."""
    stack: list[ast.AST] = list(body)
    while stack:
        stmt = stack.pop()
        for attr in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(stmt, attr, None)
            if isinstance(block, list):
                stack.extend(block)
        yield stmt


def _call_assignments(init: ast.AST) -> Iterator[ast.Assign]:
    """``x = call(...)`` statements of a function, at any depth, in the order
    :func:`_init_attributes` has always read them."""
    for stmt in _statements(init.body):  # type: ignore[attr-defined]
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            yield stmt


class _CallTexts(dict):
    """``attr`` -> the creating call; :meth:`get` answers (its text, cut to 50 characters, and
    its row). The text only names the call in messages: it is unparsed for the attributes the
    analysis actually reads, not for every layer an ``__init__`` creates."""

    def get(self, attr: str, default: None = None) -> Optional[tuple[str, int]]:  # type: ignore[override]
        call = dict.get(self, attr)
        if call is None:
            return default
        text = ast.unparse(call)
        if len(text) > 50:
            text = text[:47] + "..."
        return text, call.lineno


class _LazyAttributes:
    """class name -> :func:`_init_attributes` of that class, read on first lookup: only classes
    whose analysed code reads ``self.attr`` need theirs.

    Reading them all up front, as the analysis once did, unparsed every creating call, and an
    unparse can fail (``RecursionError``: the analysis then reports the file as nested too
    deeply). Unparsing recurses through ~4 frames per level of nesting and every level takes at
    least one character of source, so a call spanning fewer characters than an eighth of the
    recursion limit cannot fail; when every candidate call of the file is that short, laziness
    changes nothing but the cost, otherwise :meth:`read_all` keeps the old behaviour exactly.
    """

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.tables: dict[str, tuple[_CallTexts, _CallTexts]] = {}

    def unparse_cannot_fail(self) -> bool:
        limit = sys.getrecursionlimit() // 8
        lines = self.index.lines
        for cls in self.index.classes.values():
            init = cls.methods.get("__init__")
            if init is None:
                continue
            for stmt in _call_assignments(init.node):
                call = stmt.value
                end = call.end_lineno or call.lineno
                size = (call.end_col_offset or 0) - call.col_offset if end == call.lineno else \
                    sum(len(line) for line in lines[call.lineno - 1:end])
                if size >= limit:
                    return False
        return True

    def read_all(self) -> None:
        for name in self.index.classes:
            for table in (self.table(name, 0), self.table(name, 1)):
                for attr in table or ():
                    table.get(attr)

    def table(self, name: str, which: int) -> Optional[_CallTexts]:
        found = self.tables.get(name)
        if found is None:
            cls = self.index.classes.get(name)
            if cls is None:
                return None
            found = self.tables[name] = _init_attributes(self.index, cls)
        return found[which]

    def view(self, which: int) -> "_AttributeView":
        return _AttributeView(self, which)


class _AttributeView:
    """The NDArray (``which`` 0) or Parameter (1) tables of :class:`_LazyAttributes`, with the
    ``dict.get`` the interpreter uses."""

    def __init__(self, attributes: _LazyAttributes, which: int) -> None:
        self.attributes = attributes
        self.which = which

    def get(self, name: str, default: Optional[dict] = None) -> Optional[dict]:
        found = self.attributes.table(name, self.which)
        return default if found is None else found


def _init_layers(index: ModuleIndex, cls: ClassInfo) -> dict[str, str]:
    """``self.attr`` -> layer class for attributes that ``__init__`` (of the class or its bases in
    this file) only ever sets to a single-tensor Gluon layer (``self.fc = nn.Dense(3)``; see
    :mod:`.layers`) or ``None``. Any other assignment to the attribute, anywhere in those
    ``__init__`` s (statements at any depth), leaves it out: it might hold some other block.
    Computed on first use (the interpreter asks only for classes whose ``hybrid_forward`` calls
    ``self.attr(...)``), by a statement walk: expressions are not visited."""
    from .layers import single_tensor_layer

    layers: dict[str, str] = {}
    other: set[str] = set()
    for owner in _class_chain(index, cls):
        init = owner.methods.get("__init__")
        if init is None:
            continue
        for stmt in _statements(init.node.body):  # type: ignore[attr-defined]
            if isinstance(stmt, ast.Assign):
                targets, value = stmt.targets, stmt.value
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
                targets, value = [stmt.target], (stmt.value if isinstance(stmt, ast.AnnAssign) else None)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                targets, value = [i.optional_vars for i in stmt.items if i.optional_vars is not None], None
            else:
                continue
            for target in targets:
                for t in ([target] if isinstance(target, ast.Attribute) else ast.walk(target)):
                    if not (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"):
                        continue
                    layer = None
                    if t is target and isinstance(value, ast.Call):
                        layer = single_tensor_layer(K.strip_mxnet(_qualify(value.func, index)))
                    if layer is not None:
                        layers.setdefault(t.attr, layer)
                    elif not (t is target and isinstance(value, ast.Constant) and value.value is None):
                        other.add(t.attr)
    return {attr: layer for attr, layer in layers.items() if attr not in other}


class _LazyLayers(dict):
    """class name -> :func:`_init_layers` of that class, computed on first lookup."""

    def __init__(self, index: ModuleIndex) -> None:
        super().__init__()
        self.index = index

    def __missing__(self, name: str) -> dict[str, str]:
        cls = self.index.classes.get(name)
        found = _init_layers(self.index, cls) if cls is not None else {}
        self[name] = found
        return found


def _class_chain(index: ModuleIndex, cls: ClassInfo) -> list[ClassInfo]:
    """``cls`` and its bases defined in this file, depth first (like ``find_method``)."""
    chain: list[ClassInfo] = []
    stack = [cls]
    while stack:
        current = stack.pop(0)
        if any(c is current for c in chain):
            continue
        chain.append(current)
        for base in current.bases:
            base_cls = index.classes.get(base.rsplit(".", 1)[-1])
            if base_cls is not None:
                stack.append(base_cls)
    return chain


def _created_by(func: ast.AST, index: ModuleIndex) -> Optional[str]:
    """``"ndarray"`` for ``nd.array``-like imperative constructors, ``"parameter"`` for
    ``self.params.get(...)``/``gluon.Parameter(...)``, ``"block"`` for a Gluon layer
    (``nn.Dense(...)``), else ``None``."""
    if isinstance(func, ast.Attribute) and func.attr in ("get", "get_constant") \
            and isinstance(func.value, ast.Attribute) and func.value.attr == "params" \
            and isinstance(func.value.value, ast.Name) and func.value.value.id == "self":
        return "parameter"
    qual = _qualify(func, index)
    if not qual:
        return None
    last = qual.rsplit(".", 1)[-1]
    parts = K.strip_mxnet(qual)
    if last in ("Parameter", "Constant") and parts is not None and K.api_family(qual) is None:
        return "parameter"
    if parts and last[:1].isupper() and ("gluon" in parts[:-1] or parts[0] in ("nn", "rnn")):
        return "block"  # ``nn.Dense(...)``: its attributes with ``.data()`` are Parameters
    if K.api_family(qual) == "ndarray" and not qual.endswith("NDArray"):
        return "ndarray"
    return None


def _qualify(node: ast.AST, index: ModuleIndex) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in index.imports:
        return ""
    return ".".join([index.imports[node.id]] + list(reversed(parts)))
