"""HY013: ``a <op> b`` of two tensors -> ``F.broadcast_<op>(a, b)``.

Exact in both modes, hence always safe: between two NDArrays MXNet 1.9.1's Python operators *are*
the broadcasting operators (``NDArray.__mul__`` is ``multiply``, which calls ``broadcast_mul``
for an NDArray operand; likewise ``+ - / % **`` and ``== != < <= > >=``: see
``python/mxnet/ndarray/ndarray.py``, ``_ufunc_helper``), so imperatively the rewrite calls the very
operator the original called; and on equal shapes the broadcasting operators compute what Symbol's
elementwise ones (``elemwise_mul``, ``_equal``, ...) compute, so the graph is the original's
wherever the original hybridizes, and also where it did not.

Only written where both operands are certainly tensors (a number would need the scalar operator)
and the function has an ``F`` (``hybrid_forward``'s, or a helper's parameter named ``F``);
otherwise the finding stays (and ``hybridize transpile`` refuses the module rather than emit a
graph that fails). One comparison operator per expression (``a < b < c`` is a truth-value test:
HY004).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..analysis.broadcast import BROADCAST_OPS
from ..analysis.events import Event
from ..diagnostics import Applicability, Fix
from .fixes import _locate, _replace_edit
from .indexing import f_name


def broadcast_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """The HY013 fix for one ``BINARY_OP`` event (see the module docstring)."""
    op = BROADCAST_OPS.get(event.construct)
    F = f_name(event.site)
    node = event.node
    if op is None or F is None or not isinstance(node, (ast.BinOp, ast.Compare)):
        return None
    if isinstance(node, ast.Compare) and len(node.ops) != 1:
        return None
    message = f"Call `{F}.{op}`: what NDArray's operator computes, in both modes"
    if not with_edits:
        return Fix(message, (), Applicability.SAFE)
    import libcst as cst

    kind = cst.BinaryOperation if isinstance(node, ast.BinOp) else cst.Comparison
    found = _locate(event.site, event.site.span(node), kind)
    if found is None:
        return None
    module, old, where = found
    if isinstance(old, cst.BinaryOperation):
        left, right = old.left, old.right
    else:
        if len(old.comparisons) != 1:
            return None
        left, right = old.left, old.comparisons[0].comparator
    call = cst.Call(func=cst.parse_expression(f"{F}.{op}"), args=[
        cst.Arg(value=_bare(left), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
        cst.Arg(value=_bare(right))])
    parens = _bare(old)  # a call needs no parentheses of its own
    call = call.with_changes(lpar=parens.lpar, rpar=parens.rpar)
    return Fix(message, (_replace_edit(module, old, call, where),), Applicability.SAFE)


def _bare(node):
    """An operand without the parentheses its operator needed (an argument needs none), unless
    they hold a comment or the expression needs them anyway."""
    import libcst as cst

    if not getattr(node, "lpar", None) or isinstance(node, (cst.Yield, cst.GeneratorExp, cst.NamedExpr)):
        return node
    if len(node.lpar) != 1:
        return node
    text = cst.Module(body=[]).code_for_node(node)
    inner = cst.Module(body=[]).code_for_node(node.with_changes(lpar=[], rpar=[]))
    if "#" in text.replace(inner, ""):
        return node
    return node.with_changes(lpar=[], rpar=[])
