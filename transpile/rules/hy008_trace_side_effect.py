"""HY008: side effects that only happen while the graph is traced."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis import knowledge as K
from ..analysis.events import Event, EventKind
from .base import Report, Rule, example


def _is_output_call(name: str) -> bool:
    if name == "builtins.print" or name == "warnings.warn":
        return True
    last = name.rsplit(".", 1)[-1]
    return (name.startswith("logging.") or ".getLogger()." in name) and last in K.LOGGING_METHODS


def check(event: Event) -> Iterator[Report]:
    if event.kind is EventKind.SELF_STORE:
        if event.value.holds_tensor:
            yield Report(event.node, f"tensor stored on `self.{event.name}` ({event.construct}) inside "
                                     f"`hybrid_forward`: once hybridized this runs only while tracing and "
                                     f"keeps a Symbol, not the value of each batch; {event.why()}")
        return
    if event.name.startswith(K.PYTHON_RANDOM_PREFIXES):
        func = "np." + event.name[len("numpy."):] if event.name.startswith("numpy.") else event.name
        yield Report(event.node, f"`{func}()` draws a random number once, while the graph is traced: the "
                                 f"hybridized block reuses that draw for every batch; use `F.random.*` "
                                 f"(e.g. `F.random.uniform(shape=...) < p`) to draw per batch")
        return
    if not _is_output_call(event.name):
        return
    tensors = event.extra.get("tensors", ())
    if tensors:
        value, node = tensors[0]
        func = event.name.replace("builtins.", "")
        yield Report(event.node, f"`{func}` of a tensor runs only while the graph is traced (once) and "
                                 f"shows a Symbol, not values; {event.why(value, node)}")


RULE = Rule(
    code="HY008",
    name="trace-time-side-effect",
    severity=Severity.WARNING,
    summary="`print`/logging of a tensor, a tensor stored on `self`, or a Python/numpy random draw, "
            "inside `hybrid_forward`",
    rationale=(
        "After `hybridize()`, `hybrid_forward` runs once to trace the graph and never again: a "
        "`print` shows a Symbol once and then falls silent (the seed chapter's `HybridNet`), and a "
        "tensor kept on `self` holds a graph node, not the latest batch. A random number drawn "
        "with `np.random`/`random` (stochastic depth, drop-path) is drawn once and frozen into the "
        "graph. This does not fail, hence a warning."
    ),
    fix_advice="Debug imperatively (before `hybridize()`), return the value as an extra output, or "
               "use a callback/monitor outside the block; draw random numbers with `F.random.*`.",
    events=(EventKind.CALL, EventKind.SELF_STORE),
    check=check,
    valid=(
        example("print('building the graph')\nself.calls = 1\nreturn F.relu(x)"),
        "import numpy as np\n" + example(
            "if F is nd:\n    print(np.random.rand())\nkeep = F.random.uniform(shape=(1,)) < 0.8\n"
            "return F.broadcast_mul(x, keep)"),
    ),
    invalid=(
        example("print('x: ', x)  # expect: HY008\nreturn x"),
        "import logging\n" + example("y = F.relu(x)\nlogging.info('y=%s', y)  # expect: HY008\nreturn y"),
        example("y = F.relu(x)\nself.last = y  # expect: HY008\nself.history.append(y)  # expect: HY008\nreturn y"),
        # every store is a finding: each keeps a Symbol of the trace
        example("self.features.append(self.a(x))  # expect: HY008\nself.features.append(self.b(x))  # expect: HY008\n"
                "return x", init="self.a = nn.Dense(4)\nself.b = nn.Dense(4)\nself.features = []"),
        "import numpy as np\nfrom mxnet import autograd\n" + example(
            "y = self.body(x)\nif autograd.is_training():\n"
            "    keep = np.random.binomial(n=1, p=0.8)  # expect: HY008\n"
            "    y = keep / 0.8 * y\nreturn y + x", init="self.body = nn.Dense(2)"),
    ),
)
