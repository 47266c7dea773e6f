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
  container) still refers to the old tensor; otherwise *unsafe* (only with ``--unsafe-fixes``),
  because imperatively the other reference would stop seeing the update.
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


_CACHE: dict[tuple, tuple] = {}


def _locate(site: Site, span: tuple[int, int, int, int], kind: type) -> Optional[tuple[Any, Any, int]]:
    """The smallest libcst node of type ``kind`` covering ``span`` (a parenthesised node includes
    its parentheses in libcst but not in ast), with its snippet module and line offset."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    from ..source import parse_function_snippet

    fn = site.function
    if fn is None:
        return None
    key = (id(site.lines), fn.first, fn.last)
    cached = _CACHE.get(key)
    if cached is None or cached[0] is not site.lines:
        snippet = parse_function_snippet(site.lines, fn.first, fn.last, fn.indent)
        positions = MetadataWrapper(snippet.module, unsafe_skip_copy=True).resolve(PositionProvider)
        cached = (site.lines, snippet, positions)
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[key] = cached
    _, snippet, positions = cached
    row, col, end_row, end_col = span
    best = None
    for node, rng in positions.items():
        if not isinstance(node, kind):
            continue
        start = (rng.start.line + snippet.line_offset, rng.start.column + 1)
        end = (rng.end.line + snippet.line_offset, rng.end.column + 1)
        if start <= (row, col) and (end_row, end_col) <= end:
            if best is None or (start, (-end[0], -end[1])) > (best[1], (-best[2][0], -best[2][1])):
                best = (node, start, end)
    if best is None:
        return None
    node, start, end = best
    return snippet.module, node, (snippet.line_offset, start, end)


def _replace_edit(module: Any, old: Any, new: Any, where: tuple) -> Edit:
    """The minimal text edit turning ``module`` into ``module`` with ``old`` replaced by ``new``.

    Rendering the whole snippet (not just the new node) keeps continuation-line indentation,
    which libcst only knows in the context of the enclosing block.
    """
    before = module.code
    after = module.deep_replace(old, new).code
    prefix = 0
    limit = min(len(before), len(after))
    while prefix < limit and before[prefix] == after[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and before[-1 - suffix] == after[-1 - suffix]:
        suffix += 1
    # Widen the edit to the whole replaced node, so it reads as a statement/expression
    # (``y = y + 1``, not ``= y +``) in JSON output and diffs.
    line_offset, (start_row, start_col), (end_row, end_col) = where
    starts = [0]
    for line in before.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    node_start = starts[start_row - line_offset - 1] + start_col - 1
    node_end = starts[end_row - line_offset - 1] + end_col - 1
    prefix = min(prefix, node_start)
    suffix = min(suffix, len(before) - node_end)

    def location(offset: int) -> Location:
        head = before[:offset]
        row = head.count("\n") + 1
        col = offset - (head.rfind("\n") + 1) + 1
        return Location(row + line_offset, col)

    return Edit(location(prefix), location(len(before) - suffix), after[prefix:len(after) - suffix])


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


def _aliases(name: str, value: Value, env: dict[str, Value]) -> list[str]:
    """Other names whose value is (or contains) the very same abstract tensor."""
    out = []
    for other, bound in env.items():
        if other == name:
            continue
        if bound is value or (bound.kind is Kind.SEQ and (bound.item is value or any(e is value for e in bound.elements or ()))):
            out.append(other)
    return out


def _live_after(names: list[str], stmt: ast.AugAssign, site: Site) -> list[str]:
    """Those of ``names`` read after ``stmt`` in its function (or anywhere, inside a loop).

    An alias nobody reads again cannot observe the difference between updating in place and
    rebinding, so it does not make the rewrite unsafe.
    """
    fn = site.function.node if site.function is not None else None
    if fn is None or not names:
        return names
    in_loop = any(isinstance(node, (ast.For, ast.While, ast.AsyncFor)) and
                  node.lineno <= stmt.lineno <= (node.end_lineno or node.lineno)
                  for node in ast.walk(fn))
    wanted = set(names)
    live = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and node.id in wanted and isinstance(node.ctx, ast.Load):
            if in_loop or (node.lineno, node.col_offset) > (stmt.end_lineno or stmt.lineno, stmt.end_col_offset or 0):
                live.add(node.id)
    return [n for n in names if n in live]


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
    if value is not None and value.origin is not None and value.origin.category is Category.INPUT:
        reasons.append("the caller still holds the input")
    aliases = _aliases(name, value, event.extra.get("env", {})) if value is not None else []
    aliases = _live_after(aliases, stmt, event.site)
    if aliases:
        reasons.append("`" + "`, `".join(sorted(aliases)) + "` still refer(s) to it")
    if event.extra.get("escaped"):
        reasons.append("it was stored on `self` or in a container")
    applicability = Applicability.UNSAFE if reasons else Applicability.SAFE
    message = f"Rewrite as `{name} = {name} {symbol} ...`"
    if reasons:
        message += " (unsafe: " + "; ".join(reasons) + ")"
    if not with_edits:
        return Fix(message, (), applicability)
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
    return Fix(message, (_replace_edit(module, node, assign, where),), applicability)
