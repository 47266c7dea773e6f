"""HY003: item or slice assignment into a tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from .base import Report, Rule, example


def check(event: Event) -> Iterator[Report]:
    if event.value.is_tensor:
        kind = "augmented item assignment" if event.construct != "=" else "item assignment"
        yield Report(event.node, f"{kind} into tensor `{event.subject_text()}`: a `Symbol` cannot be "
                                 f"written in place; {event.why()}")


RULE = Rule(
    code="HY003",
    name="tensor-item-assignment",
    severity=Severity.ERROR,
    summary="item/slice assignment into a tensor (`t[:] = u`, `t[0] = 1`)",
    rationale=(
        "Writing into part of an NDArray mutates it; a `Symbol` is an immutable graph node with no "
        "`__setitem__`, so the statement fails when hybridized (the seed chapter's `a[:] = a + b`). "
        "Item assignment into a Python list of tensors is fine."
    ),
    fix_advice="Build a new tensor instead: `t = F.where(mask, u, t)`, `F.concat(...)` of slices, or "
               "`F.slice_assign`/`F.contrib.index_copy` for a region.",
    events=(EventKind.SUBSCRIPT_STORE,),
    check=check,
    valid=(
        example("outs = [F.relu(x), F.sigmoid(x)]\nouts[0] = outs[0] * 2\nreturn F.concat(*outs, dim=1)"),
        example("states = list(x)\nstates[0] = states[0] + 1\nreturn states"),
    ),
    invalid=(
        example("a = F.relu(x)\nb = F.sigmoid(x)\na[:] = a + b  # expect: HY003\nreturn a"),
        example("y = x * 2\ny[0] = 1  # expect: HY003\ny[:, 0] += 1  # expect: HY003\nreturn y"),
    ),
)
