"""HY006: shape and metadata of a tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis import knowledge as K
from ..analysis.events import Event, EventKind
from ..convert.loops import in_range_loop, row_loop_fix
from ..convert.shapes import metadata_fix
from .base import Report, Rule, example


def _fix(event: Event):
    """``for i in range(len(t))`` / ``range(t.shape[0])``: the loop's conversion (convert/loops.py);
    any other read: the shape conversions (convert/shapes.py)."""
    if in_range_loop(event):
        return lambda with_edits: row_loop_fix(event, with_edits)
    return lambda with_edits: metadata_fix(event, with_edits)


def check(event: Event) -> Iterator[Report]:
    if event.kind is EventKind.ATTRIBUTE:
        if event.name in K.METADATA_ATTRS and event.value.is_tensor:
            yield Report(event.node, f"`.{event.name}` of a tensor is not known while a graph is built "
                                     f"(`Symbol` has no `{event.name}`); {event.why()}",
                         fix=_fix(event))
    elif event.name == "builtins.len" and event.args:
        value, node = event.args[0]
        if value.is_tensor and event.site.np_mode:
            yield Report(event.node, f"`len()` of a tensor raises `TypeError` once hybridized (an np-mode "
                                     f"`Symbol` is not a list); {event.why(value, node)}", fix=_fix(event))
        elif value.is_tensor:
            yield Report(event.node, f"`len()` of a tensor is its number of outputs (1) once hybridized, "
                                     f"not its first dimension; {event.why(value, node)}",
                         fix=_fix(event))


#: ``for i in range(len(t))`` conversions (``convert/loops.py``, with HY005's row loops).
_RANGE_LOOPS = (
    (example("h = F.relu(x)\nouts = []\nfor i in range(h.shape[0]):\n    outs.append(F.sigmoid(h[i]) * 2)\n"
             "return F.concat(*outs)"),
     example("h = F.relu(x)\ndef loop_body(h_row, states):\n    return F.sigmoid(h_row) * 2, []\n"
             "outs, _ = F.contrib.foreach(loop_body, h, [])\n"
             "return F.reshape(F.swapaxes(outs, dim1=0, dim2=1), shape=(0, -3, -2))")),
)
_UNSAFE_RANGE_LOOPS = (
    (example("h = F.relu(x)\ng = F.sigmoid(x)\nacc = F.zeros_like(F.sum(h, axis=0))\nfor i in range(len(h)):\n"
             "    acc = acc + h[i] * g[i]\nreturn acc"),
     example("h = F.relu(x)\ng = F.sigmoid(x)\nacc = F.zeros_like(F.sum(h, axis=0))\ndef loop_body(rows, acc):\n"
             "    h_row, g_row = rows\n    acc = acc + h_row * g_row\n    return [], acc\n"
             "_, acc = F.contrib.foreach(loop_body, [h, g], acc)\nreturn acc")),
)


RULE = Rule(
    code="HY006",
    name="tensor-metadata",
    severity=Severity.ERROR,
    summary="shape/metadata of a tensor (`.shape`, `.size`, `.ndim`, `.dtype`, `.context`, `len(t)`)",
    rationale=(
        "Shapes are inferred when the graph is bound, after `hybrid_forward` has run; a `Symbol` "
        "has no `.shape`, and `len(symbol)` counts outputs. Code that computes with shapes works "
        "imperatively and breaks, or silently changes meaning, once hybridized. The np-mode "
        "`Symbol` (`npx.set_np()`) has no `.shape`/`.ndim`/`.size`/`.dtype` either, and `len()` of it "
        "raises `TypeError`."
    ),
    fix_advice="Use shape-free operators: `F.shape_array(t)` for a shape tensor, `reshape` codes "
               "(`0`, `-1`, `-2`, `-3`, `-4`), `F.zeros_like`/`F.ones_like`/`F.broadcast_like`. `--fix` does it "
               "where the rewrite provably computes the same (transpile/convert/shapes.py): a reshape of the "
               "measured tensor -> codes (`x.reshape((b, c, h * w))` -> `x.reshape((0, 0, -3))`), another "
               "tensor's whole shape -> `F.reshape_like`, `F.zeros`/`F.ones` sized by a tensor -> built from it "
               "(`*_like`), `broadcast_to`/`repeat` to its dims -> `F.broadcast_like`; `--unsafe-fixes` also "
               "turns arithmetic with a shape (`x / x.shape[1]`, `F.sum(x) / len(x)`) into `F.shape_array` + "
               "`F.slice_axis` (assumes float32 tensors) and constructors without `ctx=x.context`. A number "
               "used in Python (printed, compared, passed on) keeps the finding; `for i in range(len(t))` / "
               "`range(t.shape[0])` whose counter only selects rows (`t[i]`, `u[i]`) becomes "
               "`F.contrib.foreach` over those tensors (see HY005).",
    events=(EventKind.ATTRIBUTE, EventKind.CALL),
    check=check,
    fixable=True,
    np_fixable=True,  # (np mode: `F.npx.reshape` codes, `F.npx.shape_array`; see convert/shapes.py)
    np_advice="a reshape of the measured tensor becomes `F.npx.reshape` with its codes (`-2` copy, `-4` "
              "the rest, `-5` merge, `-6` split, `reverse=True`), another tensor's shape `F.npx.reshape_like`, "
              "arithmetic with a dimension `F.np.multiply(x, F.npx.shape_array(x)[i].astype('float32'))` "
              "(unsafe: float32; `x.size`, `x.ndim` from it too), `F.np.zeros(x.shape)` `F.np.zeros_like(x, dtype='float32')`, a shape of one axis "
              "of `x` and static sizes (`(x.shape[0], n)`) that axis as a vector (`F.npx.reshape(x, (-2, -1))[:, 0]`) "
              "placed and `F.np.tile`d; `range(len(t))` loops as HY005's (`F.contrib.foreach`, arrays bridged). "
              "`broadcast_to`/`repeat` keep the finding (no `broadcast_like` in MXNet 1.9.1's np interface).",
    valid=(
        example("y = F.reshape(x, (0, -1))\nz = F.zeros_like(y)\nn = len(self.layers)\nreturn y + z * n",
                init="self.layers = []"),
    ),
    invalid=(
        example("batch = x.shape[0]  # expect: HY006\nreturn F.reshape(x, (batch, -1))"),
        example("y = F.relu(x)\nn = len(y)  # expect: HY006\nreturn y / n"),
        example("y = F.relu(x)\nif y.shape[1] > 2:  # expect: HY006\n    y = y * 2\nreturn y"),
        example("y = self.fc(x)\nreturn y.reshape((x.shape[0], -1))  # expect: HY006", init="self.fc = nn.Dense(4)"),
        example("y = F.relu(x)\nreturn x.astype(y.dtype)  # expect: HY006"),
    ),
    fix_examples=_RANGE_LOOPS + (
        (example("b, c, h, w = x.shape\ny = x.reshape((b, c, h * w))\nreturn F.relu(y)", inputs={"x": (2, 3, 4, 5)}),
         example("y = x.reshape((0, 0, -3))\nreturn F.relu(y)", inputs={"x": (2, 3, 4, 5)})),
        (example("n = x.shape[0]\nreturn F.reshape(x, (n, -1))"),
         example("return F.reshape(x, shape=(0, -1))")),
        (example("return x.reshape((-1, x.shape[-1]))"),
         example("return x.reshape((-1, 0), reverse=True)")),
        (example("b, c, h = x.shape\nreturn x.reshape((b, 2, c // 2, h))", inputs={"x": (2, 4, 3)}),
         example("return x.reshape((0, -4, 2, -1, 0))", inputs={"x": (2, 4, 3)})),
        (example("return x.reshape((-1,) + x.shape[2:])", inputs={"x": (2, 3, 4, 5)}),
         example("return x.reshape((-3, -2))", inputs={"x": (2, 3, 4, 5)})),
        (example("return x.reshape((-1, 2) + x.shape[1:])", inputs={"x": (4, 3, 5)}),
         example("return x.reshape((-4, -1, 2, -2))", inputs={"x": (4, 3, 5)})),
        (example("y = F.transpose(x)\nreturn y.reshape(x.shape)"),
         example("y = F.transpose(x)\nreturn F.reshape_like(y, x)")),
        (example("y = F.reshape(x, (-1, 20))\nreturn y.reshape(x.shape[:2] + y.shape[1:])", inputs={"x": (2, 3, 4, 5)}),
         example("y = F.reshape(x, (-1, 20))\nreturn F.reshape_like(y, x, lhs_end=1, rhs_end=2)",
                 inputs={"x": (2, 3, 4, 5)})),
        (example("return F.zeros(x.shape, dtype=x.dtype, ctx=x.context) + x"),
         example("return F.zeros_like(x) + x")),
        (example("batch = x.shape[0]\nscale = F.ones((batch * self.groups,), ctx=x.context)\nreturn scale",
                 init="self.groups = 3"),
         example("scale = F.cast(F.ones_like(F.reshape(F.tile(F.expand_dims(F.sum(x, axis=(0,), exclude=True), "
                 "axis=1), reps=(1, self.groups)), shape=(-3,))), dtype='float32')\nreturn scale",
                 init="self.groups = 3")),
        (example("h = F.zeros((1, self.units), ctx=x.context)\nreturn h + 1", init="self.units = 4"),
         example("h = F.cast(F.zeros_like(F.tile(F.reshape(F.sum(x), shape=(1, 1)), reps=(1, self.units))), "
                 "dtype='float32')\nreturn h + 1", init="self.units = 4")),
        (example("b, d = x.shape\nreturn x.expand_dims(1).broadcast_to((b, b, d))", inputs={"x": (3, 4)}),
         example("return F.broadcast_like(x.expand_dims(1), x, lhs_axes=(1,), rhs_axes=(0,))", inputs={"x": (3, 4)})),
        (example("t = F.expand_dims(F.sum(x, axis=0), axis=0)\nreturn F.repeat(t, len(x), axis=0)"),
         example("t = F.expand_dims(F.sum(x, axis=0), axis=0)\nreturn F.broadcast_like(t, x, lhs_axes=(0,), rhs_axes=(0,))")),
    ),
    unsafe_fix_examples=_UNSAFE_RANGE_LOOPS + (
        (example("return x / x.shape[1]"),
         example("return F.broadcast_div(x, F.cast(F.slice_axis(F.shape_array(x), axis=0, begin=1, end=2), "
                 "dtype='float32'))")),
        (example("y = F.relu(x)\nreturn F.sum(y) / len(y)"),
         example("y = F.relu(x)\nreturn F.broadcast_div(F.sum(y), F.cast(F.slice_axis(F.shape_array(y), axis=0, "
                 "begin=0, end=1), dtype='float32'))")),
        ("import math\n" + example("d = x.shape[-1]\nreturn F.batch_dot(x, x, transpose_b=True) / math.sqrt(d)"),
         "import math\n" + example("return F.broadcast_div(F.batch_dot(x, x, transpose_b=True), F.cast(F.sqrt("
                                   "F.cast(F.slice_axis(F.shape_array(x), axis=0, begin=-1, end=None), "
                                   "dtype='float64')), dtype='float32'))")),
        (example("z = F.zeros((x.shape[0], 4))\nreturn z + 1"),
         example("z = F.cast(F.zeros_like(F.tile(F.expand_dims(F.sum(x, axis=(0,), exclude=True), axis=1), "
                 "reps=(1, 4))), dtype='float32')\nreturn z + 1")),
    ),
)
