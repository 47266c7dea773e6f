"""The suite's checker for operator gradient rules (``OpDef.gradient``).

A rule is checked without any tape: :func:`check_vjp` runs the op's kernel forward, calls the rule
directly with ``F = nd`` on NDArrays, and compares every input gradient with central finite
differences of ``sum_k <out_k, out_grad_k>`` computed in float64 on the same kernel.
:func:`check_vjp_against` compares a rule with the input gradients MXNet 1.9.1 itself computed for
one recorded case (``mx.autograd.record()`` + ``backward(head_grads)``; see
``tools/record_gradients.py``), which is where MXNet's conventions (a subgradient at 0, a clipped
gradient) show up that finite differences cannot decide.

Tests import it as ``from gradcheck import check_vjp`` (pytest puts ``tests/`` on ``sys.path``).
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from hybridize.runtime import autograd
from hybridize.runtime import ndarray as nd
from hybridize.runtime.base import HybridizeError
from hybridize.runtime.ops.registry import ZERO_GRAD, Attrs, OpDef, get_op

__all__ = ["check_vjp", "check_vjp_against", "load_recorded", "numeric_vjp", "resolve_attrs", "vjp"]


def resolve_attrs(op: OpDef, attrs: dict | None, *, strings: bool = False) -> Attrs:
    """``attrs`` as the op's kernel sees them (defaults filled); ``strings``: MXNet's string forms."""
    given = attrs or {}
    return op.resolve(op.parse_attrs(given) if strings else op.coerce_attrs(given))


def _as_numpy(x: Any) -> np.ndarray:
    return x.asnumpy() if isinstance(x, nd.NDArray) else np.asarray(x)


def _outputs(op: OpDef, attrs: Attrs, arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    # copies: a kernel may update an auxiliary state in place (BatchNorm's moving statistics)
    out = op.compute(attrs, *[a.copy() for a in arrays])
    return [np.asarray(o) for o in out] if isinstance(out, (tuple, list)) else [np.asarray(out)]


def _is_float(a: np.ndarray) -> bool:
    return np.dtype(a.dtype).kind == "f"


def _mode(train: bool):
    return autograd.train_mode() if train else autograd.predict_mode()


def vjp(op_name: str, inputs: Sequence[Any], attrs: dict | Attrs | None = None,
        out_grads: Sequence[Any] | None = None, *, train: bool = True,
        seed: int = 0) -> tuple[list[np.ndarray | None], list[np.ndarray], list[np.ndarray]]:
    """(input gradients from the rule, with None where it says none flows; outputs; out_grads).

    ``out_grads`` default: standard normal draws (``seed``) shaped and typed like each output, zero
    for integer outputs. Raises ``AssertionError`` for an op without a rule (``gradient=None``).
    """
    op = get_op(op_name)
    a = attrs if isinstance(attrs, Attrs) else resolve_attrs(op, attrs)
    arrays = [_as_numpy(x) for x in inputs]
    with _mode(train):
        outs = _outputs(op, a, arrays)
    if out_grads is None:
        rng = np.random.default_rng(seed)
        ogs = [rng.standard_normal(o.shape).astype(o.dtype) if _is_float(o) else np.zeros_like(o) for o in outs]
    else:
        ogs = [_as_numpy(g) for g in out_grads]
        assert len(ogs) == len(outs), f"{op.name}: {len(ogs)} out_grads for {len(outs)} outputs"
    rule = op.gradient
    assert rule is not None, f"{op.name} has no gradient rule (MXNet: no FGradient)"
    if rule is ZERO_GRAD:
        return [np.zeros_like(x) for x in arrays], outs, ogs
    wrap = [nd.array(x, dtype=x.dtype) for x in arrays]
    with _mode(train):
        grads = rule(nd, a, wrap, [nd.array(o, dtype=o.dtype) for o in outs], [nd.array(g, dtype=g.dtype) for g in ogs])
    grads = list(grads)
    assert len(grads) == len(arrays), f"{op.name}: the rule returned {len(grads)} gradients for {len(arrays)} inputs"
    result: list[np.ndarray | None] = []
    for i, (g, x) in enumerate(zip(grads, arrays)):
        if g is None:
            result.append(None)
            continue
        g = _as_numpy(g)
        assert g.shape == x.shape, f"{op.name}: gradient of input {i} has shape {g.shape}, the input {x.shape}"
        assert g.dtype == x.dtype, f"{op.name}: gradient of input {i} is {g.dtype}, the input {x.dtype} (MXNet: same)"
        result.append(g)
    return result, outs, ogs


def numeric_vjp(op_name: str, inputs: Sequence[Any], attrs: dict | Attrs | None, out_grads: Sequence[np.ndarray],
                index: int, *, eps: float | None = None, train: bool = True) -> np.ndarray:
    """Central finite differences of ``sum_k <out_k, out_grad_k>`` with respect to input ``index``,
    in float64 (float inputs are promoted; integer inputs are kept, they are indices/labels; a kernel
    refusing float64 is differentiated in the given dtypes).

    A kernel that keeps a fixed output dtype under float64 inputs (float32) gets a larger default
    step (1e-2 instead of 1e-6): then compare with a looser tolerance."""
    op = get_op(op_name)
    a = attrs if isinstance(attrs, Attrs) else resolve_attrs(op, attrs)
    x64 = [(_as_numpy(x).astype(np.float64) if _is_float(_as_numpy(x)) else _as_numpy(x)) for x in inputs]
    ogs = [np.asarray(g, dtype=np.float64) for g in out_grads]

    def objective(arrays: list[np.ndarray]) -> float:
        outs = _outputs(op, a, arrays)
        return float(sum(np.sum(o.astype(np.float64) * g) for o, g in zip(outs, ogs) if _is_float(o)))

    with _mode(train):
        try:
            probe = _outputs(op, a, x64)
        except HybridizeError:      # a float32-only kernel (BatchNorm_v1, ...): differences in its dtype
            x64 = [_as_numpy(x).copy() for x in inputs]
            probe = _outputs(op, a, x64)
        if eps is None:
            exact = all(o.dtype == np.float64 for o in probe if _is_float(o))
            eps = 1e-6 if exact else 1e-2
        x = x64[index]
        grad = np.zeros(x.shape, dtype=np.float64)
        flat, gflat = x.reshape(-1), grad.reshape(-1)
        for j in range(flat.size):
            keep = flat[j]
            flat[j] = keep + eps
            up = objective(x64)
            flat[j] = keep - eps
            down = objective(x64)
            flat[j] = keep
            gflat[j] = (up - down) / (2 * eps)
    return grad


def check_vjp(op_name: str, inputs: Sequence[Any], attrs: dict | None = None, out_grads: Sequence[Any] | None = None,
              rtol: float = 1e-4, atol: float = 1e-5, wrt: Sequence[int] | None = None, *, eps: float | None = None,
              train: bool = True, seed: int = 0) -> list[np.ndarray | None]:
    """Asserts the rule of ``op_name`` matches central finite differences on every float input it
    gives a gradient (or on the inputs ``wrt`` names); returns the rule's gradients.

    Inputs are numpy arrays or NDArrays in the dtype the op should see; integer inputs and inputs
    the rule returns ``None`` for are skipped (naming one of them in ``wrt`` is an error)."""
    op = get_op(op_name)
    a = resolve_attrs(op, attrs)
    arrays = [_as_numpy(x) for x in inputs]
    grads, _, ogs = vjp(op_name, arrays, a, out_grads, train=train, seed=seed)
    names = _input_names(op, a, len(arrays))
    targets = range(len(arrays)) if wrt is None else wrt
    for i in targets:
        if wrt is None and (grads[i] is None or not _is_float(arrays[i])):
            continue
        assert grads[i] is not None, f"{op.name}: the rule gives no gradient for input {i} ({names[i]})"
        num = numeric_vjp(op_name, arrays, a, ogs, i, eps=eps, train=train)
        np.testing.assert_allclose(grads[i].astype(np.float64), num, rtol=rtol, atol=atol,
                                   err_msg=f"{op.name}: gradient of input {i} ({names[i]}) vs finite differences")
    return grads


def _input_names(op: OpDef, attrs: Attrs, n: int) -> list[str]:
    try:
        names = op.input_names(attrs) + list(op.aux)
    except Exception:  # noqa: BLE001 - names only decorate messages
        names = []
    return (names + [f"arg{i}" for i in range(len(names), n)])[:n]


# -- MXNet-recorded cases -----------------------------------------------------------------------
def load_recorded(path: str | Path) -> dict[str, Any]:
    """One case written by ``tools/record_gradients.py``: ``op``, ``attrs`` (MXNet strings), ``train``,
    ``inputs``, ``head_grads``, ``grads`` (input index -> MXNet's gradient; inputs MXNet gave no
    gradient are absent), ``outputs`` (MXNet's forward results)."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        n_in, n_out = meta["num_inputs"], meta["num_outputs"]
        return {
            "op": meta["op"], "attrs": meta["attrs"], "train": meta.get("train", True), "case": meta.get("case"),
            "inputs": [z[f"input{i}"] for i in range(n_in)],
            "outputs": [z[f"output{k}"] for k in range(n_out)],
            "head_grads": [z[f"head_grad{k}"] for k in range(n_out)],
            "grads": {i: z[f"grad{i}"] for i in range(n_in) if f"grad{i}" in z.files},
        }


def check_vjp_against(recorded_npz: str | Path, rtol: float = 1e-4, atol: float = 1e-5) -> list[np.ndarray | None]:
    """Asserts the rule reproduces MXNet 1.9.1's input gradients of one recorded case; returns the rule's."""
    case = load_recorded(recorded_npz)
    op = get_op(case["op"])
    a = resolve_attrs(op, case["attrs"], strings=True)
    grads, _, _ = vjp(case["op"], case["inputs"], a, case["head_grads"], train=case["train"])
    names = _input_names(op, a, len(case["inputs"]))
    where = f"{op.name} ({case['case'] or Path(recorded_npz).name})"
    for i, expected in case["grads"].items():
        got = grads[i]
        if got is None:  # no gradient flows: MXNet writes zeros into an attached gradient buffer
            np.testing.assert_array_equal(expected, np.zeros_like(expected),
                                          err_msg=f"{where}: rule gives no gradient for input {i} ({names[i]}), "
                                                  f"MXNet a nonzero one")
            continue
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol,
                                   err_msg=f"{where}: gradient of input {i} ({names[i]}) vs MXNet 1.9.1")
    return grads
