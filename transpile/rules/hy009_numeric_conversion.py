"""HY009: converting a tensor to a Python or numpy number."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis import knowledge as K
from ..analysis.events import Event, EventKind
from ..convert.values import value_fix
from .base import Report, Rule, example


def check(event: Event) -> Iterator[Report]:
    name = event.name
    if name.startswith("builtins."):
        func = name.split(".", 1)[1]
        if func in K.NUMERIC_BUILTINS and event.args and event.args[0][0].is_tensor:
            value, node = event.args[0]
            yield Report(event.node, f"`{func}()` of a tensor needs its concrete value; {event.why(value, node)}",
                         fix=lambda with_edits: value_fix(event, with_edits))
        return
    module, _, func = name.rpartition(".")
    if module in ("numpy", "math") and func not in K.NUMPY_MATERIALISE:
        for value, node in event.args:
            if value.holds_tensor:
                short = "np" if module == "numpy" else "math"
                yield Report(event.node, f"`{short}.{func}()` converts a tensor to a concrete number/array; "
                                         f"{event.why(value, node)}",
                             fix=lambda with_edits: value_fix(event, with_edits))
                return


RULE = Rule(
    code="HY009",
    name="numeric-conversion",
    severity=Severity.ERROR,
    summary="Python/numpy numeric conversion of a tensor (`float(t)`, `int(t)`, `math.exp(t)`, `np.exp(t)`)",
    rationale=(
        "`float(t)`, `int(t)`, `bool(t)` and numpy/math functions need concrete numbers, which do "
        "not exist while the graph is traced. Even when they work imperatively they leave the "
        "graph: gradients stop and the result is frozen into the hybridized model."
    ),
    fix_advice="Use the `F` operator (`F.exp`, `F.log`, `F.cast(t, dtype)`); keep Python numbers "
               "for configuration only. `--fix` turns `np.sum/max/min(t)` (which NumPy hands to the "
               "NDArray's own method) next to a tensor into `F.sum/max/min(t)` with a `broadcast_*` "
               "operator (`float(s.asscalar())` is HY001's fix; `float(s)` itself fails on MXNet 1.9.1's "
               "NDArray, which has no `__float__`).",
    events=(EventKind.CALL,),
    check=check,
    fixable=True,
    np_fixable=True,  # (np mode: `float(s)` / `s.item()` next to a tensor; see convert/values.py)
    np_advice="`float(s)` and `s.item()` as an operand of tensor arithmetic become "
              "`F.np.reshape(F.BlockGrad(s.as_nd_ndarray()).as_np_ndarray(), ())` (unsafe: `s` is assumed to have "
              "the other operand's dtype): MXNet 1.9.1's np interface has no stop-gradient, so the value passes "
              "the legacy `BlockGrad` on bridged arrays. Other reads keep the finding.",
    valid=(
        "import math\nimport numpy as np\n" + example("scale = math.sqrt(self.units)\nreturn F.exp(x) * scale * np.pi",
                                                      init="self.units = 4"),
    ),
    invalid=(
        example("y = F.sum(x)\nreturn x / float(y)  # expect: HY009"),
        "import numpy as np\n" + example("return np.exp(F.relu(x))  # expect: HY009"),
        example("y = F.sum(x)\nprint(float(y))  # expect: HY009, HY008\nreturn x"),
        example("y = F.sum(x)\nreturn x * (float(y) + 1)  # expect: HY009"),
    ),
    fix_examples=(
        ("import numpy as np\n" + example("h = F.relu(x)\nreturn h - np.max(h) + h * np.sum(h)"),
         "import numpy as np\n" + example("h = F.relu(x)\nreturn F.broadcast_sub(h, F.max(h)) + F.broadcast_mul(h, F.sum(h))")),
    ),
)
