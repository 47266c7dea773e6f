"""HY006: shape and metadata of a tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis import knowledge as K
from ..analysis.events import Event, EventKind
from ..convert.loops import in_range_loop, row_loop_fix
from .base import Report, Rule, example


def _loop_fix(event: Event):
    """``for i in range(len(t))`` / ``range(t.shape[0])``: the loop's conversion (convert/loops.py)."""
    return (lambda with_edits: row_loop_fix(event, with_edits)) if in_range_loop(event) else None


def check(event: Event) -> Iterator[Report]:
    if event.kind is EventKind.ATTRIBUTE:
        if event.name in K.METADATA_ATTRS and event.value.is_tensor:
            yield Report(event.node, f"`.{event.name}` of a tensor is not known while a graph is built "
                                     f"(`Symbol` has no `{event.name}`); {event.why()}", fix=_loop_fix(event))
    elif event.name == "builtins.len" and event.args:
        value, node = event.args[0]
        if value.is_tensor:
            yield Report(event.node, f"`len()` of a tensor is its number of outputs (1) once hybridized, "
                                     f"not its first dimension; {event.why(value, node)}", fix=_loop_fix(event))


#: ``for i in range(len(t))`` conversions (``convert/loops.py``, with HY005's row loops).
_RANGE_LOOPS = (
    (example("h = F.relu(x)\nouts = []\nfor i in range(h.shape[0]):\n    outs.append(F.sigmoid(h[i]) * 2)\n"
             "return F.concat(*outs)"),
     example("h = F.relu(x)\ndef loop_body(h_row, states):\n    return F.sigmoid(h_row) * 2, []\n"
             "outs, _ = F.contrib.foreach(loop_body, h, [])\n"
             "return F.reshape(F.swapaxes(outs, dim1=0, dim2=1), shape=(0, -3, -2))")),
)
_UNSAFE_RANGE_LOOPS = (
    (example("h = F.relu(x)\ng = F.sigmoid(x)\nacc = F.zeros_like(F.sum(h, axis=0))\nfor i in range(len(h)):\n"
             "    acc = acc + h[i] * g[i]\nreturn acc"),
     example("h = F.relu(x)\ng = F.sigmoid(x)\nacc = F.zeros_like(F.sum(h, axis=0))\ndef loop_body(rows, acc):\n"
             "    h_row, g_row = rows\n    acc = acc + h_row * g_row\n    return [], acc\n"
             "_, acc = F.contrib.foreach(loop_body, [h, g], acc)\nreturn acc")),
)


RULE = Rule(
    code="HY006",
    name="tensor-metadata",
    severity=Severity.ERROR,
    summary="shape/metadata of a tensor (`.shape`, `.size`, `.ndim`, `.dtype`, `.context`, `len(t)`)",
    rationale=(
        "Shapes are inferred when the graph is bound, after `hybrid_forward` has run; a `Symbol` "
        "has no `.shape`, and `len(symbol)` counts outputs. Code that computes with shapes works "
        "imperatively and breaks, or silently changes meaning, once hybridized."
    ),
    fix_advice="Use shape-free operators: `F.shape_array(t)` for a shape tensor, `reshape` codes "
               "(`0`, `-1`, `-2`, `-3`, `-4`), `F.zeros_like`/`F.ones_like`/`F.broadcast_like`. "
               "`--fix` converts `for i in range(len(t))` / `range(t.shape[0])` whose counter only "
               "selects rows (`t[i]`, `u[i]`) into `F.contrib.foreach` over those tensors (see HY005).",
    events=(EventKind.ATTRIBUTE, EventKind.CALL),
    check=check,
    valid=(
        example("y = F.reshape(x, (0, -1))\nz = F.zeros_like(y)\nn = len(self.layers)\nreturn y + z * n",
                init="self.layers = []"),
    ),
    invalid=(
        example("batch = x.shape[0]  # expect: HY006\nreturn F.reshape(x, (batch, -1))"),
        example("y = F.relu(x)\nn = len(y)  # expect: HY006\nreturn y / n"),
    ),
    fixable=True,
    fix_examples=_RANGE_LOOPS,
    unsafe_fix_examples=_UNSAFE_RANGE_LOOPS,
)
