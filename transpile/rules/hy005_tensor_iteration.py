"""HY005: iterating over a single tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from ..convert.loops import comprehension_fix, row_loop_fix, unpack_fix
from .base import Report, Rule, example

_CELL = "self.cell = nn.Dense(4, flatten=False)"
#: How the iteration was written -> the conversion that may repair it (``transpile/convert/loops.py``).
_FIXES = {"for loop": row_loop_fix, "`enumerate()`": row_loop_fix, "`zip()`": row_loop_fix,
          "unpacking": unpack_fix, "comprehension": comprehension_fix}


def check(event: Event) -> Iterator[Report]:
    if event.value.is_tensor:
        fix = _FIXES.get(event.construct)
        if event.site.np_mode:
            # (loops and comprehensions: ``F.contrib.foreach`` bridged to legacy arrays; unpacking splits)
            yield Report(event.node, f"iterating over tensor `{event.subject_text()}` ({event.construct}): an "
                                     f"np-mode `Symbol` is not iterable (`TypeError` when the block is "
                                     f"hybridized); {event.why()}",
                         fix=(lambda with_edits: fix(event, with_edits)) if fix is not None else None)
            return
        yield Report(event.node, f"iterating over tensor `{event.subject_text()}` ({event.construct}): a "
                                 f"`Symbol` iterates over its outputs (one), not over rows; {event.why()}",
                     fix=(lambda with_edits: fix(event, with_edits)) if fix is not None else None)


RULE = Rule(
    code="HY005",
    name="tensor-iteration",
    severity=Severity.ERROR,
    summary="iteration over a tensor (`for r in t`, `enumerate(t)`, `zip(t, ..)`, `a, b = t`)",
    rationale=(
        "Iterating an NDArray yields its rows, but iterating a `Symbol` yields its *outputs*: one "
        "for an ordinary operator. A hybridized loop therefore runs once, silently computing "
        "something else. Iterating a list of tensors or a multi-output result "
        "(`F.split(x, num_outputs=2)`) is fine. In np-mode code (`npx.set_np()`) iterating the "
        "np-mode `Symbol` raises `TypeError` (MXNet 1.9.1) instead."
    ),
    fix_advice="Split explicitly: `F.split(t, num_outputs=n, axis=0)` (n static), or use "
               "`F.contrib.foreach` to loop over the first axis. `--fix` converts a `for` loop over rows "
               "(`for r in t`, `enumerate(t)`, `zip(t, u)`) whose body only assigns names and appends to "
               "lists into `F.contrib.foreach`: names carried from row to row become its states, each "
               "list filled once per row one of its outputs, and `F.stack(*lst)`, `F.concat(*lst, dim=0|1)` "
               "or `F.add_n(*lst)` after the loop the same computation on the stacked output (`F.reshape` "
               "with codes -3/-2, `F.swapaxes`, `F.sum`). Unsafe (`--unsafe-fixes`) with several tensors "
               "(equal lengths are assumed), without a list (over zero rows `foreach` fails), or when the "
               "function writes tensors in place (rows were views). A list comprehension `[f(r) for r in t]` "
               "only star-unpacked into those calls becomes `F.contrib.foreach(lambda r, states: (f(r), []), "
               "t, [])[0]`. `a, b = t` becomes `F.split` + "
               "`F.squeeze` (unsafe: another length raises MXNetError instead of ValueError). Left to you: "
               "`break`/`continue`/`return`, `if`s or side effects in the body, a counter used as a "
               "number, other uses of the list.",
    events=(EventKind.ITERATE,),
    check=check,
    valid=(
        example("a, b = F.split(x, num_outputs=2)\nouts = [F.relu(p) for p in F.split(x, num_outputs=3)]\n"
                "for layer in self.layers:\n    a = layer(a)\nreturn a + b", init="self.layers = []"),
        # inputs the code itself treats as lists: zipped with the children, unpacked, `len()`, `is None`
        example("outs = [blk(xi) for blk, xi in zip(self._children.values(), x)]\nreturn F.concat(*outs, dim=1)"),
        example("h, c = states\nreturn x + h + c", signature="self, F, x, states"),
        example("if extra is None:\n    return x\nreturn F.concat(x, *[F.relu(e) for e in extra], dim=1)",
                signature="self, F, x, extra=None"),
    ),
    invalid=(
        # an input of hybrid_forward is a tensor (MXNet's contract): a loop over it runs once, hybridized
        example("out = []\nfor row in x:  # expect: HY005\n    out.append(self.fc(row))\nreturn F.stack(*out)",
                init="self.fc = nn.Dense(3)"),
        example("return F.concat(*[F.one_hot(t, 4) for t in target], dim=0)  # expect: HY005",
                signature="self, F, x, target"),
        example("y = F.relu(x)\nfor row in y:  # expect: HY005\n    pass\nreturn y"),
        example("y = F.relu(x)\nfor i, row in enumerate(y):  # expect: HY005\n    pass\nreturn y"),
        example("y = F.relu(x)\nfirst, second = y  # expect: HY005\nreturn first"),
    ),
    fixable=True,
    np_fixable=True,  # (np mode: unpacking only, `F.np.split`; loops keep the finding)
    np_advice="`a, b = t` becomes `F.np.squeeze` of `F.np.split(t, 2, axis=0)` (unsafe, as above); a loop "
              "over rows becomes `F.contrib.foreach` as above with its arrays bridged (MXNet 1.9.1's `_foreach` "
              "takes legacy arrays only, `mx.npx` has none): `t.as_nd_ndarray()` in, `r = r.as_np_ndarray()` "
              "opening the body, `.as_nd_ndarray()` on what it returns, `.as_np_ndarray()` after the call; "
              "`F.np.stack(lst, axis=0|1)` / `F.np.concatenate(lst, axis=0|1)` after the loop as `F.np.swapaxes` / "
              "`F.npx.reshape` of the stacked output; a comprehension `[f(r) for r in t]` stacked so likewise "
              "(`F.contrib.foreach(lambda r, states: (f(r.as_np_ndarray()).as_nd_ndarray(), []), "
              "t.as_nd_ndarray(), [])[0].as_np_ndarray()`).",
    fix_examples=(
        (example("h = F.relu(x)\nrows = []\nfor r in h:\n    rows.append(r * 2)\nreturn F.concat(*rows, dim=0)"),
         example("h = F.relu(x)\ndef loop_body(r, states):\n    return r * 2, []\nrows, _ = F.contrib.foreach(loop_body, h, [])\n"
                 "return F.reshape(rows, shape=(-3, -2))")),
        (example("h = F.zeros_like(F.sum(x, axis=0))\nouts = []\nfor r in x:\n    h = F.tanh(self.cell(r) + h)\n"
                 "    outs.append(h)\nreturn F.stack(*outs), h", init=_CELL),
         example("h = F.zeros_like(F.sum(x, axis=0))\ndef loop_body(r, h):\n    h = F.tanh(self.cell(r) + h)\n"
                 "    return h, h\nouts, h = F.contrib.foreach(loop_body, x, h)\nreturn outs, h", init=_CELL)),
        (example("h = self.cell(x)\nouts = []\nfor i, r in enumerate(h):\n    s = F.sigmoid(r)\n    outs.append(s * r)\n"
                 "return F.stack(*outs, axis=1)", init=_CELL),
         example("h = self.cell(x)\ndef loop_body(r, states):\n    s = F.sigmoid(r)\n    return s * r, []\n"
                 "outs, _ = F.contrib.foreach(loop_body, h, [])\nreturn F.swapaxes(outs, dim1=0, dim2=1)", init=_CELL)),
        (example("h = F.relu(x)\nc = F.zeros_like(F.sum(h, axis=0))\nlows = []\nhighs = []\nfor r in h:\n"
                 "    c = c + r\n    lows.append(F.minimum(c, r))\n    highs.append(F.maximum(c, r))\n"
                 "return F.concat(*lows), F.stack(*highs), c"),
         example("h = F.relu(x)\nc = F.zeros_like(F.sum(h, axis=0))\ndef loop_body(r, c):\n    c = c + r\n"
                 "    lows_row = F.minimum(c, r)\n    highs_row = F.maximum(c, r)\n    return [lows_row, highs_row], c\n"
                 "[lows, highs], c = F.contrib.foreach(loop_body, h, c)\n"
                 "return F.reshape(F.swapaxes(lows, dim1=0, dim2=1), shape=(0, -3, -2)), highs, c")),
        (example("h = F.relu(x)\nreturn F.concat(*[F.sigmoid(r) * r for r in h], dim=0)"),
         example("h = F.relu(x)\nreturn F.reshape(F.contrib.foreach(lambda r, states: (F.sigmoid(r) * r, []), h, [])[0], "
                 "shape=(-3, -2))")),
        (example("h = F.relu(x)\nouts = [self.cell(r) for r in h]\nreturn F.stack(*outs, axis=1)", init=_CELL),
         example("h = F.relu(x)\nouts = F.contrib.foreach(lambda r, states: (self.cell(r), []), h, [])[0]\n"
                 "return F.swapaxes(outs, dim1=0, dim2=1)", init=_CELL)),
    ),
    unsafe_fix_examples=(
        (example("a = F.relu(x)\nb = F.sigmoid(x)\nouts = []\nfor p, q in zip(a, b):\n    outs.append(p * q)\n"
                 "return F.add_n(*outs)"),
         example("a = F.relu(x)\nb = F.sigmoid(x)\ndef loop_body(rows, states):\n    p, q = rows\n    return p * q, []\n"
                 "outs, _ = F.contrib.foreach(loop_body, [a, b], [])\nreturn F.sum(outs, axis=0)")),
        (example("h = F.relu(x)\nlo = F.zeros_like(F.sum(h, axis=0))\nhi = lo\nfor r in h:\n    lo = F.minimum(lo, r)\n"
                 "    hi = F.maximum(hi, r)\nreturn hi - lo"),
         example("h = F.relu(x)\nlo = F.zeros_like(F.sum(h, axis=0))\nhi = lo\ndef loop_body(r, states):\n"
                 "    lo, hi = states\n    lo = F.minimum(lo, r)\n    hi = F.maximum(hi, r)\n    return [], [lo, hi]\n"
                 "_, [lo, hi] = F.contrib.foreach(loop_body, h, [lo, F.identity(hi)])\nreturn hi - lo")),
        (example("y = F.relu(x)\nfirst, second = y\nreturn first - second", inputs={"x": (2, 3)}),
         example("y = F.relu(x)\nfirst, second = [F.squeeze(part, axis=0) for part in F.split(y, num_outputs=2, axis=0)]\n"
                 "return first - second", inputs={"x": (2, 3)})),
        (example("y = F.sum(x, axis=(1, 2))\nfirst, second = y\nreturn first * second"),
         example("y = F.sum(x, axis=(1, 2))\nfirst, second = [F.squeeze(part, axis=0) for part in F.split(y, num_outputs=2, axis=0)]\n"
                 "return first * second")),
    ),
)
