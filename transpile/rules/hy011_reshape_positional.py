"""HY011: ``t.reshape(a, b)`` with several positional dimensions."""
from typing import Iterator

import ast

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from ..convert.fixes import reshape_tuple_fix
from .base import Report, Rule, example, np_example


def check(event: Event) -> Iterator[Report]:
    if event.name != "reshape" or not event.value.is_tensor or event.call is None or event.site.np_mode:
        return  # (an np-mode Symbol's ``reshape(*shape)`` takes dimensions as NumPy does)
    call = event.call
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return
    positional = call.args
    if len(positional) < 2:
        return
    yield Report(
        event.call,
        f"`.reshape()` with {len(positional)} positional dimensions works on NDArray only: on a "
        f"`Symbol` the second argument binds to `reverse`; pass the shape as a tuple; {event.why()}",
        fix=lambda with_edits: reshape_tuple_fix(event, with_edits),
    )


RULE = Rule(
    code="HY011",
    name="reshape-positional-dims",
    severity=Severity.ERROR,
    summary="`t.reshape(a, b, ...)` with several positional dimensions",
    rationale=(
        "`NDArray.reshape(*shape)` accepts dimensions as separate arguments, `Symbol.reshape` does "
        "not: its signature is `reshape(shape, reverse=False)`, so `t.reshape(2, 3)` hybridizes "
        "into `reshape(shape=2, reverse=3)` or an error. In np-mode code (`npx.set_np()`) both "
        "`ndarray.reshape` and the np-mode Symbol's take the dimensions as NumPy does: no finding."
    ),
    fix_advice="Pass one tuple: `t.reshape((a, b))`. `--fix` adds the parentheses (always safe).",
    events=(EventKind.METHOD_CALL,),
    check=check,
    fixable=True,
    valid=(
        example("y = x.reshape((0, -1))\nreturn y.reshape(-1)"),
        np_example("return x.reshape(6, -1)"),
    ),
    invalid=(
        example("return x.reshape(0, -1)  # expect: HY011"),
    ),
    fix_examples=(
        (example("y = F.relu(x)\nreturn y.reshape(0, -1)  # flatten"),
         example("y = F.relu(x)\nreturn y.reshape((0, -1))  # flatten")),
        (example("return x.reshape(\n    2,  # rows\n    -1,\n)"),
         example("return x.reshape((\n    2,  # rows\n    -1,\n))")),
    ),
)
