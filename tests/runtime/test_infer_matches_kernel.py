"""An operator's shape and dtype inference must describe what its kernel returns: the compiler plans
buffers from ``OpDef.shapes``/``OpDef.dtypes`` and the kernel fills them, so a rule that disagrees
with its kernel breaks graphs only (imperative calls never ask the rule).

Checked on every recorded call (``data/extra_ops_cases``, ``data/detection_cases`` and the shared
MXNet fixtures' operator cases): the rule is asked with the call's input shapes and dtypes, the
kernel runs, and the two must agree (the values themselves are the other tests' business)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from recorded_cases import Recorded
from support import FIXTURES, op_cases


def _shared_inputs(path: Path) -> list[np.ndarray]:
    arrays = np.load(path)                # the shared fixtures' files: in0, in1, ... in order
    return [arrays[k] for k in sorted((k for k in arrays.files if k.startswith("in")), key=lambda k: int(k[2:]))]


def _recorded() -> list[tuple[str, str, dict, Callable[[], list], bool]]:
    """(case id, op name, JSON attribute strings, the inputs (loaded when asked), training mode)."""
    out = []
    for name in ("extra_ops_cases", "detection_cases"):
        rec = Recorded(name)
        for c in rec.cases:
            out.append((f"{name}:{c['case']}", c["op"], c["json_attrs"],
                        lambda rec=rec, c=c: rec.arrays(c)[0], bool(c.get("train"))))
    for c in op_cases():
        out.append((f"shared:{c['case']}", c["json_op"], c["json_attrs"],
                    lambda c=c: _shared_inputs(FIXTURES / "ops" / f"{c['case']}.npz"), False))
    return out


CASES = _recorded()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_inferred_shapes_and_dtypes_are_the_kernels(case) -> None:
    from hybridize.runtime import autograd
    from hybridize.runtime.ops.registry import get_op

    _, op_name, json_attrs, inputs, train = case
    op = get_op(op_name)
    attrs = op.resolve(op.parse_attrs(json_attrs))
    ins = inputs()
    shapes, dtypes = [x.shape for x in ins], [x.dtype for x in ins]
    with autograd.train_mode() if train else autograd.predict_mode():
        out = op.kernel(attrs, shapes, dtypes)(*[x.copy() for x in ins])   # copies: updates write inputs
    out = [np.asarray(o) for o in (out if isinstance(out, (list, tuple)) else [out])]
    _, inferred = op.shapes(attrs, shapes)
    assert len(inferred) == len(out)
    assert [tuple(s) for s in inferred] == [o.shape for o in out]
    assert [np.dtype(d) for d in op.dtypes(attrs, dtypes, shapes)] == [o.dtype for o in out]


def test_grad_add_refuses_unequal_shapes_as_elemwise_add() -> None:
    """``_grad_add`` is elemwise_add under another name (MXNet registers both with one macro)."""
    from hybridize.runtime import sym
    from hybridize.runtime.base import HybridizeError

    a, b = sym.var("a"), sym.var("b")
    with pytest.raises(HybridizeError, match="equal shapes"):
        sym._internal._grad_add(a, b).infer_shape(a=(2, 3), b=(1, 3))
    assert sym._internal._grad_add(a, b).infer_shape(a=(2, 3), b=(2, 3))[1] == [(2, 3)]
