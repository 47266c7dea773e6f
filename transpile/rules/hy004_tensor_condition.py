"""HY004: Python control flow on a tensor-dependent condition."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from ..convert.control_flow import condition_fix
from ..convert.loops import while_fix
from .base import Report, Rule, example

_WORDS = {
    "if": "an `if`", "elif": "an `elif`", "while": "a `while` loop", "assert": "an `assert`",
    "and": "`and`", "or": "`or`", "not": "`not`", "conditional expression": "a conditional expression",
    "comprehension `if`": "a comprehension `if`",
}


_AXES = "lhs_axes=(0,), rhs_axes=(0,)"
_LOOP = "self.n = 3\nself.fc = nn.Dense(4, flatten=False, in_units=4)"
_LAYERS = "self.fc = nn.Dense(4, flatten=False, in_units=4)\nself.out = nn.Dense(4, flatten=False, in_units=4)"


#: Why a ``while`` on a tensor stays a finding when it is not bounded (``convert/loops.py``).
_UNBOUNDED = ("; not converted: `F.contrib.while_loop` needs a static `max_iterations`, shown only for a loop "
              "bounded by a counter (`i = 0`, `while i < n and <condition>:`, `i += 1`, `i` read nowhere "
              "else) whose body only assigns names")


_NP_NO_LOOP = ("; not converted: MXNet 1.9.1 has no `while_loop` for np-mode arrays (`F.contrib.while_loop` "
               "takes legacy arrays only, `mx.npx` none): keep the loop imperative or bound it by a static count")


def check(event: Event) -> Iterator[Report]:
    if event.value.is_tensor:
        what = _WORDS.get(event.construct, event.construct)
        hint = _UNBOUNDED if event.construct == "while" and while_fix(event, False) is None else ""
        if event.site.np_mode and event.construct == "while":
            hint = _NP_NO_LOOP
        yield Report(event.node, f"{what} on a tensor-dependent condition needs its truth value, which "
                                 f"a graph does not have; {event.why()}{hint}",
                     fix=lambda with_edits: condition_fix(event, with_edits) or while_fix(event, with_edits))


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
               "`F.contrib.cond(pred, then_func, else_func)` / `F.contrib.while_loop` for real control flow. "
               "`--fix` converts an `if`/`elif`/`else` whose branches only assign names, a conditional "
               "expression, and an early `if c: ...; return a` followed by `...; return b`: to "
               "`F.where` (the one-element condition broadcast along axis 0 with `F.broadcast_like`) when "
               "every branch is a pure `F` expression, else to `F.contrib.cond` with the branches as local "
               "functions (only the chosen one runs: child blocks allowed). Unsafe (`--unsafe-fixes`) unless "
               "every value provably has one shape in all branches (elementwise expressions of the same "
               "tensors). A `while` on a tensor becomes `F.contrib.while_loop` when a static "
               "`max_iterations` can be shown: `i = 0` ... `while i < n and <cond>:` with one `i += 1` and "
               "`i` read nowhere else, or `for _ in range(n):` opening with `if <cond>: break` (the "
               "condition negated with `F.logical_not`); the body may only assign names, and the names it "
               "carries between iterations become the loop variables. Side effects, `and`/`or`/`not`, "
               "`break`/`return` elsewhere and unbounded `while` loops are left to you.",
    events=(EventKind.CONDITION,),
    check=check,
    fixable=True,
    np_fixable=True,  # (np mode: the `F.np.where` select only; see convert/control_flow.py)
    np_advice="the select becomes `F.np.where(c, a, b)` (the condition 0-d: a full reduction, else "
              "`F.np.reshape(c, ())`); `cond` and `while` keep the finding: MXNet 1.9.1's `F.contrib.cond`/"
              "`while_loop` take legacy arrays only, `mx.npx` has no control flow, and bridged through "
              "`as_nd_ndarray` (as HY005's loops are) they fail hybridized (type inference).",
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
    fix_examples=(
        (example("h = F.relu(x)\ni = 0\nwhile i < 3 and F.norm(h) > 1:\n    h = h / 2\n    i += 1\nreturn h"),
         example("h = F.relu(x)\ndef loop_step(h):\n    h = h / 2\n    return [], [h]\n"
                 "_, [h] = F.contrib.while_loop(lambda h: F.norm(h) > 1, loop_step, [h], max_iterations=3)\nreturn h")),
        (example("h = self.fc(x)\nc = F.zeros_like(h)\nsteps = 1\nwhile F.norm(h) > 0.01 and steps <= self.n:\n"
                 "    c = c + h\n    h = F.tanh(self.fc(h))\n    steps = steps + 1\nreturn h, c", init=_LOOP),
         example("h = self.fc(x)\nc = F.zeros_like(h)\ndef loop_step(c, h):\n    c = c + h\n    h = F.tanh(self.fc(h))\n"
                 "    return [], [c, h]\n_, [c, h] = F.contrib.while_loop(lambda c, h: F.norm(h) > 0.01, loop_step, [c, h], "
                 "max_iterations=self.n)\nreturn h, c", init=_LOOP)),
        (example("h = F.relu(x)\nfor _ in range(6):\n    if F.norm(h) <= 1:\n        break\n    h = h / 2\nreturn h"),
         example("h = F.relu(x)\ndef loop_step(h):\n    h = h / 2\n    return [], [h]\n"
                 "_, [h] = F.contrib.while_loop(lambda h: F.logical_not(F.norm(h) <= 1), loop_step, [h], max_iterations=6)\n"
                 "return h")),
        (example("y = F.relu(x)\nif y.sum() > 0:\n    y = y * 2\nreturn y"),
         example(f"y = F.relu(x)\ny = F.where(F.broadcast_like(y.sum() > 0, y, {_AXES}), y * 2, y)\nreturn y")),
        (example("y = F.tanh(x)\nif y.sum() > 1:\n    y = y * 2\nelif y.sum() < -1:\n    y = -y\nelse:\n"
                 "    y = F.sigmoid(y)\nreturn y"),
         example(f"y = F.tanh(x)\ny = F.where(F.broadcast_like(y.sum() > 1, y, {_AXES}), y * 2, "
                 f"F.where(F.broadcast_like(y.sum() < -1, y, {_AXES}), -y, F.sigmoid(y)))\nreturn y")),
        (example("y = F.relu(x)\nz = F.sigmoid(x)\nif x.mean() > 0:\n    a = y * 2\n    b = z + 1\nelse:\n"
                 "    a = -y\n    b = z * z\nreturn a + b"),
         example(f"y = F.relu(x)\nz = F.sigmoid(x)\na = F.where(F.broadcast_like(x.mean() > 0, y, {_AXES}), y * 2, -y)\n"
                 f"b = F.where(F.broadcast_like(x.mean() > 0, z, {_AXES}), z + 1, z * z)\nreturn a + b")),
        (example("y = F.relu(x)\nreturn y * 2 if y.mean() > 0.5 else -y"),
         example(f"y = F.relu(x)\nreturn F.where(F.broadcast_like(y.mean() > 0.5, y, {_AXES}), y * 2, -y)")),
        (example("y = F.relu(x)\nif y.max() > 1:\n    return y / 2\nreturn y"),
         example(f"y = F.relu(x)\nreturn F.where(F.broadcast_like(y.max() > 1, y, {_AXES}), y / 2, y)")),
        (example("y = F.tanh(x)\ns = F.sum(y, axis=(0, 1, 2), keepdims=True)\nif s > 0:\n    y = F.abs(y)\nreturn y"),
         example(f"y = F.tanh(x)\ns = F.sum(y, axis=(0, 1, 2), keepdims=True)\n"
                 f"y = F.where(F.broadcast_like(F.reshape(s > 0, shape=(-1,)), y, {_AXES}), F.abs(y), y)\nreturn y")),
    ),
    unsafe_fix_examples=(
        (example("h = self.fc(x)\nif h.sum() > 0:\n    h = self.out(h)\nelse:\n    h = h * 2\nreturn h", init=_LAYERS),
         example("h = self.fc(x)\ndef then_branch(h=h):\n    h = self.out(h)\n    return h\n"
                 "def else_branch(h=h):\n    h = h * 2\n    return h\n"
                 "h = F.contrib.cond(h.sum() > 0, then_branch, else_branch)\nreturn h", init=_LAYERS)),
        (example("h = self.fc(x)\nif h.max() > 0:\n    t = self.out(h)\n    return F.relu(t)\nh = h * 2\nreturn h + 1",
                 init=_LAYERS),
         example("h = self.fc(x)\ndef then_branch():\n    t = self.out(h)\n    return F.relu(t)\n"
                 "def else_branch(h=h):\n    h = h * 2\n    return h + 1\n"
                 "return F.contrib.cond(h.max() > 0, then_branch, else_branch)", init=_LAYERS)),
        (example("h = self.fc(x)\ny = self.out(h) if h.mean() > 0 else h\nreturn y", init=_LAYERS),
         example("h = self.fc(x)\ny = F.contrib.cond(h.mean() > 0, lambda: self.out(h), lambda: h)\nreturn y",
                 init=_LAYERS)),
        (example("y = F.relu(x)\nz = F.dot(y, y, transpose_b=True)\nif z.sum() > 1:\n    z = z / 2\nelse:\n"
                 "    z = F.dot(y, F.ones_like(y), transpose_b=True)\nreturn z", inputs={"x": (3, 4)}),
         example(f"y = F.relu(x)\nz = F.dot(y, y, transpose_b=True)\nz = F.where(F.broadcast_like(z.sum() > 1, z, {_AXES}), "
                 f"z / 2, F.dot(y, F.ones_like(y), transpose_b=True))\nreturn z", inputs={"x": (3, 4)})),
    ),
)
