"""HY014: a computed tensor passed as an input an operator updates in place (BatchNorm's moving
statistics, an optimizer's moments)."""
from typing import Iterator

from ..analysis.events import Event, EventKind
from ..analysis.values import Category, Kind
from ..diagnostics import Severity
from .base import Report, Rule, example

#: Where a tensor comes from when it is an operator's output in the graph (not a variable: inputs
#: and Parameters arrive as variables; what a helper or a list element is stays undecided).
_COMPUTED = frozenset({Category.F_OP, Category.DERIVED, Category.BLOCK})


def check(event: Event) -> Iterator[Report]:
    value = event.value
    if value is None or value.kind is not Kind.TENSOR or value.origin is None \
            or value.origin.category not in _COMPUTED:
        return
    yield Report(
        event.node,
        f"`{event.subject_text()}` is passed as `{event.construct}` of `F.{event.name}`, which updates that "
        f"input in place: a graph accepts only a variable there (MXNet 1.9.1 fails when the hybridized graph "
        f"is built: \"Mutation target can only be Variable\"); imperatively the update goes to a temporary array",
    )


_BN = "self, F, x, gamma, beta, running_mean, running_var"

RULE = Rule(
    code="HY014",
    name="computed-state-input",
    severity=Severity.ERROR,
    summary="a computed tensor as an input an operator updates in place (`F.BatchNorm(x, g, b, F.zeros(n), F.ones(n))`)",
    rationale=(
        "Some operators update inputs in place: BatchNorm's `moving_mean`/`moving_var` (also "
        "`SyncBatchNorm`, `BatchNorm_v1`), the optimizer updates' moments (`adam_update`'s `mean`/`var`, "
        "...). In a graph they must be variables (Parameters, or inputs of `hybrid_forward`): MXNet 1.9.1 "
        "refuses an operator's output there when the node is made (\"Mutation target can only be "
        "Variable\"), so `F.BatchNorm(y, gamma, beta, F.zeros(n), F.ones(n))` runs imperatively and fails "
        "once the block is hybridized."
    ),
    fix_advice="Declare the state as a Parameter in `__init__` (`self.running_mean = self.params.get("
               "'running_mean', grad_req='null', shape=(n,), init='zeros', differentiable=False)`) and take "
               "it as an argument of `hybrid_forward`; or compute without state (`F.LayerNorm`, "
               "`F.InstanceNorm`, `F.GroupNorm`, or statistics with `F.mean`). No automatic fix: the "
               "Parameter's shape and initialisation are a design decision.",
    events=(EventKind.STATE_INPUT,),
    check=check,
    valid=(
        example("return F.BatchNorm(x, gamma, beta, running_mean, running_var, fix_gamma=False)", signature=_BN),
        example("return F.BatchNorm(x, F.ones_like(gamma), beta, running_mean, running_var)", signature=_BN),
    ),
    invalid=(
        example("y = x.reshape((1, -3, -1))\n"
                "return F.BatchNorm(y, F.ones((6,)), F.zeros((6,)), F.zeros((6,)), F.ones((6,)))  # expect: HY014"),
        example("mean = F.zeros_like(running_mean)\n"
                "return F.BatchNorm(x, gamma, beta, moving_var=running_var * 1, moving_mean=mean)  # expect: HY014",
                signature=_BN),
    ),
)
