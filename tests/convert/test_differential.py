"""Differential tests of the conversions (see ``differential.py``): generated ``hybrid_forward``
programs either stay refused or compute, converted and hybridized, what they compute imperatively.

Bounded and reproducible (``derandomize``: the same programs on every run); a failure is shrunk by
hypothesis to a minimal program. ``HYBRIDIZE_DIFFERENTIAL_EXAMPLES=N`` runs N programs instead of
the default; ``tools/differential_conversions.py`` runs many more, also on MXNet 1.9.1.

The regressions below are wrong conversions this tester found, minimized; each is pinned with the
verdict that is right for it.
"""
from __future__ import annotations

import contextlib
import io
import os

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from differential import Program, run_program, strategies, with_shape_line  # noqa: E402

EXAMPLES = int(os.environ.get("HYBRIDIZE_DIFFERENTIAL_EXAMPLES", "40"))


def _verdict(text: str):
    with contextlib.redirect_stdout(io.StringIO()):  # generated programs may print
        return run_program(text)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(strategies()(max_statements=6))
def test_generated_programs_are_refused_or_converted_exactly(program):
    text = with_shape_line(program)
    outcome = _verdict(text)
    assert outcome.status in ("refused", "converted", "skipped"), (
        f"{outcome.status} conversion ({', '.join(outcome.codes)}):\n{text}\n--- converted:\n{outcome.fixed}\n"
        f"--- {outcome.detail}")


def _program(shape, *statements, returns="h"):
    return with_shape_line(Program(shape, list(statements), returns))


# (id, module text, what is right: "refused" or "converted")
REGRESSIONS = [
    # HY002: `x *= 2` rebound `x` while `h` still referred to the input array (imperatively `h`
    # sees the update). Found by the generator (unsafe fix applied by transpile).
    ("augassign-with-live-alias", _program((4, 3), "y = F.relu(y) - x", "h = x", "x *= 2"), "refused"),
    # HY003: `y[0] = 1` rebound `y` while `z` still referred to it.
    ("item-assign-with-live-alias", _program((2, 3, 4), "h = F.relu(x)", "z = h", "h[0] = 1", returns="z"),
     "refused"),
    # HY010 + HY003: `r1 = x[1::1]` is a view; `x[3] *= 0` writes through it. Converting the read
    # to a copy first made the later update look alias-free.
    ("view-written-through-base", _program((4, 3), "h = F.relu(x)", "r1 = x[1::1]", "x[3] *= 0", returns="r1"),
     "refused"),
    # HY010 + HY002: the view `r1 = h[0]` then `h += 1` (imperatively `r1` sees the update).
    ("view-then-augassign", _program((2, 3, 4), "h = F.relu(x)", "r1 = h[0]", "h += 1", returns="r1, h"),
     "refused"),
    # HY005: a row loop converted to F.contrib.foreach, then `a, b = outputs`: the analysis did not
    # know foreach's outputs are one stacked tensor when the body returns one tensor, so `--fix`
    # (safe fixes only) left an unpacking of a Symbol and claimed no finding.
    ("unpacking-foreach-outputs", _program((2, 3, 4), "y = F.relu(y) - x", "h = x * 2", "outs = []\n"
                                           "for row in h:\n    outs.append(F.concat(row, row * 2, dim=0))",
                                           "l1 = F.stack(*outs)", "l2, l3 = l1", returns="l3"), "converted"),
    # HY010: a whole-tensor subscript (`h[..., :]`, `y[:]`) was left a finding (the module refused);
    # dropping it is exact, even next to in-place writes (the view shares all of the memory)
    ("whole-tensor-subscripts", _program((2, 3, 4), "y = F.relu(y) - x", "h = x * 2", "r1 = F.relu(h[..., :])",
                                         "a1 = y[:] * 2", "h[0] = 1", returns="h, r1, a1, y"), "converted"),
    # HY003 after `r1 *= 2` on an alias of `h`: the analysis rebound `r1` to a new value at `*=`, so
    # `h[1] = 1` looked alias-free and even `--fix` (safe fixes) rewrote it; NDArray's `*=` keeps
    # the array, and the alias with it
    ("item-assign-after-alias-augassign", _program((2, 3, 4), "y = F.relu(y) - x", "h = x * 2", "r1 = h",
                                                   "r1 *= 2", "h[1] = 1", returns="h, r1"), "refused"),
    # HY004 then HY002 (found on the MXNet run): `h = x; if c: h = F.tanh(h)`; then `x += h`. When the
    # branch is not taken `h` is `x`'s array and sees the update; `F.where` made `h` a new array,
    # and the join of the branches hid the alias from the HY002 fix. Both are kept now: a joined
    # value remembers what it may be (Value.alternatives), and a converted `if` is exact only
    # where nothing is written in place.
    ("alias-through-an-untaken-branch", _program((3, 4), "y = F.relu(y) - x", "h = x",
                                                 "if F.sum(h) > 0.5:\n    h = F.tanh(h)", "x += h", "r3 = h[0]",
                                                 returns="r3"), "refused"),
    ("if-then-augassign-without-alias", _program((3, 4), "y = F.relu(y) - x", "h = x * 1",
                                                 "if F.sum(h) > 0.5:\n    h = F.tanh(h)", "x += h",
                                                 returns="h, x"), "converted"),
    # HY006: `s2 = h.reshape(h.shape)`-like (a view of h) became `F.reshape_like(.., h)` (a copy),
    # then `h[1:] = ...` wrote through the view: found on shapes' branch before it landed
    ("reshape-view-written-through", _program((2, 3, 4, 5), "y = F.relu(y) - x", "h = x", "b, c = h.shape[:2]",
                                              "s2 = h.reshape((b, c, -1)).reshape(h.shape)", "h[1:] = h[:-1] * 2",
                                              returns="s2"), "refused"),
    # HY003 after an if-chain whose first branch leaves `x` alone (found on the MXNet run): the
    # joined `x` is a new object, so the join must remember the untouched array as well
    ("alias-kept-by-the-first-branch", _program((2, 3, 4), "y = F.relu(y) - x", "h = x",
                                                "if F.sum(y) > 0:\n    y = y * 2\nelse:\n    x = x / 2",
                                                "h[:] -= y", returns="x, y"), "refused"),
    # HY006 after a row loop: `acc = acc + row` is loop-carried, and following `acc`'s shape back
    # through `+` reached itself (RecursionError in convert/shapes.py: the checker crashed)
    ("shape-of-a-loop-carried-value", _program((2, 3, 4, 5), "y = F.relu(y) - x", "l1 = F.zeros_like(x[0])",
                                               "for row in x:\n    l1 = l1 + row * 2",
                                               "s3 = l1.reshape((l1.shape[0] * l1.shape[1], l1.shape[2]))",
                                               returns="s3"), "converted"),
    # HY002 on a loop variable after the loop (found on broadcast's branch): `r1` is the last row of
    # `a2` (`NDArray.__iter__` yields `a2[i]`, a view), so `r1 += r1` updates `h`; even the safe fix
    # `r1 = r1 + r1` changed `h`. Rows taken by iteration/unpacking are views for the alias checks now
    ("row-of-a-loop-written-in-place", _program((2, 3, 4), "y = F.relu(y) - x", "h = F.relu(x)", "a2 = h",
                                                "l3 = F.zeros_like(a2[0])\nfor r1, r2 in zip(a2, a2):\n"
                                                "    l3 = l3 + r1 * r2", "r1 += r1", returns="h, l3, r1"),
     "refused"),
    ("row-of-an-unpacking-written-in-place", _program((2, 3, 4), "y = F.relu(y) - x", "h = F.relu(x)",
                                                      "r1, r2 = h", "r1 += r2", returns="h, r1"), "refused"),
    # the same constructs without a live alias convert (and the tester checks the results)
    ("augassign-alias-dead", _program((4, 3), "h = x", "h = F.relu(h)", "x *= 2", returns="h, x"), "converted"),
    ("view-read-after-update", _program((4, 3), "h = F.relu(x)", "h[3] *= 0", "r1 = h[1::1]", returns="r1"),
     "converted"),
]


@pytest.mark.parametrize("text,expected", [pytest.param(t, e, id=i) for i, t, e in REGRESSIONS])
def test_wrong_conversions_found_by_the_tester_stay_fixed(text, expected):
    outcome = _verdict(text)
    assert outcome.status == expected, f"{outcome.status}: {outcome.detail}\n{outcome.fixed}"


def test_transpile_refuses_a_conversion_that_would_change_the_results(tmp_path):
    """The module ``hybridize transpile`` writes for the first regression: refused, its finding
    named, while ``--fix --unsafe-fixes`` still offers the (unsafe) rewrite."""
    from hybridize.transpile.check.checker import check_source, fix_source
    from hybridize.transpile.emit.imports import Tree
    from hybridize.transpile.emit.output import convert_module

    text = REGRESSIONS[0][1]
    path = tmp_path / "m.py"
    path.write_text(text)
    result = convert_module(text, str(path), Tree.for_path(str(path)), "m.py")
    assert result.code is None and [f.code for f in result.blocking] == ["HY002"]
    [finding] = [f for f in check_source(text, "m.py") if f.code == "HY002"]
    assert finding.fix.changes_results and "`h` still refer(s) to it" in finding.fix.message
    assert "x = x * 2" in fix_source(text, "m.py", unsafe=True)[0]
    assert fix_source(text, "m.py", unsafe=True, exact=True)[0] == text
