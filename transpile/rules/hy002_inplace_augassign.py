"""HY002: in-place augmented assignment to a tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from ..convert.fixes import augassign_fix
from .base import Report, Rule, example

_SYMBOLS = {
    "Add": "+=", "Sub": "-=", "Mult": "*=", "Div": "/=", "FloorDiv": "//=", "Mod": "%=", "Pow": "**=",
    "MatMult": "@=", "LShift": "<<=", "RShift": ">>=", "BitAnd": "&=", "BitOr": "|=", "BitXor": "^=",
}


def check(event: Event) -> Iterator[Report]:
    if not event.value.is_tensor:
        return
    op = _SYMBOLS.get(event.construct, "op=")
    yield Report(
        event.node,
        f"in-place `{op}` on tensor `{event.name}`: a `Symbol` cannot be updated in place; {event.why()}",
        fix=lambda with_edits: augassign_fix(event, with_edits),
    )


RULE = Rule(
    code="HY002",
    name="inplace-augmented-assignment",
    severity=Severity.ERROR,
    summary="in-place augmented assignment to a tensor (`t += u`)",
    rationale=(
        "`t += u` on an NDArray updates its memory in place; `Symbol` does not support in-place "
        "operators and raises `NotImplementedForSymbol` once the block is hybridized. Augmented "
        "assignment to lists, ints and other Python values is fine."
    ),
    fix_advice="Write `t = t + u`: a new value, same result. `--fix` does this; when another name "
               "still refers to the old tensor the rewrite changes what that name sees imperatively, "
               "so it is only applied with `--unsafe-fixes`.",
    events=(EventKind.AUG_ASSIGN,),
    check=check,
    fixable=True,
    np_fixable=True,
    valid=(
        example("y = F.relu(x)\ny = y + 1\nreturn y"),
        example("total = 0\nfor i in range(3):\n    total += i\nouts = []\nouts += [F.relu(x)]\nreturn F.concat(*outs, dim=total)"),
    ),
    invalid=(
        example("a = F.relu(x)\nb = F.sigmoid(x)\na += b  # expect: HY002\nreturn a"),
        example("y = self.fc(x)\ny *= 2  # expect: HY002\nreturn y", init="self.fc = nn.Dense(2)"),
        example("loss = 0\nfor layer in self.layers:\n    loss += layer(x)  # expect: HY002\nreturn loss",
                init="self.layers = [nn.Dense(2), nn.Dense(2)]"),
    ),
    fix_examples=(
        (example("a = F.relu(x)\na += F.sigmoid(x)  # keep me\nreturn a"),
         example("a = F.relu(x)\na = a + F.sigmoid(x)  # keep me\nreturn a")),
        (example("a = F.relu(x)\na *= x + 1\nreturn a"),
         example("a = F.relu(x)\na = a * (x + 1)\nreturn a")),
    ),
    unsafe_fix_examples=(
        (example("x += 1\nreturn x"), example("x = x + 1\nreturn x")),
    ),
)
