"""Where ``simple_bind``/``bind`` with ``group2ctx`` put an executor's arrays: each variable and
output on the context of its ``ctx_group`` (an operator without a group follows its input), the
rest on the executor's context; a group missing from the map is refused. One module for both
sides: ``tools/record_group2ctx.py`` runs it under MXNet 1.9.1 (``fixtures/group2ctx.json``),
``test_group2ctx.py`` under the runtime, each given its ``mx``."""
from __future__ import annotations

from typing import Any


def _symbol(mx: Any) -> Any:
    with mx.AttrScope(ctx_group="dev1"):
        a = mx.sym.var("a")
        a2 = a * 2
    free = mx.sym.relu(a2, name="free")  # no group: follows its input
    with mx.AttrScope(ctx_group="dev2"):
        b = mx.sym.var("b")
        w = mx.sym.var("w")
        out = mx.sym.FullyConnected(free + b, weight=w, num_hidden=3, no_bias=True, name="fc")
    return mx.sym.Group([out, free])


def _where(arrays: list) -> list[str]:
    return [str(x.context) if x is not None else "none" for x in arrays]


def cases(mx: Any) -> dict[str, Any]:
    """case name -> contexts (as text) of the arguments, gradients and outputs, or the refusal."""
    sym = _symbol(mx)
    out: dict[str, Any] = {}
    ex = sym.simple_bind(mx.cpu(0), group2ctx={"dev1": mx.cpu(1), "dev2": mx.cpu(2)}, a=(2, 5), b=(2, 5))
    ex.forward(is_train=True)
    ex.backward([mx.nd.ones((2, 3)), mx.nd.ones((2, 5))])
    out["simple_bind_two_groups"] = [_where(ex.arg_arrays), _where(ex.grad_arrays), _where(ex.outputs)]
    ex = sym.simple_bind(mx.cpu(3), a=(2, 5), b=(2, 5))
    out["simple_bind_no_groups"] = [_where(ex.arg_arrays), _where(ex.grad_arrays), _where(ex.outputs)]
    try:
        sym.simple_bind(mx.cpu(0), group2ctx={"dev1": mx.cpu(1)}, a=(2, 5), b=(2, 5))
        out["simple_bind_unmapped_group"] = "bound"
    except Exception as e:  # noqa: BLE001  (recorded: MXNet raises RuntimeError)
        out["simple_bind_unmapped_group"] = "refused: " + ("dev2" if "group dev2" in str(e) else str(e)[-80:])
    args = {"a": mx.nd.ones((2, 5), ctx=mx.cpu(5)), "b": mx.nd.ones((2, 5)), "w": mx.nd.ones((3, 5))}
    ex = sym.bind(mx.cpu(0), args, group2ctx={"dev1": mx.cpu(1), "dev2": mx.cpu(2)})
    out["bind_two_groups"] = [_where(ex.arg_arrays), _where(ex.outputs)]
    return out
