"""HY010: subscript read of a single tensor."""
import ast
from typing import Iterator, Optional

from ..analysis.events import Event, EventKind
from ..convert.indexing import indexing_fix, int_literal, np_key_fix, np_last_row_fix
from ..diagnostics import Severity
from .base import Report, Rule, example, np_example


def _np_rejected(event: Event) -> Optional[ast.AST]:
    """The part of the key an np-mode Symbol refuses, or ``None``.

    MXNet 1.9.1's ``_Symbol.__getitem__`` slices like NumPy for integers, slices and tuples of
    them, and raises ``IndexError`` for anything else (``None``, ``...``, lists, tensors).
    Names and expressions of unknown value are not reported (an integer variable is fine).
    """
    key = event.node.slice  # type: ignore[attr-defined]
    for part in (key.elts if isinstance(key, ast.Tuple) else [key]):
        if isinstance(part, ast.Slice):
            continue
        if isinstance(part, ast.Constant) and (part.value is None or part.value is Ellipsis):
            return part
        if isinstance(part, (ast.List, ast.ListComp, ast.Tuple)):
            return part
        value = event.value_of(part)
        if value is not None and value.holds_tensor:
            return part
    return None


def check(event: Event) -> Iterator[Report]:
    if event.site.np_mode:
        if event.value.is_tensor and int_literal(event.node.slice) == -1:  # type: ignore[attr-defined]
            yield Report(event.node, f"`{event.subject_text()}[-1]`: MXNet 1.9.1's np-mode `Symbol` reads a lone "
                                     f"`-1` key as the empty `slice(-1, 0)` (the hybridized block fails); "
                                     f"{event.why()}",
                         fix=lambda with_edits: np_last_row_fix(event, with_edits))
            return
        part = _np_rejected(event) if event.value.is_tensor else None
        if part is not None:
            yield Report(event.node, f"indexing tensor `{event.subject_text()}` with `{event.site.text(part, 30)}`: "
                                     f"an np-mode `Symbol` takes only integers, slices and tuples of them "
                                     f"(`IndexError` when the block is hybridized); {event.why()}",
                         fix=lambda with_edits: np_key_fix(event, with_edits))
        return
    if event.value.is_tensor:
        yield Report(event.node, f"indexing tensor `{event.subject_text()}`: on a `Symbol`, `[i]` selects "
                                 f"an *output* of the graph node, not rows; {event.why()}",
                     fix=lambda with_edits: indexing_fix(event, with_edits))


RULE = Rule(
    code="HY010",
    name="tensor-indexing",
    severity=Severity.ERROR,
    summary="subscript read of a single tensor (`t[0]`, `t[:, :2]`, `t[1:]`)",
    rationale=(
        "`t[0]` on an NDArray is its first row; on a `Symbol` it is the first *output* of the "
        "operator, i.e. `t` itself, so hybridized code silently computes something else (and "
        "slices fail). Indexing a list of tensors or a multi-output result is fine. In np-mode "
        "code (`npx.set_np()`) the Symbol is MXNet's np-mode `_Symbol`, which slices like NumPy "
        "for integers, slices and tuples of them (`_npi_slice` + `_npx_reshape`) and raises "
        "`IndexError` for `None`, `...`, lists and tensors: only those are reported there, and a lone "
        "`t[-1]`, which MXNet 1.9.1 slices as `t[-1:0]` (empty: the graph fails; `t[-1, 0]` is right)."
    ),
    fix_advice="Use `F.slice_axis(t, axis=0, begin=0, end=1)`, `F.slice`, `F.take(t, idx)` or "
               "`F.split(t, num_outputs=n)`. `--fix` rewrites literal keys (integers, slices, one "
               "`...` followed by integers) into `F.slice` / `F.slice_axis` + `F.squeeze`, which "
               "clamp and drop axes exactly like NDArray indexing; the rewrite is unsafe (only with "
               "`--unsafe-fixes`) when the function also updates tensors in place, because the "
               "indexed NDArray was a view and the new value is not. Keys with names, tensors, "
               "`None` or slices after `...` are left to you. In np-mode code: `F.np.expand_dims(t, 0)` "
               "for `t[None]` (`--fix` does it where one `None` stands among full slices `:`: safe), "
               "`F.np.squeeze(t[-1:], axis=0)` for `t[-1]` (`--fix`: safe), `F.np.moveaxis` for `...` "
               "(`--fix`: `t[..., 0]` -> `F.np.moveaxis(t, -1, 0)[0]`), `F.np.take(t, idx, axis=...)` for "
               "lists and tensors.",
    events=(EventKind.SUBSCRIPT_LOAD,),
    check=check,
    fixable=True,
    np_fixable=True,  # (np-mode reports carry only the np conversion below)
    np_advice="`t[None]` among full slices becomes `F.np.expand_dims(t, axis)`, `t[-1]` "
              "`F.np.squeeze(t[-1:], axis=0)`, a literal key with `...` the same key without it, its last "
              "components on the last axes brought to the front with `F.np.moveaxis` (`t[..., 1:3]` -> "
              "`F.np.moveaxis(F.np.moveaxis(t, -1, 0)[1:3], 0, -1)`); lists, tensors and names keep the finding.",
    valid=(
        example("parts = F.split(x, num_outputs=2, axis=1)\nreturn parts[0] + parts[1]"),
        # read at several literal positions, at `[-1]` or at a loop's position: a list or tuple input
        example("return states[0] + states[1]", signature="self, F, x, states"),
        example("return F.contrib.BilinearResize2D(x, height=size[0], width=size[1])", signature="self, F, x, size"),
        example("y = self.up(feats[-1])\nfor i in range(3):\n    y = y + feats[i]\nreturn y",
                signature="self, F, feats", init="self.up = nn.Conv2D(4, 1)"),
        np_example("y = F.npx.relu(x)\nreturn y[0] + y[1, :, ::2].sum() + y[:, -1, 1:3].mean()"),
    ),
    invalid=(
        example("y = F.relu(x)\nreturn y[0]  # expect: HY010"),
        # an input of hybrid_forward is a tensor (MXNet's contract): hybridized, `x[0]` is `x` itself
        example("return x[0] * 2  # expect: HY010"),
        example("return x[:, :2]  # expect: HY010"),
        example("y = x * 2\nk = 1\nk += 1\nreturn y[0] * k  # expect: HY010"),
        example("return x[:, self.k]  # expect: HY010", init="self.k = 1"),
        np_example("y = F.npx.relu(x)\nreturn y[None].sum() + y[..., 0].sum()  # expect: HY010"),
    ),
    fix_examples=(
        (example("y = F.relu(x)\nreturn y[0]"),
         example("y = F.relu(x)\nreturn F.squeeze(F.slice_axis(y, axis=0, begin=0, end=1), axis=0)")),
        (example("return x[:, :2] + 1"),
         example("return F.slice(x, begin=(None, None), end=(None, 2)) + 1")),
        (example("y = F.relu(x)\nreturn F.concat(y[1:], y[:10], dim=0)", inputs={"x": (3, 4)}),
         example("y = F.relu(x)\nreturn F.concat(F.slice(y, begin=(1,), end=(None,)), F.slice(y, begin=(None,), end=(10,)), dim=0)",
                 inputs={"x": (3, 4)})),
        (example("return x[..., -1]"),
         example("return F.squeeze(F.slice_axis(x, axis=-1, begin=-1, end=None), axis=-1)")),
        (example("return x[-1, ::2, 1:-1]"),
         example("return F.squeeze(F.slice(x, begin=(-1, None, 1), end=(None, None, -1), step=(None, 2, None)), axis=0)")),
        (example("return x[::-1, 1, :]"),
         example("return F.squeeze(F.slice(x, begin=(None, 1), end=(None, 2), step=(-1, None)), axis=1)")),
        (example("return x[0, ..., 1][:5]"),
         example("return F.slice(F.squeeze(F.slice_axis(F.slice_axis(x, axis=0, begin=0, end=1), axis=-1, begin=1, end=2), "
                 "axis=(0, -1)), begin=(None,), end=(5,))")),
        (example("h = F.relu(x)\nreturn h[1].reshape(2, -1)"),
         example("h = F.relu(x)\nreturn F.squeeze(F.slice_axis(h, axis=0, begin=1, end=2), axis=0).reshape((2, -1))")),
        (example("return x[1, 2, 3]"),
         example("return F.squeeze(F.slice(x, begin=(1, 2, 3), end=(2, 3, 4)), axis=(0, 1, 2))")),
    ),
    unsafe_fix_examples=(
        (example("y = x * 2\nk = 1\nk += 1\nreturn y[0] * k"),
         example("y = x * 2\nk = 1\nk += 1\nreturn F.squeeze(F.slice_axis(y, axis=0, begin=0, end=1), axis=0) * k")),
    ),
)
