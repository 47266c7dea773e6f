"""HY007: MXNet's imperative (or explicitly symbolic) API used on the tensor path instead of F."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis import knowledge as K
from ..analysis.events import Event, EventKind
from .base import Report, Rule, example


def check(event: Event) -> Iterator[Report]:
    if event.kind is EventKind.SELF_ATTR_READ:
        yield Report(event.node, f"`self.{event.name}` is an NDArray, which cannot be mixed into a "
                                 f"symbolic graph; {event.why()}; make it a `Constant` parameter")
        return
    family = K.api_family(event.name)
    text = event.site.text(event.node)
    if family == "ndarray":
        yield Report(event.node, f"`{text}` uses the imperative NDArray API inside `hybrid_forward`; "
                                 f"it ignores hybridization and mixes NDArrays into the graph: use `F` instead")
    elif family == "symbol":
        yield Report(event.node, f"`{text}` uses the symbolic API directly inside `hybrid_forward`; it "
                                 f"breaks imperative execution: use `F` instead")


RULE = Rule(
    code="HY007",
    name="imperative-api",
    severity=Severity.ERROR,
    summary="`nd.X`/`mx.nd.X`/`mx.sym.X` instead of `F.X`, or an NDArray made in `__init__` used in `hybrid_forward`",
    rationale=(
        "`F` is `mxnet.ndarray` when the block runs imperatively and `mxnet.symbol` while it is "
        "traced. Calling `nd.X` directly computes an NDArray even while tracing, which cannot be "
        "combined with the Symbol inputs (and `sym.X` breaks the imperative mode). An NDArray "
        "stored on `self` in `__init__` has the same problem and is not saved with the parameters."
    ),
    fix_advice="Call `F.X(...)`; for a constant tensor register it in `__init__` with "
               "`self.mean = self.params.get_constant('mean', value)` and take it as a keyword "
               "argument of `hybrid_forward`.",
    events=(EventKind.API_REF, EventKind.SELF_ATTR_READ),
    check=check,
    valid=(
        example("if F is nd:\n    y = nd.relu(x)\nelse:\n    y = F.relu(x)\nreturn y"),
        example("return F.broadcast_sub(x, mean)", signature="self, F, x, mean"),
    ),
    invalid=(
        example("y = nd.relu(x)  # expect: HY007\nreturn y"),
        "import mxnet as mx\n" + example("return mx.nd.ones((2, 2)) + x  # expect: HY007"),
        example("return x - self.mean  # expect: HY007", init="self.mean = nd.array([0.5])"),
    ),
)
