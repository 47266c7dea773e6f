"""HY006: shape and metadata of a tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis import knowledge as K
from ..analysis.events import Event, EventKind
from .base import Report, Rule, example


def check(event: Event) -> Iterator[Report]:
    if event.kind is EventKind.ATTRIBUTE:
        if event.name in K.METADATA_ATTRS and event.value.is_tensor:
            yield Report(event.node, f"`.{event.name}` of a tensor is not known while a graph is built "
                                     f"(`Symbol` has no `{event.name}`); {event.why()}")
    elif event.name == "builtins.len" and event.args:
        value, node = event.args[0]
        if value.is_tensor:
            yield Report(event.node, f"`len()` of a tensor is its number of outputs (1) once hybridized, "
                                     f"not its first dimension; {event.why(value, node)}")


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
               "(`0`, `-1`, `-2`, `-3`, `-4`), `F.zeros_like`/`F.ones_like`/`F.broadcast_like`.",
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
)
