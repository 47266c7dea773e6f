"""HY001 / HY009: a tensor's concrete value that only feeds tensor arithmetic stays a tensor.

``x * s.asscalar()``, ``x / float(s.asscalar())``: imperatively the number is read out of
``s`` (which must hold exactly one element) and applied to every element of ``x``; the result is a
tensor shaped like ``x``. The same, written with ``F``, keeps ``s`` in the graph:

* ``x / s.asscalar()``  -> ``F.broadcast_div(x, F.BlockGrad(F.reshape(s, shape=(1,))))``

``reshape`` to ``(1,)`` demands one element, as ``asscalar`` does, and broadcasts against
any ``x``; ``BlockGrad`` keeps autograd as it was: a Python number carried no gradient, so neither
does the converted value. Same for ``+``, ``-``, ``*``, ``**`` (either side).

``np.sum(s)``, ``np.max(s)``, ``np.min(s)`` (``amax``, ``amin``) of an NDArray are ``s.sum()`` ...:
NumPy hands the reduction to the array's own method, so they are already MXNet reductions with
shape ``(1,)`` (gradient included) and become ``F.sum(s)`` ...; next to a tensor the arithmetic
becomes the ``broadcast_*`` operator, as NDArray arithmetic is (``Symbol`` arithmetic is not).

Through a name (``c = float(s.asscalar())``, then ``x - c``) the same conversion applies at every
read when each read is an operand of such arithmetic (``convert/shapes.py`` follows the number:
the analysis marks it as read from ``s``); the binding is dropped. A read used otherwise
(``c * 2``: numpy scalar arithmetic, printed, compared) keeps the finding.

A read whose value is discarded (``t.asnumpy()`` as a statement: the seed chapter's first
exercise) computes nothing the block uses: the statement is dropped.

Everything else keeps the finding: ``s.item()`` and ``float(s)`` (MXNet 1.9.1's NDArray has no
``item`` and no ``__float__``: they fail imperatively, so there is nothing to preserve); the value leaves the graph (printed, stored, compared in an
``if``, passed to NumPy functions without an ``F`` twin, combined with Python numbers only, so
the result would change type), or the other operand is not certainly a tensor. ``np.mean(s)`` is
an error in MXNet 1.9.1 (``NDArray.mean`` has no ``dtype``), so there is nothing to preserve.
"""
from __future__ import annotations

import ast
from typing import Optional

from ..analysis.events import Event, EventKind
from ..diagnostics import Applicability, Edit, Fix, Location
from .fixes import _locate, _replace_edit
from .indexing import f_name

_BROADCAST = {"Add": "broadcast_add", "Sub": "broadcast_sub", "Mult": "broadcast_mul", "Div": "broadcast_div",
              "Pow": "broadcast_power"}
_NUMPY_REDUCTIONS = {"sum": "sum", "max": "max", "min": "min", "amax": "max", "amin": "min"}


def _concrete(event: Event) -> Optional[tuple[ast.Call, ast.expr, Optional[str]]]:
    """(the expression that reads a value, the tensor it reads, the ``F`` reduction or ``None``)."""
    node = event.node
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    if event.kind is EventKind.METHOD_CALL and event.name == "asscalar" and not node.args \
            and isinstance(node.func, ast.Attribute):
        wrapper = _parent_call(event, node)  # ``float(s.asscalar())`` reads the same number
        if wrapper is not None and isinstance(wrapper.func, ast.Name) and wrapper.func.id == "float" \
                and len(wrapper.args) == 1 and not wrapper.keywords:
            return wrapper, node.func.value, None
        return node, node.func.value, None
    if event.kind is EventKind.CALL and event.name.startswith("numpy.") and len(node.args) == 1:
        reduction = _NUMPY_REDUCTIONS.get(event.name[len("numpy."):])
        if reduction is not None:
            return node, node.args[0], reduction
    return None


def _parent_call(event: Event, node: ast.AST) -> Optional[ast.Call]:
    fn = event.site.function.node if event.site.function is not None else None
    for parent in ast.walk(fn) if fn is not None else ():
        if isinstance(parent, ast.Call) and node in parent.args:
            return parent
    return None


def _parent_binop(event: Event, node: ast.AST) -> Optional[ast.BinOp]:
    fn = event.site.function.node if event.site.function is not None else None
    if fn is None:
        return None
    for parent in ast.walk(fn):
        if isinstance(parent, ast.BinOp) and (parent.left is node or parent.right is node):
            return parent
    return None


def discarded_read_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """``t.asnumpy()`` / ``t.asscalar()`` as a statement of its own: the value goes nowhere, so the
    statement is dropped (``pass`` if it was alone in its block; a comment on its line is kept)."""
    node = event.node
    fn = event.site.function.node if event.site.function is not None else None
    if fn is None or event.kind is not EventKind.METHOD_CALL or event.name not in ("asnumpy", "asscalar") \
            or not isinstance(node, ast.Call) or node.args or node.keywords:
        return None
    owner = None
    for parent in ast.walk(fn):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(isinstance(st, ast.Expr) and st.value is node for st in block):
                owner = block
    if owner is None:
        return None
    stmt = next(st for st in owner if isinstance(st, ast.Expr) and st.value is node)
    row, col, end_row, end_col = event.site.span(stmt)
    lines = event.site.lines
    before, after = lines[row - 1][:col - 1], lines[end_row - 1][end_col - 1:]
    rest = after.strip()
    if before.strip() or (rest and not rest.startswith("#")):
        return None  # shares its line with other code (``a; t.asnumpy()``)
    message = "Drop the statement: its value is never used"
    if not with_edits:
        return Fix(message, (), Applicability.SAFE)
    keep = ("pass  " + rest if rest else "pass") if len(owner) == 1 else rest
    if keep:
        edit = Edit(Location(row, col), Location(end_row, len(lines[end_row - 1].rstrip("\r\n")) + 1), keep)
    else:
        edit = Edit(Location(row, 1), Location(end_row + 1, 1), "")
    return Fix(message, (edit,), Applicability.SAFE)


def value_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """The HY001/HY009 fix (see the module doc)."""
    discarded = discarded_read_fix(event, with_edits)
    if discarded is not None:
        return discarded
    if event.site.np_mode:
        return np_value_fix(event, with_edits)
    found = _concrete(event)
    F = f_name(event.site)
    if found is None or F is None:
        return None
    call, tensor_node, reduction = found
    read = event.value_of(tensor_node)
    if read is None or not read.is_tensor:
        return None
    binop = _parent_binop(event, call)
    if binop is None:
        # ``s = t.asscalar()`` read later only next to tensors: the same conversion at every read,
        # the binding dropped (convert/shapes.py follows the number through the names)
        from .shapes import plan_fix

        return plan_fix(event, with_edits)
    if type(binop.op).__name__ not in _BROADCAST:
        return None
    other = binop.right if binop.left is call else binop.left
    other_value = event.value_of(other)
    if other_value is None or not other_value.is_tensor:
        return None
    message = f"Keep the value a tensor: `{F}.{_BROADCAST[type(binop.op).__name__]}`"
    if not with_edits:
        return Fix(message, (), Applicability.SAFE)
    import libcst as cst

    located = _locate(event.site, event.site.span(binop), cst.BinaryOperation)
    if located is None:
        return None
    module, node, where = located
    left, right = module.code_for_node(node.left), module.code_for_node(node.right)
    inner_call = node.left if binop.left is call else node.right
    inner_text = _tensor_text(module, inner_call, reduction, F)
    if inner_text is None:
        return None
    if binop.left is call:
        left = inner_text
    else:
        right = inner_text
    text = f"{F}.{_BROADCAST[type(binop.op).__name__]}({left}, {right})"
    new = cst.parse_expression(text)  # a call: atomic, needs no parentheses
    return Fix(message, (_replace_edit(module, node, new, where),), Applicability.SAFE)


def _tensor_text(module, call, reduction: Optional[str], F: str) -> Optional[str]:
    """The ``F`` expression that replaces the concrete read ``call`` (a libcst Call)."""
    import libcst as cst

    if not isinstance(call, cst.Call):
        return None
    if isinstance(call.func, cst.Name) and call.func.value == "float" and len(call.args) == 1:
        call = call.args[0].value                                  # float(t.asscalar())
        if not isinstance(call, cst.Call):
            return None
    if isinstance(call.func, cst.Attribute) and not call.args:   # t.asscalar()
        tensor = module.code_for_node(call.func.value)
    elif len(call.args) == 1:
        tensor = module.code_for_node(call.args[0].value)
    else:
        return None
    if reduction is not None:
        return f"{F}.{reduction}({tensor})"
    return f"{F}.BlockGrad({F}.reshape({tensor}, shape=(1,)))"


def np_value_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """np mode: ``x * float(s)`` / ``x * s.item()`` (an np-mode ndarray has both) ->
    ``x * F.np.reshape(F.BlockGrad(s.as_nd_ndarray()).as_np_ndarray(), ())``: ``reshape`` to ``()``
    demands one element as ``float`` does, and the np operator broadcasts the 0-d value as it did
    the number. MXNet 1.9.1's np interface has no stop-gradient, so the value passes through the
    legacy ``BlockGrad`` (``as_nd_ndarray`` there and back: no graph nodes), keeping autograd as it
    was (a Python number carried no gradient). Unsafe: ``s`` is assumed to have the other operand's
    dtype (np operators promote a float64 ``s``; a Python float did not)."""
    node = event.node
    F = f_name(event.site)
    if F is None or not isinstance(node, ast.Call) or node.keywords:
        return None
    if event.kind is EventKind.CALL and event.name == "builtins.float" and len(node.args) == 1:
        tensor_node = node.args[0]
    elif event.kind is EventKind.METHOD_CALL and event.name == "item" and not node.args \
            and isinstance(node.func, ast.Attribute):
        tensor_node = node.func.value
    else:
        return None
    read = event.value_of(tensor_node)
    binop = _parent_binop(event, node)
    if read is None or not read.is_tensor or binop is None or type(binop.op).__name__ not in _BROADCAST:
        return None
    other = binop.right if binop.left is node else binop.left
    other_value = event.value_of(other)
    if other_value is None or not other_value.is_tensor:
        return None
    message = (f"Keep the value a tensor out of autograd: `{F}.np.reshape({F}.BlockGrad(...).as_np_ndarray(), ())` "
               f"(unsafe: assumes it has the other operand's dtype)")
    if not with_edits:
        return Fix(message, (), Applicability.UNSAFE)
    import libcst as cst

    located = _locate(event.site, event.site.span(node), cst.Call)
    if located is None:
        return None
    module, ref, where = located
    target = ref.args[0].value if isinstance(ref.func, cst.Name) else ref.func.value  # float(s) / s.item()
    tensor = module.code_for_node(target)
    if not isinstance(target, (cst.Name, cst.Call, cst.Attribute, cst.Subscript)):
        tensor = f"({tensor})"
    new = cst.parse_expression(f"{F}.np.reshape({F}.BlockGrad({tensor}.as_nd_ndarray()).as_np_ndarray(), ())")
    return Fix(message, (_replace_edit(module, ref, new.with_changes(lpar=ref.lpar, rpar=ref.rpar), where),),
               Applicability.UNSAFE)
