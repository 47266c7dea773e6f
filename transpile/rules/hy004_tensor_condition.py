"""HY004: Python control flow on a tensor-dependent condition."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from .base import Report, Rule, example

_WORDS = {
    "if": "an `if`", "elif": "an `elif`", "while": "a `while` loop", "assert": "an `assert`",
    "and": "`and`", "or": "`or`", "not": "`not`", "conditional expression": "a conditional expression",
    "comprehension `if`": "a comprehension `if`",
}


def check(event: Event) -> Iterator[Report]:
    if event.value.is_tensor:
        what = _WORDS.get(event.construct, event.construct)
        yield Report(event.node, f"{what} on a tensor-dependent condition needs its truth value, which "
                                 f"a graph does not have; {event.why()}")


RULE = Rule(
    code="HY004",
    name="tensor-condition",
    severity=Severity.ERROR,
    summary="`if`/`while`/`and`/`or`/`not`/`assert`/conditional expression on a tensor",
    rationale=(
        "Python decides a branch once, while the graph is traced, so the branch taken for the first "
        "batch would be baked into the graph. `Symbol` refuses `bool()`; NDArray works only "
        "imperatively. Conditions on configuration (`if self.use_bias:`), on `x is None`, or on "
        "`autograd.is_training()` are static and fine, as are branches guarded by `if F is nd:`."
    ),
    fix_advice="Compute both sides and select elementwise with `F.where(cond, a, b)`, or use "
               "`F.contrib.cond(pred, then_func, else_func)` / `F.contrib.while_loop` for real control flow.",
    events=(EventKind.CONDITION,),
    check=check,
    valid=(
        example("if self.use_bias:\n    x = x + 1\nif bias is None:\n    return F.relu(x)\nreturn F.relu(x) + bias",
                init="self.use_bias = True", signature="self, F, x, bias=None"),
        example("if F is nd:\n    if x.sum() > 0:\n        print(x.asnumpy())\nreturn F.where(x > 0, x, -x)"),
    ),
    invalid=(
        example("if x.sum() > 0:  # expect: HY004\n    return x\nreturn -x"),
        example("y = F.relu(x)\nwhile F.norm(y) > 1:  # expect: HY004\n    y = y / 2\nreturn y"),
        example("y = F.relu(x)\nz = y if y > 0 else -y  # expect: HY004\nreturn z and y  # expect: HY004"),
    ),
)
