"""HY003: item and slice assignment into a tensor (``y[0] = 1``, ``y[:] = v``, ``y[:, 0] += 1``) as a
functional update that MXNet 1.9.1's ``F`` has on both NDArray and Symbol, and that hybridizes.

MXNet's ``NDArray.__setitem__`` with a basic key (integers and slices) works on (begin, end, step)
tuples, an integer ``i`` being ``i:i+1``. Its functional twins ``_slice_assign`` and
``_slice_assign_scalar`` exist in ``F._internal`` but register no gradient, and a hybridized
Gluon block builds its backward graph up front: a graph that uses them on the data path cannot
even be created (``Operator _slice_assign_scalar is non-differentiable``). So the region is a
*mask* (that operator on zeros, behind ``F.BlockGrad``: no gradient needed) and the update is an
``F.where`` (gradients flow as for the in-place update: not into overwritten elements):

* ``y[k] = 3``   -> ``y = F.where(M, F.ones_like(y) * 3, y)``
* ``y[k] += 3``  -> ``y = F.where(M, y + 3, y)`` (``-``, ``*``; ``/`` by a non-zero literal)
  with ``M = F.BlockGrad(F._internal._slice_assign_scalar(F.zeros_like(y), scalar=1, begin=B, end=E))``;
* the whole array (``y[:]``, ``y[...]``) needs no mask: ``y[:] = 3`` -> ``y = F.ones_like(y) * 3``,
  ``y[:] += 3`` -> ``y = y + 3``, and a tensor value is broadcast exactly as NDArray assignment
  broadcasts it: ``y[:] = v`` -> ``y = F.reshape_like(F.broadcast_add(F.zeros_like(y), v), y)``,
  ``y[:] += v`` -> ``y = F.reshape_like(F.broadcast_add(y, v), y)`` (``-``, ``*``, ``/``).

Not converted (the finding stays): a *tensor* written into part of the array (placing it needs
either the non-differentiable ``_slice_assign`` or the shapes); keys with names, tensors, ``None``
or ``...`` next to other components; values that are neither a number literal nor certainly a
tensor (a Python variable may hold a list or an array); a container that is not a plain name
(``self.buf[0] = 1``); chained or unpacking assignments; ``**=``, ``//=``, ``%=``.

Applicability: the NDArray was updated in place; the conversion rebinds the name. Unsafe when
anything else may see the old array: the caller (an input, or a view of one), another live name
or a view of it, ``self`` or a container (the same test as HY002's ``t += u``).
"""
from __future__ import annotations

import ast
from typing import Optional

from ..analysis.events import Event
from ..analysis.values import Category, Kind
from ..diagnostics import Applicability, Fix
from .fixes import _aliases, _live_after, _locate, _replace_edit, view_chain
from .indexing import _Slice, _end_after, _tuple, f_name, parse_key

_SCALAR_OPS = {"Add": "+", "Sub": "-", "Mult": "*", "Div": "/"}
_BROADCAST_OPS = {"Add": "broadcast_add", "Sub": "broadcast_sub", "Mult": "broadcast_mul", "Div": "broadcast_div"}


def number_literal(node: ast.expr) -> bool:
    """``3``, ``-0.5``, ``1e-3`` (not ``True``)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return number_literal(node.operand)
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def region(key: list) -> Optional[tuple[list, list, list, list[int]]]:
    """(begin, end, step, integer axes) of a basic key, or ``None`` if it is not one we convert."""
    if key == [Ellipsis]:
        return [None], [None], [None], []
    if Ellipsis in key:
        return None
    begin, end, step, ints = [], [], [], []
    for axis, c in enumerate(key):
        if isinstance(c, int):
            begin.append(c), end.append(_end_after(c)), step.append(None)
            ints.append(axis)
        else:
            assert isinstance(c, _Slice)
            begin.append(c.start), end.append(c.stop), step.append(c.step)
    return begin, end, step, ints


def _statement(event: Event) -> Optional[ast.stmt]:
    fn = event.site.function.node if event.site.function is not None else None
    if fn is None:
        return None
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and node.targets[0] is event.node:
            return node
        if isinstance(node, ast.AugAssign) and node.target is event.node:
            return node
    return None


def assignment_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """The HY003 fix (see the module doc)."""
    target = event.node
    stmt = _statement(event)
    F = f_name(event.site)
    rhs = event.extra.get("rhs")
    if stmt is None or F is None or rhs is None or not isinstance(target, ast.Subscript) \
            or not isinstance(target.value, ast.Name):
        return None
    key = parse_key(target.slice)
    spans = region(key) if key is not None else None
    if spans is None:
        return None
    value_node = stmt.value
    scalar = number_literal(value_node)
    op = type(stmt.op).__name__ if isinstance(stmt, ast.AugAssign) else None
    whole = key == [Ellipsis] or all(isinstance(c, _Slice) and c.whole for c in key)
    np_mode = event.site.np_mode
    if scalar:
        if op is not None and (op not in _SCALAR_OPS or (op == "Div" and ast.literal_eval(value_node) == 0)):
            return None
    elif rhs.kind is not Kind.TENSOR or (op is not None and op not in _BROADCAST_OPS):
        return None
    elif not whole and not (np_mode and spans[3] == list(range(len(spans[3])))):
        return None  # (np mode: a tensor into a region whose integer keys lead: it aligns to the right)
    if np_mode and not whole and _np_pieces(spans) is None:
        return None
    name = target.value.id
    value = event.value
    reasons = []
    if value is not None and value.origin is not None and (
            value.origin.category is Category.INPUT or any(o.category is Category.INPUT for o in view_chain(value))):
        reasons.append("the caller still holds the input")
    aliases = _live_after(_aliases(name, value, event.extra.get("env", {})) if value is not None else [], stmt,
                          event.site)
    if aliases:
        reasons.append("`" + "`, `".join(sorted(aliases)) + "` still refer(s) to it")
    if event.extra.get("escaped"):
        reasons.append("it was stored on `self` or in a container")
    applicability = Applicability.UNSAFE if reasons else Applicability.SAFE
    changes = bool(aliases) or bool(event.extra.get("escaped"))  # another live reference saw the update
    how = (f"`{F}.np.concatenate` of the region and the rest" if np_mode and not whole else
           "the whole array" if np_mode else f"`{F}.where` over the region")
    message = f"Rebind `{name}` to a functional update ({how})"
    if reasons:
        message += " (unsafe: " + "; ".join(reasons) + ")"
    if not with_edits:
        return Fix(message, (), applicability, changes)
    import libcst as cst

    kind = cst.AugAssign if op is not None else cst.Assign
    found = _locate(event.site, event.site.span(stmt), kind)
    if found is None:
        return None
    module, node, where = found
    v = module.code_for_node(node.value)  # a call argument, or a number after an operator
    if np_mode:
        new = _np_update(F, name, spans, whole, scalar, op, v if scalar or _atomic(value_node) else f"({v})")
        replacement = cst.parse_statement(f"{name} = {new}\n").body[0]
        return Fix(message, (_replace_edit(module, node, replacement, where),), applicability, changes)
    begin, end, step, _ = spans
    bounds = f"begin={_tuple(begin)}, end={_tuple(end)}"
    if any(s is not None for s in step):
        bounds += f", step={_tuple(step)}"
    if not scalar:
        new = (f"{F}.reshape_like({F}.broadcast_add({F}.zeros_like({name}), {v}), {name})" if op is None
               else f"{F}.reshape_like({F}.{_BROADCAST_OPS[op]}({name}, {v}), {name})")
    else:
        update = f"{F}.ones_like({name}) * {v}" if op is None else f"{name} {_SCALAR_OPS[op]} {v}"
        mask = f"{F}.BlockGrad({F}._internal._slice_assign_scalar({F}.zeros_like({name}), scalar=1, {bounds}))"
        new = update if whole else f"{F}.where({mask}, {update}, {name})"
    text = f"{name} = {new}"
    replacement = cst.parse_statement(text + "\n").body[0]
    return Fix(message, (_replace_edit(module, node, replacement, where),), applicability, changes)


# ---------------------------------------------------------------------------------------------
# np mode (``npx.set_np()``): MXNet 1.9.1's ``F.np``/``F.npx`` have no differentiable slice
# assignment (``F.np._internal.slice_assign*`` register no gradient) and no ``BlockGrad``, but an
# np-mode Symbol slices like NumPy; so the array is rebuilt from its pieces along each written axis:
#
# * ``y[1] = 3``      -> ``y = F.np.concatenate([y[:1], F.np.full_like(y[1:2], 3), y[2:]], axis=0)``
# * ``y[:, :2] += 1`` -> ``y = F.np.concatenate([y[:, :2] + 1, y[:, 2:]], axis=1)``
# * ``y[:, 1:] = t``  -> the region ``F.npx.reshape_like(F.np.zeros_like(y[:, 1:]) + t, y[:, 1:])``
#   (``t`` broadcast to the region, as NumPy assignment does: aligned to the right, so integer keys
#   may only lead, ``y[0] = t``, ``y[0, 1:] = t``, where the region's kept axes are the last ones)
#
# (several written axes nest: the region of the first axis is rebuilt along the next). The whole
# array: ``y[:] = 3`` -> ``F.np.full_like(y, 3)``, ``y[:] = t`` -> ``F.npx.reshape_like(F.np.zeros_like(y)
# + t, y)``, ``y[:] += t`` -> ``F.npx.reshape_like(y + t, y)``. Keys with steps, tensors written
# under an integer key after a slice (``y[:, 0] = t``: placing them needs the rank), and bounds whose
# pieces could overlap
# (a non-negative start with a negative stop: ``y[1:-1]``) keep the finding.


def _atomic(node: ast.expr) -> bool:
    return isinstance(node, (ast.Name, ast.Call, ast.Attribute, ast.Subscript, ast.Constant))


def _np_pieces(spans: tuple[list, list, list, list[int]]) -> Optional[list[tuple[int, Optional[int], Optional[int]]]]:
    """(axis, begin, end) of every written axis, or ``None`` when the pieces may not tile the axis."""
    begin, end, step, _ = spans
    out = []
    for axis, (b, e, st) in enumerate(zip(begin, end, step)):
        if st not in (None, 1):
            return None
        if b is None and e is None:
            continue
        if b is not None and e is not None and ((b < 0) != (e < 0) or e <= b):
            return None
        out.append((axis, b, e))
    return out


def _np_update(F: str, name: str, spans: tuple, whole: bool, scalar: bool, op: Optional[str], v: str) -> str:
    """The np-mode value of ``name`` after the assignment (see above)."""
    def value(region: str) -> str:
        if scalar:
            return f"{F}.np.full_like({region}, {v})" if op is None else f"{region} {_SCALAR_OPS[op]} {v}"
        moved = f"{F}.np.zeros_like({region}) + {v}" if op is None else f"{region} {_SCALAR_OPS[op]} {v}"
        return f"{F}.npx.reshape_like({moved}, {region})"

    if whole:
        return value(name)
    pieces = _np_pieces(spans)
    assert pieces is not None

    def build(base: str, rest: list) -> str:
        if not rest:
            return value(base)
        (axis, b, e), rest = rest[0], rest[1:]
        lead = ":, " * axis

        def part(lo: Optional[int], hi: Optional[int]) -> str:
            return f"{base}[{lead}{'' if lo is None else lo}:{'' if hi is None else hi}]"

        parts = [part(None, b)] if b not in (None, 0) else []
        parts.append(build(part(b, e), rest))
        if e is not None:
            parts.append(part(e, None))
        return f"{F}.np.concatenate([{', '.join(parts)}], axis={axis})"

    return build(name, pieces)
