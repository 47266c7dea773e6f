"""Automatic fixes: libcst codemods turned into text edits (ruff's model).

The analysis runs on CPython's ``ast`` (fast, positions included); a fix needs a tree that keeps
formatting and comments, so only when edits are actually wanted (``--fix``, ``--diff``, JSON
output) is the enclosing function parsed with libcst, the node at the finding's position found
through ``PositionProvider``, rebuilt with libcst and rendered as an :class:`~.diagnostics.Edit`
over that node's range. Everything inside the rewritten expression (comments, line breaks) is
reused verbatim. The checker applies non-overlapping edits, re-checks and repeats until nothing
changes; hence fixing is idempotent.

- ``t.reshape(a, b)`` -> ``t.reshape((a, b))``: always safe (same meaning for NDArray).
- ``t += u`` -> ``t = t + u``: safe when no other name (nor the caller, nor ``self``, nor a
  container) still refers to the old tensor or shares its memory (a view: ``v = t[0]``,
  ``t.reshape(..)``, or the tensor ``t`` itself is a view of); otherwise *unsafe* (only with
  ``--unsafe-fixes``), because imperatively the other reference would stop seeing the update.
"""
from __future__ import annotations

import ast
from typing import Any, Optional

from ..analysis.events import Event, Site
from ..analysis.values import Category, Kind, Value
from ..diagnostics import Applicability, Edit, Fix, Location

_OPS = {
    "Add": ("Add", "+"), "Sub": ("Subtract", "-"), "Mult": ("Multiply", "*"), "Div": ("Divide", "/"),
    "FloorDiv": ("FloorDivide", "//"), "Mod": ("Modulo", "%"), "Pow": ("Power", "**"),
    "MatMult": ("MatrixMultiply", "@"), "LShift": ("LeftShift", "<<"), "RShift": ("RightShift", ">>"),
    "BitAnd": ("BitAnd", "&"), "BitOr": ("BitOr", "|"), "BitXor": ("BitXor", "^"),
}
_PRECEDENCE = {
    "BitOr": 6, "BitXor": 7, "BitAnd": 8, "LeftShift": 9, "RightShift": 9, "Add": 10, "Subtract": 10,
    "Multiply": 11, "MatrixMultiply": 11, "Divide": 11, "FloorDivide": 11, "Modulo": 11, "Power": 13,
}


def _precedence(node: Any) -> int:
    """Python precedence of a libcst expression (higher binds tighter; atoms are 15)."""
    import libcst as cst

    if getattr(node, "lpar", None):
        return 15
    if isinstance(node, cst.Lambda):
        return 0
    if isinstance(node, cst.IfExp):
        return 1
    if isinstance(node, cst.BooleanOperation):
        return 2 if isinstance(node.operator, cst.Or) else 3
    if isinstance(node, cst.UnaryOperation):
        return 4 if isinstance(node.operator, cst.Not) else 12
    if isinstance(node, cst.Comparison):
        return 5
    if isinstance(node, cst.BinaryOperation):
        return _PRECEDENCE.get(type(node.operator).__name__, 10)
    if isinstance(node, (cst.NamedExpr, cst.Yield)):
        return -1
    return 15


def _positions(module: Any) -> Any:
    """libcst's syntactic positions of every node of ``module``.

    Runs the position provider's code generation directly: ``MetadataWrapper`` costs ~3 ms of
    introspection per call, which dominated fixes that each parse one small statement.
    """
    from libcst.metadata import PositionProvider

    provider = PositionProvider()
    gen = getattr(provider, "_gen_impl", None)
    if gen is None or not hasattr(provider, "_computed"):  # pragma: no cover - other libcst versions
        from libcst.metadata import MetadataWrapper

        return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    gen(module)
    return provider._computed


class _Snippet:
    """Some lines of a function parsed with libcst, indexed once for every fix computed in them.

    Fixes in a long method are many; each must cost time proportional to what it rewrites, not
    to the method (a 2,000-line method with 200 findings was quadratic). So a fix parses only the
    innermost statement around it (see :func:`_statement_lines`); node positions are bucketed by
    node type once per snippet, parents are resolved once, and an edit renders only the new node.
    """

    def __init__(self, lines: list[str], snippet: Any) -> None:
        self.lines = lines
        self.snippet = snippet
        positions = _positions(snippet.module)
        self.parents: dict[Any, Any] = {}
        todo = [snippet.module]
        while todo:
            node = todo.pop()
            for child in node.children:
                self.parents[child] = node
                todo.append(child)
        offset = snippet.line_offset
        self.by_kind: dict[type, list[tuple[Any, tuple[int, int], tuple[int, int]]]] = {}
        for node, rng in positions.items():
            entry = (node, (rng.start.line + offset, rng.start.column + 1), (rng.end.line + offset, rng.end.column + 1))
            self.by_kind.setdefault(type(node), []).append(entry)

    def nodes(self, kind: type) -> list[tuple[Any, tuple[int, int], tuple[int, int]]]:
        out = self.by_kind.get(kind)
        if out is not None:
            return out
        # a base class (``cst.BaseExpression``): every concrete type that is one
        return [e for k, entries in self.by_kind.items() if issubclass(k, kind) for e in entries]

    def covering(self, span: tuple[int, int, int, int], kind: type) -> Optional[tuple[Any, tuple[int, int], tuple[int, int]]]:
        """The smallest node of type ``kind`` covering ``span``."""
        row, col, end_row, end_col = span
        best = None
        for node, start, end in self.nodes(kind):
            if start <= (row, col) and (end_row, end_col) <= end:
                if best is None or (start, (-end[0], -end[1])) > (best[1], (-best[2][0], -best[2][1])):
                    best = (node, start, end)
        return best

    def indent_tokens(self, node: Any) -> list[str]:
        """The indentation libcst pushes while rendering the blocks around ``node``."""
        import libcst as cst

        module = self.snippet.module
        tokens: list[str] = []
        current = self.parents.get(node)
        while current is not None:
            if isinstance(current, cst.IndentedBlock):
                tokens.append(module.default_indent if current.indent is None else current.indent)
            current = self.parents.get(current)
        tokens.reverse()
        return tokens


_CACHE: dict[tuple, _Snippet] = {}
_BY_MODULE: dict[int, _Snippet] = {}
_STATEMENTS: dict[int, tuple[Any, dict[int, ast.stmt], dict[int, ast.stmt]]] = {}


def _remember(key: tuple, indexed: _Snippet) -> _Snippet:
    if len(_CACHE) > 256:
        _CACHE.clear()
        _BY_MODULE.clear()
    _CACHE[key] = indexed
    _BY_MODULE[id(indexed.snippet.module)] = indexed
    return indexed


def _statement_lines(fn: ast.AST, row: int, end_row: int) -> Optional[tuple[int, int]]:
    """First and last line of the innermost statement of ``fn`` spanning rows ``row..end_row``.

    One walk per function maps each line to the innermost statement on it (and each statement to
    its parent), so finding it is a few dictionary look-ups.
    """
    cached = _STATEMENTS.get(id(fn))
    if cached is None or cached[0] is not fn:
        innermost: dict[int, ast.stmt] = {}
        parent: dict[int, ast.stmt] = {}
        todo = [(child, None) for child in getattr(fn, "body", [])]
        while todo:  # breadth first: an inner statement overwrites its ancestors' lines
            stmt, up = todo.pop(0)
            if up is not None:
                parent[id(stmt)] = up
            for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
                innermost[line] = stmt
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                for child in getattr(stmt, name, None) or ():
                    if isinstance(child, ast.stmt):
                        todo.append((child, stmt))
                    else:  # except handlers, match cases: their bodies hold the statements
                        todo.extend((s, stmt) for s in getattr(child, "body", ()))
        if len(_STATEMENTS) > 64:
            _STATEMENTS.clear()
        cached = (fn, innermost, parent)
        _STATEMENTS[id(fn)] = cached
    _, innermost, parent = cached
    stmt = innermost.get(row)
    while stmt is not None and (stmt.end_lineno or stmt.lineno) < end_row:
        stmt = parent.get(id(stmt))
    if stmt is None:
        return None
    return stmt.lineno, stmt.end_lineno or stmt.lineno


def _parse_lines(lines: list[str], first: int, last: int) -> Optional[Any]:
    """Lines ``first..last`` (whole lines) as a libcst snippet, wrapped in ``if 1:`` when indented
    so every column stays valid; ``None`` if they are not a statement on their own
    (``else: x += 1``), and the caller falls back to the whole function."""
    import libcst as cst

    from ..source import Snippet

    body = "".join(lines[first - 1:last])
    if not body.endswith(("\n", "\r")):
        body += "\n"
    indented = body[:1] in (" ", "\t")
    try:
        module = cst.parse_module(("if 1:\n" if indented else "") + body)
    except Exception:
        return None
    return Snippet(module=module, function=None, line_offset=first - 1 - (1 if indented else 0))


def _locate(site: Site, span: tuple[int, int, int, int], kind: type) -> Optional[tuple[Any, Any, tuple]]:
    """The smallest libcst node of type ``kind`` covering ``span`` (a parenthesised node includes
    its parentheses in libcst but not in ast), with its snippet module and where it stands.

    Looks in the innermost statement around ``span`` first and in the whole function only when
    the node is not inside one statement."""
    from ..source import parse_function_snippet

    fn = site.function
    if fn is None:
        return None
    found = None
    lines_range = _statement_lines(fn.node, span[0], span[2])
    if lines_range is not None:
        key = (id(site.lines), "stmt", *lines_range)
        indexed = _CACHE.get(key)
        if indexed is None or indexed.lines is not site.lines:
            snippet = _parse_lines(site.lines, *lines_range)
            indexed = _remember(key, _Snippet(site.lines, snippet)) if snippet is not None else None
        if indexed is not None:
            found = indexed.covering(span, kind)
    if found is None:
        key = (id(site.lines), "fn", fn.first, fn.last)
        indexed = _CACHE.get(key)
        if indexed is None or indexed.lines is not site.lines:
            indexed = _remember(key, _Snippet(site.lines, parse_function_snippet(site.lines, fn.first, fn.last, fn.indent)))
        found = indexed.covering(span, kind)
    if found is None:
        return None
    node, start, end = found
    return indexed.snippet.module, node, (indexed.snippet.line_offset, start, end)


def _replace_edit(module: Any, old: Any, new: Any, where: tuple) -> Edit:
    """The text edit replacing ``old`` (located by :func:`_locate`) with ``new``.

    Only ``new`` is rendered, with the indentation of the blocks around ``old`` pushed first, so
    continuation lines inside it keep the enclosing block's indentation (libcst only knows it in
    context) and the cost does not grow with the size of the function.
    """
    from libcst._nodes.internal import CodegenState

    _, start, end = where
    indexed = _BY_MODULE.get(id(module))
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    if indexed is not None:
        state.indent_tokens.extend(indexed.indent_tokens(old))
    new._codegen(state)
    return Edit(Location(*start), Location(*end), "".join(state.tokens))


def reshape_tuple_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """``t.reshape(a, b, reverse=r)`` -> ``t.reshape((a, b), reverse=r)`` (safe)."""
    message = "Pass the shape as one tuple"
    if not with_edits:
        return Fix(message, (), Applicability.SAFE)
    import libcst as cst

    assert event.call is not None
    found = _locate(event.site, event.site.span(event.call), cst.Call)
    if found is None:
        return None
    module, call, where = found
    args = list(call.args)
    positional = [a for a in args if a.keyword is None and not a.star]
    keywords = [a for a in args if a.keyword is not None]
    if len(positional) < 2 or len(positional) + len(keywords) != len(args):
        return None
    last = positional[-1]
    elements = [cst.Element(value=a.value, comma=a.comma) for a in positional[:-1]]
    elements.append(cst.Element(value=last.value, comma=cst.MaybeSentinel.DEFAULT if keywords else last.comma))
    packed = cst.Tuple(elements=elements, lpar=[cst.LeftParen(whitespace_after=call.whitespace_before_args)],
                       rpar=[cst.RightParen()])
    first = cst.Arg(value=packed, comma=last.comma if keywords else cst.MaybeSentinel.DEFAULT)
    new_call = call.with_changes(args=[first] + keywords, whitespace_before_args=cst.SimpleWhitespace(""))
    return Fix(message, (_replace_edit(module, call, new_call, where),), Applicability.SAFE)


#: NDArray methods whose result may share memory with the receiver in MXNet 1.9.1 (``reshape`` is
#: ``MXNDArrayReshape``; ``detach`` shares the chunk; ``as_in_context``/``astype`` can return
#: ``self``); basic indexing (``t[0]``, ``t[1:]``) returns a view as well.
VIEW_METHODS = frozenset({"reshape", "detach", "as_in_context", "as_in_ctx", "astype", "_slice", "_at"})


def _is_view_node(node: Any) -> bool:
    if isinstance(node, ast.Subscript):
        return True
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in VIEW_METHODS)


def view_chain(value: Optional[Value]) -> list[Any]:
    """The origins ``value`` may be a view of (``t[0].reshape(..)`` -> ``t[0]``'s origin, ``t``'s;
    a row ``r`` of ``for r in t`` -> ``t``'s)."""
    out = []
    origin = value.origin if value is not None and value.kind is Kind.TENSOR else None
    while origin is not None and origin.base is not None and (
            origin.row_of_base or origin.category is Category.DERIVED and _is_view_node(origin.node)):
        origin = origin.base
        out.append(origin)
    return out


def _same_origin(a: Any, b: Any) -> bool:
    return a is b or (a is not None and b is not None and a == b)


def _aliases(name: str, value: Value, env: dict[str, Value]) -> list[str]:
    """Other names whose value is (or contains) the very same abstract tensor, or may share its
    memory: a view of it (``v = t[0]``), or a tensor it is a view of (``t`` for ``v``)."""
    out = []
    mine = value.candidates() if value is not None else ()
    bases = [o for v in mine for o in view_chain(v)]
    for other, bound in env.items():
        if other == name:
            continue
        theirs = bound.candidates()
        if any(b is v for b in theirs for v in mine) or (bound.kind is Kind.SEQ and any(
                bound.item is v or any(e is v for e in bound.elements or ()) for v in mine)):
            out.append(other)
        elif bound.kind in (Kind.TENSOR, Kind.MAYBE) and any(v.origin is not None for v in mine) and (
                any(_same_origin(o, v.origin) for b in theirs for o in view_chain(b) for v in mine)
                or any(_same_origin(b.origin, o) for b in theirs for o in bases)):
            out.append(other)
    return out


_READS: dict[int, tuple[Any, list[tuple[int, int]], dict[str, list[tuple[int, int]]]]] = {}


def _reads_of(fn: ast.AST) -> tuple[list[tuple[int, int]], dict[str, list[tuple[int, int]]]]:
    """Loop line ranges and name reads of ``fn``, computed once per function (not per finding)."""
    cached = _READS.get(id(fn))
    if cached is not None and cached[0] is fn:
        return cached[1], cached[2]
    loops: list[tuple[int, int]] = []
    reads: dict[str, list[tuple[int, int]]] = {}
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            loops.append((node.lineno, node.end_lineno or node.lineno))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads.setdefault(node.id, []).append((node.lineno, node.col_offset))
    if len(_READS) > 64:
        _READS.clear()
    _READS[id(fn)] = (fn, loops, reads)
    return loops, reads


def _live_after(names: list[str], stmt: ast.AugAssign, site: Site) -> list[str]:
    """Those of ``names`` read after ``stmt`` in its function (or anywhere, inside a loop).

    An alias nobody reads again cannot observe the difference between updating in place and
    rebinding, so it does not make the rewrite unsafe.
    """
    fn = site.function.node if site.function is not None else None
    if fn is None or not names:
        return names
    loops, reads = _reads_of(fn)
    in_loop = any(first <= stmt.lineno <= last for first, last in loops)
    after = (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0)
    return [n for n in names if any(in_loop or pos > after for pos in reads.get(n, ()))]


def augassign_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """``t op= u`` -> ``t = t op u``, parenthesising ``u`` only where precedence requires it."""
    stmt = event.node
    if not isinstance(stmt, ast.AugAssign) or not isinstance(stmt.target, ast.Name):
        return None
    op = _OPS.get(type(stmt.op).__name__)
    if op is None:
        return None
    cst_op, symbol = op
    name = stmt.target.id
    value = event.value
    reasons = []
    if value is not None and value.origin is not None and (
            value.origin.category is Category.INPUT
            or any(o.category is Category.INPUT for o in view_chain(value))):
        reasons.append("the caller still holds the input")
    aliases = _aliases(name, value, event.extra.get("env", {})) if value is not None else []
    aliases = _live_after(aliases, stmt, event.site)
    if aliases:
        reasons.append("`" + "`, `".join(sorted(aliases)) + "` still refer(s) to it")
    if event.extra.get("escaped"):
        reasons.append("it was stored on `self` or in a container")
    applicability = Applicability.UNSAFE if reasons else Applicability.SAFE
    # another live reference would stop seeing the update: the results may change
    changes = bool(aliases) or bool(event.extra.get("escaped"))
    message = f"Rewrite as `{name} = {name} {symbol} ...`"
    if reasons:
        message += " (unsafe: " + "; ".join(reasons) + ")"
    if not with_edits:
        return Fix(message, (), applicability, changes)
    import libcst as cst

    found = _locate(event.site, event.site.span(stmt), cst.AugAssign)
    if found is None:
        return None
    module, node, where = found
    operator_cls = getattr(cst, cst_op)
    right = node.value
    if _precedence(right) <= _PRECEDENCE[cst_op]:
        right = right.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    binop = cst.BinaryOperation(
        left=cst.Name(name),
        operator=operator_cls(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")),
        right=right,
    )
    assign = cst.Assign(
        targets=[cst.AssignTarget(target=node.target, whitespace_before_equal=node.operator.whitespace_before,
                                  whitespace_after_equal=node.operator.whitespace_after)],
        value=binop,
    )
    return Fix(message, (_replace_edit(module, node, assign, where),), applicability, changes)
