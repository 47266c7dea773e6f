"""HY007: MXNet's imperative (or explicitly symbolic) API used on the tensor path instead of F."""
from typing import Iterator

from ..diagnostics import Severity
from ..analysis import knowledge as K
from ..analysis.events import Event, EventKind
from ..convert.imperative_api import imperative_api_fix, np_api_path
from .base import Report, Rule, example, np_example


def check(event: Event) -> Iterator[Report]:
    if event.kind is EventKind.SELF_ATTR_READ:
        yield Report(event.node, f"`self.{event.name}` is an NDArray, which cannot be mixed into a "
                                 f"symbolic graph; {event.why()}; make it a `Constant` parameter")
        return
    if event.kind is EventKind.PARAMETER_DATA:
        head = f"`self.{event.name}.{event.construct}()` is {event.value.origin.phrase()}, which cannot be " \
               f"mixed into a symbolic graph"
        if "." in event.name:  # a Parameter of a child layer
            owner = event.name.split(".", 1)[0]
            yield Report(event.node, f"{head}; share the Parameter with a layer of this block instead (e.g. "
                                     f"`nn.Dense(..., params=self.{owner}.params)`), or declare it on this "
                                     f"block so that Gluon passes it to `hybrid_forward`")
        else:
            yield Report(event.node, f"{head}; take `{event.name}` as a keyword argument of `hybrid_forward` "
                                     f"instead (Gluon passes the block's parameters in, as Symbols while tracing)")
        return
    text = event.site.text(event.node)
    if event.construct == "ndarray-only":
        yield Report(event.node, f"`{text}` exists only in the NDArray API: once the block is hybridized `F` "
                                 f"is `mxnet.symbol`, which has no `{event.name[2:]}`; create constants in "
                                 f"`__init__` (`self.params.get_constant`) or use `F.zeros`/`F.ones`/`F.full`")
        return
    family = K.api_family(event.name)
    if family == "symbol" and event.construct == "symbolic-only":
        return  # ``else`` of ``if F is nd:``: only runs while tracing, where it is F
    np_path = np_api_path(event.name)
    if family == "ndarray" and np_path is not None:
        yield Report(event.node, f"`{text}` uses MXNet's imperative NumPy interface inside `hybrid_forward`: it "
                                 f"makes an ndarray even while the block is traced, which cannot be mixed "
                                 f"into the graph: use `F.{np_path}` instead",
                     fix=lambda with_edits: imperative_api_fix(event, with_edits))
    elif family == "ndarray":
        yield Report(event.node, f"`{text}` uses the imperative NDArray API inside `hybrid_forward`; "
                                 f"it ignores hybridization and mixes NDArrays into the graph: use `F` instead",
                     fix=lambda with_edits: imperative_api_fix(event, with_edits))
    elif family == "symbol":
        yield Report(event.node, f"`{text}` uses the symbolic API directly inside `hybrid_forward`; it "
                                 f"breaks imperative execution: use `F` instead")


RULE = Rule(
    code="HY007",
    name="imperative-api",
    severity=Severity.ERROR,
    summary="`nd.X`/`mx.nd.X`/`mx.sym.X` (np mode: `np.X`/`npx.X`) instead of `F.X`, `F.array`, or an NDArray "
            "made in `__init__` or a Parameter's `.data()` used in `hybrid_forward`",
    rationale=(
        "`F` is `mxnet.ndarray` when the block runs imperatively and `mxnet.symbol` while it is "
        "traced. Calling `nd.X` directly computes an NDArray even while tracing, which cannot be "
        "combined with the Symbol inputs (and `sym.X` breaks the imperative mode, except in the `else` "
        "of `if F is nd:`). An NDArray stored on `self` in `__init__`, or a Parameter's value read "
        "with `self.weight.data()`, has the same problem. `F.array` (and `F.empty`, "
        "`F.concatenate`, `F.moveaxis`, ...) exist only in `mxnet.ndarray`, so they fail once "
        "`F` is `mxnet.symbol`. In np-mode code (`npx.set_np()`) the same holds for MXNet's NumPy "
        "interface: `np.X`/`mx.np.X`/`npx.X` make ndarrays while tracing, `F.np.X`/`F.npx.X` follow `F`."
    ),
    fix_advice="Call `F.X(...)`; for a constant tensor register it in `__init__` with "
               "`self.mean = self.params.get_constant('mean', value)` and take it as a keyword "
               "argument of `hybrid_forward` (parameters likewise: `hybrid_forward(self, F, x, weight)`). "
               "`--fix` replaces `nd.X`/`mx.nd.X`/`nd.contrib.X` by `F.X` where X is an MXNet operator "
               "(generated into both namespaces with one signature; safe: imperatively `F` is `nd`); "
               "hand-written NDArray functions (`nd.zeros(shape, ctx)`, `nd.array`, ...), `random` and "
               "calls with `out=`/`ctx=` are left to you. In np-mode code it replaces `np.X`/`mx.np.X` by "
               "`F.np.X` and `npx.X` by `F.npx.X` where MXNet 1.9.1 defines X with one signature in both "
               "np-mode namespaces (`mx.nd.np` and `mx.sym.np`, recorded from MXNet).",
    events=(EventKind.API_REF, EventKind.SELF_ATTR_READ, EventKind.PARAMETER_DATA),
    check=check,
    fixable=True,
    np_fixable=True,
    valid=(
        example("if F is nd:\n    y = nd.relu(x)\nelse:\n    y = F.relu(x)\nreturn y"),
        example("return F.broadcast_sub(x, mean)", signature="self, F, x, mean"),
        "from mxnet import sym\n" + example(
            "if F is nd:\n    zeros = nd.zeros((1, 2))\nelse:\n    zeros = sym.zeros((1, 2))\n"
            "return F.broadcast_add(x, zeros)"),
        example("return F.broadcast_mul(x, weight)", signature="self, F, x, weight",
                init="self.weight = self.params.get('weight', shape=(1, 2))"),
    ),
    invalid=(
        example("y = nd.relu(x)  # expect: HY007\nreturn y"),
        "import mxnet as mx\n" + example("return mx.nd.ones((2, 2)) + x  # expect: HY007"),
        example("return x - self.mean  # expect: HY007", init="self.mean = nd.array([0.5])"),
        example("return F.broadcast_mul(x, self.weight.data())  # expect: HY007",
                init="self.weight = self.params.get('weight', shape=(1, 2))"),
        example("mask = F.array([1.0, 0.0])  # expect: HY007\nreturn F.broadcast_mul(x, mask)"),
        example("return x + nd.zeros((2, 3, 4))  # expect: HY007"),
        np_example("return npx.relu(x) + np.ones((4,))  # expect: HY007"),
    ),
    fix_examples=(
        (example("y = nd.relu(x)\nreturn nd.softmax(y, axis=-1) + 1"),
         example("y = F.relu(x)\nreturn F.softmax(y, axis=-1) + 1")),
        ("import mxnet as mx\n" + example("h = F.relu(x)\nreturn mx.nd.contrib.div_sqrt_dim(mx.nd.broadcast_add(h, x))"),
         "import mxnet as mx\n" + example("h = F.relu(x)\nreturn F.contrib.div_sqrt_dim(F.broadcast_add(h, x))")),
        ("from mxnet.ndarray import transpose\n" + example("return transpose(x, axes=(1, 0, 2)) * 2"),
         "from mxnet.ndarray import transpose\n" + example("return F.transpose(x, axes=(1, 0, 2)) * 2")),
    ),
)
