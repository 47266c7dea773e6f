"""HY003: item or slice assignment into a tensor."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis.events import Event, EventKind
from ..convert.assignment import assignment_fix
from .base import Report, Rule, example


def check(event: Event) -> Iterator[Report]:
    if event.value.is_tensor:
        kind = "augmented item assignment" if event.construct != "=" else "item assignment"
        yield Report(event.node, f"{kind} into tensor `{event.subject_text()}`: a `Symbol` cannot be "
                                 f"written in place; {event.why()}",
                     fix=lambda with_edits: assignment_fix(event, with_edits))


RULE = Rule(
    code="HY003",
    name="tensor-item-assignment",
    severity=Severity.ERROR,
    summary="item/slice assignment into a tensor (`t[:] = u`, `t[0] = 1`)",
    rationale=(
        "Writing into part of an NDArray mutates it; a `Symbol` is an immutable graph node with no "
        "`__setitem__`, so the statement fails when hybridized (the seed chapter's `a[:] = a + b`). "
        "Item assignment into a Python list of tensors is fine."
    ),
    fix_advice="Build a new tensor instead: `t = F.where(mask, u, t)`, `F.concat(...)` of slices, or "
               "`F.contrib.index_copy` for rows. `--fix` rewrites a number written into (or added to, "
               "subtracted from, multiplying, dividing) a region with a literal key into "
               "`F.where(mask, ..., t)` (the mask from `F._internal._slice_assign_scalar` behind "
               "`F.BlockGrad`, since MXNet 1.9.1 registers no gradient for it and a hybridized block "
               "builds its backward graph), and a tensor written into the whole array into a "
               "broadcast, exactly as NDArray assignment broadcasts. A tensor written into part of the "
               "array is left to you. The fix rebinds the name, so it is unsafe (only with "
               "`--unsafe-fixes`) when anything else still sees the old array (the caller's input, "
               "another name, a view).",
    events=(EventKind.SUBSCRIPT_STORE,),
    check=check,
    fixable=True,
    np_fixable=True,  # (np mode: `F.np.concatenate` of the pieces; see convert/assignment.py)
    np_advice="the array is rebuilt from its pieces along each written axis with `F.np.concatenate` (an "
              "np-mode `Symbol` slices like NumPy; `F.np._internal.slice_assign*` register no gradient): "
              "`y[1] = 3` -> `F.np.concatenate([y[:1], F.np.full_like(y[1:2], 3), y[2:]], axis=0)`, `y[:, :2] += 1` "
              "-> `F.np.concatenate([y[:, :2] + 1, y[:, 2:]], axis=1)`, a tensor into slices or the whole array "
              "`F.npx.reshape_like(F.np.zeros_like(region) + t, region)` (integer keys leading: `y[0] = t`). Steps, "
              "a tensor under an integer key after a slice and "
              "bounds whose pieces could overlap (`y[1:-1]`) keep the finding.",
    valid=(
        example("outs = [F.relu(x), F.sigmoid(x)]\nouts[0] = outs[0] * 2\nreturn F.concat(*outs, dim=1)"),
        example("parts = list(F.split(x, num_outputs=2))\nparts[0] = parts[0] + 1\nreturn parts"),
    ),
    invalid=(
        example("a = F.relu(x)\nb = F.sigmoid(x)\na[:] = a + b  # expect: HY003\nreturn a"),
        example("y = x * 2\ny[0] = 1  # expect: HY003\ny[:, 0] += 1  # expect: HY003\nreturn y"),
        example("y = x * 2\ny[:, self.k] = self.fill  # expect: HY003\nreturn y", init="self.k = 1\nself.fill = 0.5"),
        example("y = x * 2\ny[0] = F.sigmoid(x)[1]  # expect: HY003, HY010\nreturn y"),
    ),
    fix_examples=(
        (example("a = F.relu(x)\nb = F.sigmoid(x)\na[:] = a + b\nreturn a"),
         example("a = F.relu(x)\nb = F.sigmoid(x)\na = F.reshape_like(F.broadcast_add(F.zeros_like(a), a + b), a)\nreturn a")),
        (example("y = x * 2\ny[0] = 1  # first row\nreturn y"),
         example("y = x * 2\ny = F.where(F.BlockGrad(F._internal._slice_assign_scalar(F.zeros_like(y), scalar=1, "
                 "begin=(0,), end=(1,))), F.ones_like(y) * 1, y)  # first row\nreturn y")),
        (example("y = x * 2\ny[:, 0] += 1\nreturn y"),
         example("y = x * 2\ny = F.where(F.BlockGrad(F._internal._slice_assign_scalar(F.zeros_like(y), scalar=1, "
                 "begin=(None, 0), end=(None, 1))), y + 1, y)\nreturn y")),
        (example("y = x * 2\ny[-1, ::2, 1:] *= -0.5\nreturn y"),
         example("y = x * 2\ny = F.where(F.BlockGrad(F._internal._slice_assign_scalar(F.zeros_like(y), scalar=1, "
                 "begin=(-1, None, 1), end=(None, None, None), step=(None, 2, None))), y * -0.5, y)\nreturn y")),
        (example("y = x * 2\ny[...] = 3\ny[:] /= F.sigmoid(x)[0]\nreturn y"),
         example("y = x * 2\ny = F.ones_like(y) * 3\ny = F.reshape_like(F.broadcast_div(y, "
                 "F.squeeze(F.slice_axis(F.sigmoid(x), axis=0, begin=0, end=1), axis=0)), y)\nreturn y")),
    ),
    unsafe_fix_examples=(
        (example("x[0, 1] = 0\nreturn x * 2"),
         example("x = F.where(F.BlockGrad(F._internal._slice_assign_scalar(F.zeros_like(x), scalar=1, "
                 "begin=(0, 1), end=(1, 2))), F.ones_like(x) * 0, x)\nreturn x * 2")),
    ),
)
