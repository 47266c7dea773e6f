"""HY001: reading the concrete value of a tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis import knowledge as K
from ..analysis.events import Event, EventKind
from ..analysis.values import Kind
from ..convert.values import value_fix
from .base import Report, Rule, example


def check(event: Event) -> Iterator[Report]:
    if event.kind is EventKind.METHOD_CALL:
        if event.name in K.CONCRETE_METHODS and event.value.kind in (Kind.TENSOR, Kind.MAYBE):
            yield Report(event.node, f"`.{event.name}()` needs the concrete value of a tensor, which a "
                                     f"symbolic graph does not have; {event.why()}",
                         fix=lambda with_edits: value_fix(event, with_edits))
    elif event.kind is EventKind.CALL and event.name.startswith("numpy."):
        func = event.name.split(".")[-1]
        if func in K.NUMPY_MATERIALISE and event.args and event.args[0][0].holds_tensor:
            value, node = event.args[0]
            yield Report(event.node, f"`np.{func}()` needs the concrete value of a tensor; "
                                     f"{event.why(value, node)}")


RULE = Rule(
    code="HY001",
    name="concrete-value",
    severity=Severity.ERROR,
    summary="concrete value of a tensor (`.asnumpy()`, `.asscalar()`, `.item()`, `np.asarray(t)`)",
    rationale=(
        "When the block is hybridized, `hybrid_forward` runs once with `Symbol` placeholders to "
        "build a graph; there are no numbers yet. `Symbol` has no `asnumpy`/`asscalar`, so the "
        "call fails at the first `net(x)` after `hybridize()` (the seed chapter's first exercise)."
    ),
    fix_advice="Keep the computation in `F` operators; read values outside the block, after `net(x)`. "
               "`--fix` does it where the value only scales/shifts a tensor (`x * s.asscalar()` -> "
               "`F.broadcast_mul(x, F.BlockGrad(F.reshape(s, shape=(1,))))`: one element demanded, no "
               "gradient, as before; `float(s.asscalar())` likewise, also through a name read only "
               "next to tensors: `c = s.asscalar()`; `x - c`) and drops a read whose value is "
               "never used (`x.asnumpy()` as a statement); a value that leaves the graph keeps the "
               "finding.",
    events=(EventKind.METHOD_CALL, EventKind.CALL),
    check=check,
    fixable=True,
    np_fixable=True,  # (np mode: `float(s)` / `s.item()` next to a tensor; see convert/values.py)
    np_advice="`float(s)` and `s.item()` as an operand of tensor arithmetic become "
              "`F.np.reshape(F.BlockGrad(s.as_nd_ndarray()).as_np_ndarray(), ())` (unsafe: `s` is assumed to have "
              "the other operand's dtype): MXNet 1.9.1's np interface has no stop-gradient, so the value passes "
              "the legacy `BlockGrad` on bridged arrays. Other reads keep the finding.",
    valid=(
        example("y = self.fc(x)\nreturn F.relu(y)", init="self.fc = nn.Dense(2)"),
        example("w = self.table.item()\nreturn x * w", init="self.table = 3"),
    ),
    invalid=(
        example("x.asnumpy()  # expect: HY001\nreturn x"),
        example("y = self.fc(x)\nscale = y.asscalar()  # expect: HY001\nreturn y * scale",
                init="self.fc = nn.Dense(2)"),
        "import numpy as np\n" + example("y = F.relu(x)\nreturn np.asarray(y)  # expect: HY001"),
        example("s = F.sum(x)\nif s.asscalar() > 0:  # expect: HY001\n    x = x * 2\nreturn x"),
    ),
    fix_examples=(
        (example("y = self.fc(x)\nscale = F.max(y)\nreturn y * scale.asscalar()", init="self.fc = nn.Dense(3)"),
         example("y = self.fc(x)\nscale = F.max(y)\nreturn F.broadcast_mul(y, F.BlockGrad(F.reshape(scale, shape=(1,))))",
                 init="self.fc = nn.Dense(3)")),
        (example("y = F.sum(x)\nreturn x / float(y.asscalar())"),
         example("y = F.sum(x)\nreturn F.broadcast_div(x, F.BlockGrad(F.reshape(y, shape=(1,))))")),
        (example("m = F.mean(x)\nreturn (x - m.asscalar()) / 2"),
         example("m = F.mean(x)\nreturn (F.broadcast_sub(x, F.BlockGrad(F.reshape(m, shape=(1,))))) / 2")),
        (example("m = F.max(x)\nc = float(m.asscalar())\nreturn x * c - c"),
         example("m = F.max(x)\nreturn F.broadcast_sub(F.broadcast_mul(x, F.BlockGrad(F.reshape(m, shape=(1,)))), "
                 "F.BlockGrad(F.reshape(m, shape=(1,))))")),
    ),
)
