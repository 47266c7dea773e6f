"""Automatic fixes: libcst codemods turned into text edits (ruff's model).

A fix builds the replacement node with libcst from the analysed snippet (so comments and
formatting inside the rewritten expression are kept exactly) and renders it as an
:class:`~.diagnostics.Edit` over the original node's range. The checker applies the edits of all
fixable findings that do not overlap, re-checks, and repeats until nothing changes; hence fixing
is idempotent.

- ``t.reshape(a, b)`` -> ``t.reshape((a, b))``: always safe (same meaning for NDArray).
- ``t += u`` -> ``t = t + u``: safe when no other name (nor the caller, nor ``self``, nor a
  container) still refers to the old tensor; otherwise offered as an *unsafe* fix, applied only
  with ``--unsafe-fixes``, because imperatively the other reference would stop seeing the update.
"""
from __future__ import annotations

from typing import Optional, Union

import libcst as cst

from .analysis.events import Event
from .analysis.values import Category, Kind, Value
from .diagnostics import Applicability, Edit, Fix, Location

_AUG_TO_BIN = {
    "AddAssign": (cst.Add, "+"), "SubtractAssign": (cst.Subtract, "-"),
    "MultiplyAssign": (cst.Multiply, "*"), "DivideAssign": (cst.Divide, "/"),
    "FloorDivideAssign": (cst.FloorDivide, "//"), "ModuloAssign": (cst.Modulo, "%"),
    "PowerAssign": (cst.Power, "**"), "MatrixMultiplyAssign": (cst.MatrixMultiply, "@"),
    "LeftShiftAssign": (cst.LeftShift, "<<"), "RightShiftAssign": (cst.RightShift, ">>"),
    "BitAndAssign": (cst.BitAnd, "&"), "BitOrAssign": (cst.BitOr, "|"), "BitXorAssign": (cst.BitXor, "^"),
}

_BIN_PRECEDENCE = {
    cst.BitOr: 6, cst.BitXor: 7, cst.BitAnd: 8, cst.LeftShift: 9, cst.RightShift: 9,
    cst.Add: 10, cst.Subtract: 10, cst.Multiply: 11, cst.MatrixMultiply: 11, cst.Divide: 11,
    cst.FloorDivide: 11, cst.Modulo: 11, cst.Power: 13,
}


def _precedence(node: cst.BaseExpression) -> int:
    """Python operator precedence of an expression (higher binds tighter; atoms are 15)."""
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
        return _BIN_PRECEDENCE.get(type(node.operator), 10)
    if isinstance(node, (cst.NamedExpr, cst.Yield)):
        return -1
    return 15


def _span_edit(event: Event, node: cst.CSTNode, content: str) -> Edit:
    row, col, end_row, end_col = event.site.span(node)
    return Edit(Location(row, col), Location(end_row, end_col), content)


def reshape_tuple_fix(event: Event) -> Optional[Fix]:
    """``t.reshape(a, b, reverse=r)`` -> ``t.reshape((a, b), reverse=r)``."""
    call = event.call
    if call is None:
        return None
    args = list(call.args)
    positional = [a for a in args if a.keyword is None]
    keywords = [a for a in args if a.keyword is not None]
    last = positional[-1]
    elements = [cst.Element(value=a.value, comma=a.comma) for a in positional[:-1]]
    elements.append(cst.Element(value=last.value, comma=last.comma if not keywords else cst.MaybeSentinel.DEFAULT))
    lpar = cst.LeftParen(whitespace_after=call.whitespace_before_args)
    packed = cst.Tuple(elements=elements, lpar=[lpar], rpar=[cst.RightParen()])
    first_arg = cst.Arg(value=packed, comma=last.comma if keywords else cst.MaybeSentinel.DEFAULT)
    new_call = call.with_changes(args=[first_arg] + keywords, whitespace_before_args=cst.SimpleWhitespace(""))
    content = event.site.module.code_for_node(new_call)
    return Fix("Pass the shape as one tuple", (_span_edit(event, call, content),), Applicability.SAFE)


def _aliases(name: str, value: Value, env: dict[str, Value]) -> list[str]:
    """Other names whose value is (or contains) the very same abstract tensor."""
    out = []
    for other, bound in env.items():
        if other == name:
            continue
        if bound is value:
            out.append(other)
        elif bound.kind is Kind.SEQ and (bound.item is value or any(e is value for e in bound.elements or ())):
            out.append(other)
    return out


def augassign_fix(event: Event) -> Optional[Fix]:
    """``t op= u`` -> ``t = t op u`` (parenthesising ``u`` only when precedence requires it)."""
    stmt = event.node
    if not isinstance(stmt, cst.AugAssign) or not isinstance(stmt.target, cst.Name):
        return None
    op_name = type(stmt.operator).__name__
    if op_name not in _AUG_TO_BIN:
        return None
    op_cls, symbol = _AUG_TO_BIN[op_name]
    right = stmt.value
    if _precedence(right) <= _BIN_PRECEDENCE[op_cls]:
        right = right.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    ws_before = stmt.operator.whitespace_before
    ws_after = stmt.operator.whitespace_after
    binop = cst.BinaryOperation(
        left=cst.Name(stmt.target.value),
        operator=op_cls(whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")),
        right=right,
    )
    assign = cst.Assign(
        targets=[cst.AssignTarget(target=stmt.target, whitespace_before_equal=ws_before, whitespace_after_equal=ws_after)],
        value=binop,
    )
    content = event.site.module.code_for_node(assign)
    value = event.value
    env = event.extra.get("env", {})
    reasons = []
    if value.origin is not None and value.origin.category is Category.INPUT:
        reasons.append("the caller still holds the input")
    aliases = _aliases(stmt.target.value, value, env)
    if aliases:
        reasons.append("`" + "`, `".join(sorted(aliases)) + "` still refer(s) to it")
    if event.extra.get("escaped"):
        reasons.append("it was stored on `self` or in a container")
    applicability = Applicability.UNSAFE if reasons else Applicability.SAFE
    message = f"Rewrite as `{stmt.target.value} = {stmt.target.value} {symbol} ...`"
    if reasons:
        message += " (unsafe: " + "; ".join(reasons) + ")"
    return Fix(message, (_span_edit(event, stmt, content),), applicability)
