"""The np-mode checker cases: one ``hybrid_forward`` body each and the codes the checker must give.

Each case is run on MXNet 1.9.1 by ``tools/numpy_sym/record.py`` (imperatively and hybridized,
after ``npx.set_np()``) and the outcome is committed in ``fixtures/semantics.json``; the tests
hold the checker to that record: an error code exactly where the hybridized block fails or
computes something else than the imperative one (HY008, a warning about trace-time side effects,
is the one code allowed where both agree).
"""
from __future__ import annotations

PRELUDE = ("from mxnet import np, npx\nfrom mxnet.gluon import nn\nnpx.set_np()\n\n\n"
           "class Net(nn.HybridBlock):\n    def hybrid_forward(self, F, x):\n")

#: name -> (hybrid_forward body, codes the checker reports in np mode)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    "int_index": ("return x[0]", ()),
    "slice": ("return x[:, :2]", ()),
    "int_tuple": ("return x[1, 2]", ()),
    "negative_int_in_tuple": ("return x[:, -1]", ()),
    "step_slice": ("return x[::2]", ()),
    "none_key": ("return x[None]", ("HY010",)),
    "ellipsis_key": ("return x[..., 0]", ("HY010",)),
    "none_key_middle": ("return x[:, None] * 2", ("HY010",)),
    "expand_dims": ("return F.np.expand_dims(x, 1) * 2", ()),
    "list_key": ("h = x * 2\nreturn h[[0, 1]]", ("HY010",)),
    "len": ("return x * len(x)", ("HY006",)),
    "iteration": ("h = x * 2\ny = h[0]\nfor row in h:\n    y = y + row\nreturn y", ("HY005",)),
    "shape": ("return x * x.shape[0]", ("HY006",)),
    "ndim": ("return x * x.ndim", ("HY006",)),
    "reshape_positional": ("return x.reshape(6, 4)", ()),
    "reshape_minus_one": ("return x.reshape(-1, 4)", ()),
    "broadcast_rows": ("return x + x[0]", ()),
    "broadcast_column": ("return x * F.np.ones((2, 1, 1))", ()),
    "tensor_condition": ("if x.sum() > 0:\n    return x\nreturn -x", ("HY004",)),
    "mx_np_direct": ("return x + np.ones((4,))", ("HY007",)),
    "npx_direct": ("return npx.relu(x)", ("HY007",)),
    "F_npx_relu": ("return F.npx.relu(x)", ()),
    "augassign": ("x += 1\nreturn x", ("HY002",)),
    "item_assignment": ("h = x * 2\nh[0] = 1\nreturn h", ("HY003",)),
    "float_conversion": ("return x * float(x.sum())", ("HY009",)),
    "asnumpy": ("y = x.asnumpy()\nreturn x + y.sum()", ("HY001",)),
    "transpose_T": ("return x.T", ()),
    "transpose_axes": ("return x.transpose(2, 0, 1)", ()),
    "split_item": ("return F.np.split(x, 3, axis=1)[1]", ()),
    "where": ("return F.np.where(x > 1, x, F.np.zeros_like(x))", ()),
    "sum_axis": ("return F.np.sum(x, axis=1)", ()),
    "concatenate": ("return F.np.concatenate([x, x], axis=0)", ()),
    "print": ("print(x)\nreturn x", ("HY008",)),
}

#: codes that may be reported where MXNet's hybridized block agrees with the imperative one
WARNINGS = frozenset({"HY008"})


def module_text(body: str) -> str:
    """The whole module the checker sees (and MXNet runs) for ``body``."""
    return PRELUDE + "".join(f"        {line}\n" for line in body.splitlines())


#: Expressions traced on np-mode Symbols ``x`` and ``y`` (``mx.sym.var(...).as_np_ndarray()``, ``sym``
#: being ``mx.sym``): the nodes MXNet 1.9.1 writes for each (``fixtures/traces.json``).
TRACES = (
    "x[1]", "x[-1]", "x[1:3]", "x[:, 1]", "x[::2, -1]", "x[1, 0:2]", "-x", "x + 1", "1 - x", "x * y", "x / y",
    "2 ** x", "x ** 2", "x % 3", "x > y", "x <= 0.5", "x == y", "x.T", "x.astype('float16')", "x.reshape(2, -1)",
    "x.reshape((-1,))", "x.sum(axis=1)", "x.mean()", "x.max(axis=0)", "x.transpose(1, 0)", "x.flatten()",
    "sym.np.concatenate([x, y], axis=1)", "sym.np.where(x > 0, x, y)", "sym.np.dot(x, y)", "sym.np.tanh(x)",
    "sym.np.exp(x) + sym.np.log(y)", "sym.np.expand_dims(x, 0)", "sym.np.squeeze(x)", "sym.np.zeros((2, 3))",
    "sym.np.ones_like(x)", "sym.np.stack([x, y])", "sym.np.split(x, 2, axis=0)[1]", "sym.np.matmul(x, y)",
    "sym.np.maximum(x, y)", "sym.np.clip(x, 0, 1)", "sym.npx.relu(x)", "sym.npx.sigmoid(x)",
    "sym.npx.softmax(x, axis=-1)", "sym.npx.reshape(x, (-2, -1))", "sym.npx.activation(x, act_type='tanh')",
    "sym.npx.fully_connected(x, y, num_hidden=4, no_bias=True)", "sym.npx.batch_flatten(x)",
)
