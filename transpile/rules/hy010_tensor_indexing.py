"""HY010: subscript read of a single tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from .base import Report, Rule, example


def check(event: Event) -> Iterator[Report]:
    if event.value.is_tensor:
        yield Report(event.node, f"indexing tensor `{event.subject_text()}`: on a `Symbol`, `[i]` selects "
                                 f"an *output* of the graph node, not rows; {event.why()}")


RULE = Rule(
    code="HY010",
    name="tensor-indexing",
    severity=Severity.ERROR,
    summary="subscript read of a single tensor (`t[0]`, `t[:, :2]`, `t[1:]`)",
    rationale=(
        "`t[0]` on an NDArray is its first row; on a `Symbol` it is the first *output* of the "
        "operator, i.e. `t` itself, so hybridized code silently computes something else (and "
        "slices fail). Indexing a list of tensors or a multi-output result is fine."
    ),
    fix_advice="Use `F.slice_axis(t, axis=0, begin=0, end=1)`, `F.slice`, `F.take(t, idx)` or "
               "`F.split(t, num_outputs=n)`.",
    events=(EventKind.SUBSCRIPT_LOAD,),
    check=check,
    valid=(
        example("parts = F.split(x, num_outputs=2, axis=1)\nreturn parts[0] + parts[1]"),
        example("return states[0] + states[1]", signature="self, F, x, states"),
    ),
    invalid=(
        example("y = F.relu(x)\nreturn y[0]  # expect: HY010"),
        example("return x[:, :2]  # expect: HY010"),
    ),
)
