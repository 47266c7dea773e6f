"""HY013: arithmetic or a comparison of two tensors whose shapes (may) differ."""
import ast
from typing import Any, Iterator

from ..analysis import broadcast as BC
from ..analysis.events import Event, EventKind
from ..convert.broadcast import broadcast_fix
from ..diagnostics import Severity
from .base import Report, Rule, example, np_example


def _numpy_mode(event: Event) -> bool:
    """Is the module np-mode code, or the operation inside ``if is_np_array():`` (MXNet's NumPy
    mode, where Symbol operators broadcast too)?"""
    if event.site.np_mode:
        return True
    fn = event.site.function.node if event.site.function is not None else None
    if fn is None:
        return False
    for node in ast.walk(fn):
        if isinstance(node, (ast.If, ast.IfExp)) and any(
                isinstance(n, ast.Call) and (getattr(n.func, "id", None) or getattr(n.func, "attr", "")) in _NP_TESTS
                for n in ast.walk(node.test)):
            body = node.body if isinstance(node.body, list) else [node.body]
            if any(event.node is n for part in body for n in ast.walk(part)):
                return True
    return False


_NP_TESTS = frozenset({"is_np_array", "is_np_shape"})


def check(event: Event) -> Iterator[Report]:
    (left, left_node), (right, right_node) = event.args
    site = event.site

    def text(value: Any) -> str:
        if value is left or value is right:
            return site.text(left_node if value is left else right_node, 40)
        origin = getattr(value, "origin", None)
        return origin.text if origin is not None and origin.text else "a tensor"

    verdict = BC.compare(left, right, text)
    if verdict is None or _numpy_mode(event):
        return
    made = []  # where a named operand got its shape: ``g`` is ``gamma.reshape((1, -1, 1))``
    for value, node in ((left, left_node), (right, right_node)):
        dims = value.dims
        if dims is not None and dims.node is not None and dims.site is not None and dims.node is not node:
            made.append(f"`{site.text(node, 30)}` is `{dims.site.text(dims.node, 50)}` (line {dims.node.lineno})")
    reason = verdict.reason + (f" ({'; '.join(made)})" if made else "")
    symbol = BC.SYMBOLS[event.construct]
    how = "differ" if verdict.certain else "may differ"
    yield Report(
        event.node,
        f"`{symbol}` of two tensors whose shapes {how}: {reason}; NDArray `{symbol}` broadcasts "
        f"(`{BC.BROADCAST_OPS[event.construct]}`), Symbol `{symbol}` (`{BC.SYMBOL_OPS[event.construct]}`) needs "
        f"equal shapes and fails when the hybridized graph is built",
        fix=lambda with_edits: broadcast_fix(event, with_edits),
        severity=None if verdict.certain else Severity.WARNING,
    )


_GN = dict(signature="self, F, x, gamma, beta", inputs={"x": (2, 4, 3), "gamma": (4,), "beta": (4,)})

RULE = Rule(
    code="HY013",
    name="tensor-broadcast-arithmetic",
    severity=Severity.ERROR,
    summary="`a * b` (`+ - / % **`, comparisons) of two tensors whose shapes differ or may differ",
    rationale=(
        "Between two NDArrays MXNet's Python operators broadcast (`NDArray.__mul__` calls "
        "`broadcast_mul`), so `x - x.mean(axis=1, keepdims=True)` or `y * gamma.reshape((1, -1, 1))` "
        "runs imperatively; on Symbols they are elementwise (`elemwise_mul`, `_equal`, ...) and need "
        "equal shapes, so the hybridized block fails when its graph is built. The analysis follows "
        "what the code does to shapes: reductions with `keepdims=True` or over some axes, "
        "`expand_dims`, `t[0]`/`t[0:1]`/`t[None]`, `squeeze`, reshapes with literal codes, `F.ones((1, n))`. "
        "An error where the operands differ for every input (different ranks, or one is the other "
        "with axes reduced to length 1: equal only if those axes already have length 1); a warning "
        "where one operand has broadcasting length-1 axes the other is not known to have. In np-mode "
        "code (`npx.set_np()`) the np-mode Symbol's operators are NumPy's (`_npi_add`, ...), which "
        "broadcast: no finding."
    ),
    fix_advice="Call the broadcasting operator: `F.broadcast_add/sub/mul/div/mod/power` and "
               "`F.broadcast_equal/not_equal/lesser/lesser_equal/greater/greater_equal`. `--fix` does it; "
               "always safe: imperatively it is the operator NDArray already calls, and on equal shapes it "
               "computes what the elementwise one does.",
    events=(EventKind.BINARY_OP,),
    check=check,
    fixable=True,
    valid=(
        example("y = F.relu(x)\nm = F.mean(x, axis=1, keepdims=True)\nreturn y * x - (x > 0) + F.broadcast_sub(x, m) - F.broadcast_mul(m * m, x)"),
        example("a = F.expand_dims(x, axis=1)\nb = F.expand_dims(F.sigmoid(x), axis=1)\nreturn a * b + (a > 0)"),
        example("return x.sum(axis=0) - x.sum(axis=1)", inputs={"x": (3, 3)}),
        np_example("m = F.np.mean(x, axis=1, keepdims=True)\nreturn x - m + x * x.sum(axis=2, keepdims=True)"),
    ),
    invalid=(
        example("m = F.mean(x, axis=1, keepdims=True)\nreturn x - m  # expect: HY013"),
        example("return x * x.sum(axis=2)  # expect: HY013"),
        example("y = F.relu(x)\nreturn y[0:1] == y  # expect: HY010, HY013"),
        example("y = x.reshape((0, 0, -1))\nreturn y * gamma.reshape((1, -1, 1))  # expect: HY013", **_GN),
    ),
    fix_examples=(
        (example("m = F.mean(x, axis=1, keepdims=True)\nreturn x - m"),
         example("m = F.mean(x, axis=1, keepdims=True)\nreturn F.broadcast_sub(x, m)")),
        (example("m = F.max(x, axis=-1, keepdims=True)\nreturn x == m"),
         example("m = F.max(x, axis=-1, keepdims=True)\nreturn F.broadcast_equal(x, m)")),
        (example("m = F.mean(x, axis=(0, 2), keepdims=True)\nv = F.mean(F.square(x - m), axis=(0, 2), keepdims=True)\n"
                 "return (x - m) / F.sqrt(v + 1e-5)"),
         example("m = F.mean(x, axis=(0, 2), keepdims=True)\nv = F.mean(F.square(F.broadcast_sub(x, m)), axis=(0, 2), keepdims=True)\n"
                 "return F.broadcast_div(F.broadcast_sub(x, m), F.sqrt(v + 1e-5))")),
        (example("y = x.reshape((0, 0, -1))\nreturn y * gamma.reshape((1, -1, 1)) + beta.reshape((1, -1, 1))", **_GN),
         example("y = x.reshape((0, 0, -1))\n"
                 "return F.broadcast_add(F.broadcast_mul(y, gamma.reshape((1, -1, 1))), beta.reshape((1, -1, 1)))", **_GN)),
        (example("s = F.sigmoid(F.sum(x, axis=1, keepdims=True))\nreturn F.abs(x) % (s + 0.5) + F.abs(x) ** s"),
         example("s = F.sigmoid(F.sum(x, axis=1, keepdims=True))\n"
                 "return F.broadcast_mod(F.abs(x), s + 0.5) + F.broadcast_power(F.abs(x), s)")),
        (example("w = F.expand_dims(F.max(x, axis=1), axis=1)\nreturn x < w, F.slice_axis(x, axis=0, begin=1, end=2) >= x"),
         example("w = F.expand_dims(F.max(x, axis=1), axis=1)\n"
                 "return F.broadcast_lesser(x, w), F.broadcast_greater_equal(F.slice_axis(x, axis=0, begin=1, end=2), x)")),
    ),
)
