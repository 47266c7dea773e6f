"""HY005: iterating over a single tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from .base import Report, Rule, example


def check(event: Event) -> Iterator[Report]:
    if event.value.is_tensor:
        yield Report(event.node, f"iterating over tensor `{event.subject_text()}` ({event.construct}): a "
                                 f"`Symbol` iterates over its outputs (one), not over rows; {event.why()}")


RULE = Rule(
    code="HY005",
    name="tensor-iteration",
    severity=Severity.ERROR,
    summary="iteration over a tensor (`for r in t`, `enumerate(t)`, `zip(t, ..)`, `a, b = t`)",
    rationale=(
        "Iterating an NDArray yields its rows, but iterating a `Symbol` yields its *outputs*: one "
        "for an ordinary operator. A hybridized loop therefore runs once, silently computing "
        "something else. Iterating a list of tensors or a multi-output result "
        "(`F.split(x, num_outputs=2)`) is fine."
    ),
    fix_advice="Split explicitly: `F.split(t, num_outputs=n, axis=0)` (n static), or use "
               "`F.contrib.foreach` to loop over the first axis.",
    events=(EventKind.ITERATE,),
    check=check,
    valid=(
        example("a, b = F.split(x, num_outputs=2)\nouts = [F.relu(p) for p in F.split(x, num_outputs=3)]\n"
                "for layer in self.layers:\n    a = layer(a)\nreturn a + b", init="self.layers = []"),
    ),
    invalid=(
        example("y = F.relu(x)\nfor row in y:  # expect: HY005\n    pass\nreturn y"),
        example("y = F.relu(x)\nfor i, row in enumerate(y):  # expect: HY005\n    pass\nreturn y"),
        example("y = F.relu(x)\nfirst, second = y  # expect: HY005\nreturn first"),
    ),
)
