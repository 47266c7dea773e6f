"""HY010: a subscript read of a tensor (``x[0]``, ``x[:, :2]``, ``x[1:]``, ``x[..., -1]``) as ``F`` operators.

MXNet 1.9.1's ``NDArray.__getitem__`` (basic indexing: integers, slices, one ``...``) is NumPy's:
slices clamp to the axis (``x[:10]`` of 3 rows is 3 rows), an integer must be in range and drops
its axis, and a result with no axis left has shape ``(1,)``. The conversion keeps exactly that:

* leading components (before ``...``, or all of them) -> one ``F.slice(x, begin, end, step)``:
  the ``slice`` operator clamps its bounds like Python slices (``None`` for an open bound); an
  integer ``i`` is the slice ``i:i+1`` (``i:None`` for ``-1``);
* a single integer on one axis -> ``F.slice_axis(x, axis=k, begin=i, end=i+1)`` (exact, since the
  original already demanded ``-n <= i < n``);
* integers after ``...`` -> ``F.slice_axis`` on negative axes;
* integer axes are then dropped with one ``F.squeeze(..., axis=...)``, which (legacy MXNet shape
  semantics, like indexing) leaves ``(1,)`` when every axis goes;
* a key that selects everything (``x[:]``, ``x[...]``, ``x[..., :]``, ``x[::1]``) is dropped: ``x``
  shares the view's memory, so this is exact (safe) even where tensors are written in place.

Not converted (the finding stays): indices that are not literals (tensors = advanced indexing;
names whose value is unknown here), ``None``/newaxis, slices after ``...`` (their clamping would
need the number of axes), a subscript outside a function with an ``F`` parameter.

Applicability: an imperative basic-indexing result is a *view* of the tensor; ``F`` operators
return new arrays. The fix is safe when the function writes no tensor in place (no augmented
assignment, item assignment or ``out=``): then nothing can observe the difference. Otherwise
it is unsafe (``--unsafe-fixes``), as ruff classifies fixes that may change behaviour, and
``Fix.changes_results``: ``hybridize transpile`` does not apply it (``r = x[1:]; x[3] *= 0; return r``
would compute another ``r``); once the in-place writes are converted, the next round's fix is safe.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional, Union

from ..analysis.events import Event, Site
from ..diagnostics import Applicability, Fix
from .fixes import _locate, _replace_edit


@dataclass(frozen=True)
class _Slice:
    start: Optional[int]
    stop: Optional[int]
    step: Optional[int]

    @property
    def whole(self) -> bool:
        return self.start is None and self.stop is None and self.step in (None, 1)


_Component = Union[int, _Slice, type(Ellipsis)]


def int_literal(node: Optional[ast.expr]) -> Optional[int]:
    """``3`` or ``-3`` written as a literal (not ``True``), else ``None``."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = int_literal(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _bound(node: Optional[ast.expr]) -> tuple[bool, Optional[int]]:
    """(ok, value) for a slice bound: absent, ``None`` or an int literal."""
    if node is None or (isinstance(node, ast.Constant) and node.value is None):
        return True, None
    value = int_literal(node)
    return value is not None, value


def parse_key(index: ast.expr) -> Optional[list[_Component]]:
    """The components of a basic-indexing key made of literals, or ``None`` if not convertible."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    out: list[_Component] = []
    for part in parts:
        if isinstance(part, ast.Constant) and part.value is Ellipsis:
            if Ellipsis in out:
                return None
            out.append(Ellipsis)
        elif isinstance(part, ast.Slice):
            bounds = [_bound(b) for b in (part.lower, part.upper, part.step)]
            if not all(ok for ok, _ in bounds) or bounds[2][1] == 0:
                return None
            out.append(_Slice(bounds[0][1], bounds[1][1], bounds[2][1]))
        else:
            value = int_literal(part)
            if value is None:
                return None
            out.append(value)
    return out or None


def _end_after(i: int) -> Optional[int]:
    return None if i == -1 else i + 1


def _tuple(values: list) -> str:
    items = ", ".join("None" if v is None else str(v) for v in values)
    return f"({items},)" if len(values) == 1 else f"({items})"


def indexing_expression(base: str, key: list[_Component], F: str) -> Optional[str]:
    """``base[key]`` (NDArray basic indexing) written with ``F`` operators, or ``None``."""
    if Ellipsis in key:
        at = key.index(Ellipsis)
        lead, trail = key[:at], key[at + 1:]
    else:
        lead, trail = list(key), []
    if any(isinstance(c, _Slice) and not c.whole for c in trail):
        return None  # clamping a slice counted from the end needs the number of axes
    while lead and isinstance(lead[-1], _Slice) and lead[-1].whole:
        lead.pop()  # trailing ``:`` select everything: no-ops
    expr = base
    squeeze: list[int] = []
    active = [(k, c) for k, c in enumerate(lead) if not (isinstance(c, _Slice) and c.whole)]
    if len(active) == 1 and isinstance(active[0][1], int):
        k, i = active[0]
        expr = f"{F}.slice_axis({expr}, axis={k}, begin={i}, end={_end_after(i)})"
        squeeze.append(k)
    elif active:
        begin, end, step = [], [], []
        for k, c in enumerate(lead):
            if isinstance(c, int):
                begin.append(c), end.append(_end_after(c)), step.append(None)
                squeeze.append(k)
            else:
                begin.append(c.start), end.append(c.stop), step.append(c.step)
        args = f"begin={_tuple(begin)}, end={_tuple(end)}"
        if any(s is not None for s in step):
            args += f", step={_tuple(step)}"
        expr = f"{F}.slice({expr}, {args})"
    for j, c in enumerate(trail):
        if isinstance(c, int):
            axis = j - len(trail)
            expr = f"{F}.slice_axis({expr}, axis={axis}, begin={c}, end={_end_after(c)})"
            squeeze.append(axis)
    if squeeze:
        axes = str(squeeze[0]) if len(squeeze) == 1 else _tuple(squeeze)
        expr = f"{F}.squeeze({expr}, axis={axes})"
    return expr  # ``base`` itself when every component selects everything (``t[:]``, ``t[..., :]``)


# ---------------------------------------------------------------------------------------------
# shared by the conversions of this package
def f_name(site: Site) -> Optional[str]:
    """The name of the ``F`` namespace inside the analysed function: ``hybrid_forward``'s second
    parameter, or a parameter called ``F`` of a helper; ``None`` when there is none to use."""
    fn = site.function.node if site.function is not None else None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if fn.name == "hybrid_forward" and len(params) >= 2:
        name = params[1]
    elif "F" in params:
        name = "F"
    else:
        return None
    rebound = any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(fn))
    return None if rebound else name


def writes_in_place(site: Site) -> bool:
    """Does the analysed function update anything in place (``+=``, ``t[...] = ``, ``out=``)?

    Conservative (an ``int`` counter's ``+=`` counts too): it decides whether a conversion that
    turns an imperative *view* into a new array is safe.
    """
    fn = site.function.node if site.function is not None else None
    if fn is None:
        return True
    for node in ast.walk(fn):
        if isinstance(node, ast.AugAssign):
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return True
        if isinstance(node, ast.Call) and any(k.arg == "out" for k in node.keywords):
            return True
    return False


def indexing_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """The HY010 fix: ``t[key]`` -> ``F.slice``/``F.slice_axis``/``F.squeeze`` (see the module doc)."""
    node = event.node
    if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
        return None
    F = f_name(event.site)
    key = parse_key(node.slice)
    if F is None or key is None or indexing_expression("t", key, F) is None:
        return None
    if indexing_expression("t", key, F) == "t":
        # ``t[:]`` is a view of all of ``t``: ``t`` itself shares that memory too, so even with
        # in-place writes nothing can tell the difference (and a Symbol needs no operator)
        message = "Drop the subscript: it selects the whole tensor"
        if not with_edits:
            return Fix(message, (), Applicability.SAFE)
        import libcst as cst

        found = _locate(event.site, event.site.span(node), cst.Subscript)
        if found is None:
            return None
        module, sub, where = found
        value = sub.value
        if not value.lpar and not isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
            value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return Fix(message, (_replace_edit(module, sub, value, where),), Applicability.SAFE)
    unsafe = writes_in_place(event.site)
    message = "Index with `F` operators (`F.slice`, `F.slice_axis`, `F.squeeze`)"
    if unsafe:
        message += " (unsafe: the function updates tensors in place, and the result is no longer a view)"
    applicability = Applicability.UNSAFE if unsafe else Applicability.SAFE
    if not with_edits:
        return Fix(message, (), applicability, unsafe)
    import libcst as cst

    found = _locate(event.site, event.site.span(node), cst.Subscript)
    if found is None:
        return None
    module, sub, where = found
    base = module.code_for_node(sub.value)
    text = indexing_expression(base, key, F)
    if text is None:
        return None
    new = cst.parse_expression(text)  # a call: atomic, needs no parentheses
    return Fix(message, (_replace_edit(module, sub, new, where),), applicability, unsafe)


def _subscript_as(event: Event, with_edits: bool, message: str, expr: str,
                  unsafe: bool = False) -> Optional[Fix]:
    """A fix that replaces the subscript ``event.node`` by the expression text ``expr`` (keeping
    its parentheses)."""
    applicability = Applicability.UNSAFE if unsafe else Applicability.SAFE
    if not with_edits:
        return Fix(message, (), applicability, unsafe)
    import libcst as cst

    found = _locate(event.site, event.site.span(event.node), cst.Subscript)
    if found is None:
        return None
    module, ref, where = found
    new = cst.parse_expression(expr).with_changes(lpar=ref.lpar, rpar=ref.rpar)
    return Fix(message, (_replace_edit(module, ref, new, where),), applicability, unsafe)


def np_expand_dims_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """np-mode HY010: ``t[None]`` / ``t[:, None]`` (one ``None`` among full slices ``:``) ->
    ``F.np.expand_dims(t, axis)``, the same array on an np-mode Symbol (which refuses ``None`` keys).
    Safe: imperatively ``F.np.expand_dims`` is NumPy's own, a view as the indexing is."""
    node = event.node
    key = node.slice  # type: ignore[attr-defined]
    parts = key.elts if isinstance(key, ast.Tuple) else [key]
    nones = [i for i, p in enumerate(parts) if isinstance(p, ast.Constant) and p.value is None]
    full = all(isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None
               for i, p in enumerate(parts) if i not in nones)
    F = f_name(event.site)
    if len(nones) != 1 or not full or F is None:
        return None
    axis = nones[0]
    subject = event.site.source(node.value)  # type: ignore[attr-defined]
    return _subscript_as(event, with_edits, f"Use `{F}.np.expand_dims(..., {axis})`",
                         f"{F}.np.expand_dims({subject}, {axis})")


def np_last_row_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """np-mode HY010: ``t[-1]`` -> ``F.np.squeeze(t[-1:], axis=0)``. MXNet 1.9.1's np-mode Symbol
    turns a lone integer key ``i`` into ``slice(i, i + 1)``, for ``-1`` the empty ``slice(-1, 0)``;
    the slice ``[-1:]`` and the squeeze are the row NumPy indexing gives. Safe (the row was a view
    imperatively, the squeeze of a slice one too)."""
    node = event.node
    F = f_name(event.site)
    if F is None:
        return None
    subject = event.site.source(node.value)  # type: ignore[attr-defined]
    return _subscript_as(event, with_edits, f"Use `{F}.np.squeeze(..[-1:], axis=0)`",
                         f"{F}.np.squeeze({subject}[-1:], axis=0)")


def _np_key(parts: list) -> str:
    """Literal components as key text (``1``, ``1:3``, ``::-1``)."""
    def one(c: object) -> str:
        if isinstance(c, _Slice):
            text = f"{'' if c.start is None else c.start}:{'' if c.stop is None else c.stop}"
            return text + (f":{c.step}" if c.step is not None else "")
        return str(c)
    return ", ".join(one(c) for c in parts)


def _np_take(F: str, base: str, parts: list) -> str:
    """``base[parts]`` as an np-mode Symbol computes it (a lone ``-1`` through ``[-1:]`` + squeeze)."""
    if len(parts) == 1 and parts[0] == -1:
        return f"{F}.np.squeeze({base}[-1:], axis=0)"
    return f"{base}[{_np_key(parts)}]"


def _axes(values: list[int]) -> str:
    return str(values[0]) if len(values) == 1 else "(" + ", ".join(map(str, values)) + ")"


def np_ellipsis_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """np-mode HY010: a literal key with ``...`` (``t[..., 0]``, ``t[..., 1:3]``, ``t[0, ..., -1]``),
    which an np-mode Symbol refuses (``IndexError``), without the ellipsis: the components before it
    index ``t`` as written; the ``m`` after it index the last ``m`` axes, moved to the front with
    ``F.np.moveaxis`` (no rank needed), and the sliced ones of those move back to the end::

        t[..., 0]    -> F.np.moveaxis(t, -1, 0)[0]
        t[..., 1:3]  -> F.np.moveaxis(F.np.moveaxis(t, -1, 0)[1:3], 0, -1)

    Unsafe where tensors are written in place (the indexed array was a view, the result is not)."""
    node = event.node
    key = parse_key(node.slice)  # type: ignore[attr-defined]
    F = f_name(event.site)
    if key is None or Ellipsis not in key or F is None:
        return None
    at = key.index(Ellipsis)
    lead, trail = key[:at], key[at + 1:]
    expr = event.site.source(node.value)  # type: ignore[attr-defined]
    if any(not (isinstance(c, _Slice) and c.whole) for c in lead):
        expr = _np_take(F, expr, lead)
    if any(not (isinstance(c, _Slice) and c.whole) for c in trail):
        m = len(trail)
        moved = f"{F}.np.moveaxis({expr}, {_axes(list(range(-m, 0)))}, {_axes(list(range(m)))})"
        expr = _np_take(F, moved, trail)
        kept = sum(isinstance(c, _Slice) for c in trail)
        if kept:
            expr = f"{F}.np.moveaxis({expr}, {_axes(list(range(kept)))}, {_axes(list(range(-kept, 0)))})"
    unsafe = writes_in_place(event.site)
    message = f"Index without `...`: `{F}.np.moveaxis` brings the last axes to the front"
    if unsafe:
        message += " (unsafe: the indexed view becomes a copy while tensors are written in place)"
    return _subscript_as(event, with_edits, message, expr, unsafe)


def np_key_fix(event: Event, with_edits: bool) -> Optional[Fix]:
    """np-mode HY010's conversions: ``None`` keys, then ``...`` keys."""
    return np_expand_dims_fix(event, with_edits) or np_ellipsis_fix(event, with_edits)
