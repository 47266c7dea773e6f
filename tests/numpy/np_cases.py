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
    "negative_one_key": ("h = x * 2\nreturn h[-1]", ("HY010",)),
    "negative_two_key": ("h = x * 2\nreturn h[-2]", ()),
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


#: The conversions of np-mode findings (HY001, HY003, HY004, HY005, HY006, HY009, HY010): name -> (hybrid_forward body, the
#: body ``--fix`` writes (``--unsafe-fixes`` where the flag is True), unsafe). ``tools/numpy_sym/record.py``
#: runs the body imperatively and the converted body hybridized on MXNet 1.9.1 (``fixtures/conversions.json``,
#: with the converted block's input gradient); ``test_np_conversions.py`` holds both sides equal, there and on
#: the runtime.
CONVERSIONS: dict[str, tuple[str, str, bool]] = {
    'if_return': ('if x.sum() > 0:\n    return x * 2\nreturn -x',
        'return F.np.where(x.sum() > 0, x * 2, -x)', False),
    'if_elif_else': ('y = F.np.tanh(x)\nif y.sum() > 100:\n    y = y * 2\nelif y.mean() > 0.5:\n    y = -y\nelse:\n    y = F.npx.sigmoid(y)\nreturn y',
        'y = F.np.tanh(x)\ny = F.np.where(y.sum() > 100, y * 2, F.np.where(y.mean() > 0.5, -y, F.npx.sigmoid(y)))\nreturn y', False),
    'ifexp': ('y = F.npx.relu(x)\nreturn y * 2 if y.mean() > 5 else -y',
        'y = F.npx.relu(x)\nreturn F.np.where(y.mean() > 5, y * 2, -y)', False),
    'if_keepdims_condition': ('s = F.np.sum(x, axis=(0, 1, 2), keepdims=True)\nh = x - 1\nif s > 0:\n    h = F.np.abs(h)\nreturn h',
        's = F.np.sum(x, axis=(0, 1, 2), keepdims=True)\nh = x - 1\nh = F.np.where(F.np.reshape(s > 0, ()), F.np.abs(h), h)\nreturn h', False),
    'reshape_merge': ('b, c, h = x.shape\nreturn x.reshape((b, c * h))',
        'return F.npx.reshape(x, (-2, -5))', False),
    'reshape_F_np': ('n = x.shape[0]\nreturn F.np.reshape(x, (n, -1))',
        'return F.npx.reshape(x, (-2, -1))', False),
    'reshape_reverse': ('return x.reshape(-1, x.shape[-1])',
        'return F.npx.reshape(x, (-1, -2), reverse=True)', False),
    'reshape_split': ('b, c, h = x.shape\nreturn x.reshape(b, 3, c // 3, h)',
        'return F.npx.reshape(x, (-2, -6, 3, -1, -2))', False),
    'reshape_tail': ('return x.reshape((-1,) + x.shape[2:])',
        'return F.npx.reshape(x, (-5, -4))', False),
    'reshape_like': ('y = F.np.transpose(x)\nreturn y.reshape(x.shape)',
        'y = F.np.transpose(x)\nreturn F.npx.reshape_like(y, x)', False),
    'shape_arith': ('return x * x.shape[0]',
        "return F.np.multiply(x, F.npx.shape_array(x)[0].astype('float32'))", True),
    'len_arith': ('return F.np.sum(x) / len(x)',
        "return F.np.true_divide(F.np.sum(x), F.npx.shape_array(x)[0].astype('float32'))", True),
    'sqrt_arith': ('import math\nd = x.shape[-1]\nreturn x / math.sqrt(d)',
        "import math\nreturn F.np.true_divide(x, F.np.sqrt(F.np.squeeze(F.npx.shape_array(x)[-1:], axis=0).astype('float64')).astype('float32'))", True),
    'assign_row': ('h = x * 2\nh[0] = 1\nreturn h',
        'h = x * 2\nh = F.np.concatenate([F.np.full_like(h[0:1], 1), h[1:]], axis=0)\nreturn h', False),
    'augassign_column': ('h = x * 2\nh[:, 0] += 1\nreturn h',
        'h = x * 2\nh = F.np.concatenate([h[:, 0:1] + 1, h[:, 1:]], axis=1)\nreturn h', False),
    'assign_two_axes': ('h = x * 2\nh[-1, 1:] *= -0.5\nreturn h',
        'h = x * 2\nh = F.np.concatenate([h[:-1], F.np.concatenate([h[-1:][:, :1], h[-1:][:, 1:] * -0.5], axis=1)], axis=0)\nreturn h', False),
    'assign_whole_tensor': ('h = x * 2\nh[:] = x[0] + 1\nreturn h',
        'h = x * 2\nh = F.npx.reshape_like(F.np.zeros_like(h) + (x[0] + 1), h)\nreturn h', False),
    'assign_slice_tensor': ('h = x * 2\nh[:, 1:] = F.npx.sigmoid(x)[0, :2]\nreturn h',
        'h = x * 2\nh = F.np.concatenate([h[:, :1], F.npx.reshape_like(F.np.zeros_like(h[:, 1:]) + F.npx.sigmoid(x)[0, :2], h[:, 1:])], axis=1)\nreturn h', False),
    'assign_whole_then_divide': ('h = x * 2\nh[...] = 3\nh[:] /= x[1]\nreturn h',
        'h = x * 2\nh = F.np.full_like(h, 3)\nh = F.npx.reshape_like(h / x[1], h)\nreturn h', False),
    'unpack_rows': ('h = x * 2\na, b = h\nreturn a * b',
        'h = x * 2\na, b = [F.np.squeeze(part, axis=0) for part in F.np.split(h, 2, axis=0)]\nreturn a * b', True),
    'last_row': ('y = F.npx.relu(x)\nreturn y[-1] * 2',
        'y = F.npx.relu(x)\nreturn F.np.squeeze(y[-1:], axis=0) * 2', False),
    'ellipsis_last': ('h = x * 2\nreturn h[..., 0]',
        'h = x * 2\nreturn F.np.moveaxis(h, -1, 0)[0]', False),
    'ellipsis_slice': ('h = x * 2\nreturn h[..., 1:3] * 2',
        'h = x * 2\nreturn F.np.moveaxis(F.np.moveaxis(h, -1, 0)[1:3], 0, -1) * 2', False),
    'ellipsis_lead_and_last': ('h = x * 2\nreturn h[0, ..., -1]',
        'h = x * 2\nreturn F.np.squeeze(F.np.moveaxis(h[0], -1, 0)[-1:], axis=0)', False),
    'ellipsis_two_axes': ('h = x * 2\nreturn h[..., 1:, ::2].sum() + h[..., 0, :]',
        'h = x * 2\nreturn F.np.moveaxis(F.np.moveaxis(h, (-2, -1), (0, 1))[1:, ::2], (0, 1), (-2, -1)).sum() + F.np.moveaxis(F.np.moveaxis(h, (-2, -1), (0, 1))[0, :], 0, -1)', False),
    'size_arith': ('return x / x.size',
        "return F.np.true_divide(x, F.np.prod(F.npx.shape_array(x)).astype('float32'))", True),
    'ndim_arith': ('return x * x.ndim',
        "return F.np.multiply(x, F.npx.shape_array(F.npx.shape_array(x))[0].astype('float32'))", True),
    'foreach_rows': ('h = x * 2\nouts = []\nfor r in h:\n    outs.append(F.np.tanh(r))\nreturn F.np.stack(outs)',
        'h = x * 2\ndef loop_body(r, states):\n    r = r.as_np_ndarray()\n    return F.np.tanh(r).as_nd_ndarray(), []\nouts, _ = F.contrib.foreach(loop_body, h.as_nd_ndarray(), [])\nouts = outs.as_np_ndarray()\nreturn outs', False),
    'foreach_state': ('g = x * 2\nh = F.np.zeros_like(x[0])\nouts = []\nfor r in g:\n    h = F.np.tanh(r + h)\n    outs.append(h)\nreturn F.np.stack(outs, axis=1).sum(axis=1) + h',
        'g = x * 2\nh = F.np.zeros_like(x[0])\ndef loop_body(r, h):\n    r, h = r.as_np_ndarray(), h.as_np_ndarray()\n    h = F.np.tanh(r + h)\n    return h.as_nd_ndarray(), h.as_nd_ndarray()\nouts, h = F.contrib.foreach(loop_body, g.as_nd_ndarray(), h.as_nd_ndarray())\nouts, h = outs.as_np_ndarray(), h.as_np_ndarray()\nreturn F.np.swapaxes(outs, 0, 1).sum(axis=1) + h', False),
    'foreach_range_len': ('h = x * 2\nacc = F.np.zeros_like(h[0])\nfor i in range(len(h)):\n    acc = acc + h[i] * 2\nreturn acc',
        'h = x * 2\nacc = F.np.zeros_like(h[0])\ndef loop_body(h_row, acc):\n    h_row, acc = h_row.as_np_ndarray(), acc.as_np_ndarray()\n    acc = acc + h_row * 2\n    return [], acc.as_nd_ndarray()\n_, acc = F.contrib.foreach(loop_body, h.as_nd_ndarray(), acc.as_nd_ndarray())\nacc = acc.as_np_ndarray()\nreturn acc', True),
    'foreach_concatenate': ('h = x * 2\nouts = []\nfor r in h:\n    outs.append(r + 1)\nreturn F.np.concatenate(outs, axis=1)',
        'h = x * 2\ndef loop_body(r, states):\n    r = r.as_np_ndarray()\n    return (r + 1).as_nd_ndarray(), []\nouts, _ = F.contrib.foreach(loop_body, h.as_nd_ndarray(), [])\nouts = outs.as_np_ndarray()\nreturn F.npx.reshape(F.np.swapaxes(outs, 0, 1), (-2, -5, -4))', False),
    'foreach_enumerate_zip': ('a = x * 2\nb = F.npx.sigmoid(x)\nouts = []\nfor p, q in zip(a, b):\n    outs.append(p * q)\nreturn F.np.concatenate(outs, axis=0)',
        'a = x * 2\nb = F.npx.sigmoid(x)\ndef loop_body(rows, states):\n    p, q = rows\n    p, q = p.as_np_ndarray(), q.as_np_ndarray()\n    return (p * q).as_nd_ndarray(), []\nouts, _ = F.contrib.foreach(loop_body, [a.as_nd_ndarray(), b.as_nd_ndarray()], [])\nouts = outs.as_np_ndarray()\nreturn F.npx.reshape(outs, (-5, -4))', True),
    'float_value': ('return x * float(x.sum())',
        'return x * F.np.reshape(F.BlockGrad(x.sum().as_nd_ndarray()).as_np_ndarray(), ())', True),
    'item_values': ('h = x * 2\nreturn h / h.max().item() + float(h.mean())',
        'h = x * 2\nreturn h / F.np.reshape(F.BlockGrad(h.max().as_nd_ndarray()).as_np_ndarray(), ()) + F.np.reshape(F.BlockGrad(h.mean().as_nd_ndarray()).as_np_ndarray(), ())', True),
    'comprehension_stack': ('h = x * 2\nreturn F.np.stack([F.np.tanh(r) * r for r in h], axis=1)',
        'h = x * 2\nreturn F.np.swapaxes(F.contrib.foreach(lambda r, states: ((F.np.tanh(r.as_np_ndarray()) * r.as_np_ndarray()).as_nd_ndarray(), []), h.as_nd_ndarray(), [])[0].as_np_ndarray(), 0, 1)', False),
    'comprehension_through_name': ('h = x * 2\nouts = [r + 1 for r in h]\nreturn F.np.concatenate(outs)',
        'h = x * 2\nouts = F.contrib.foreach(lambda r, states: ((r.as_np_ndarray() + 1).as_nd_ndarray(), []), h.as_nd_ndarray(), [])[0].as_np_ndarray()\nreturn F.npx.reshape(outs, (-5, -4))', False),
    'assign_row_tensor': ('h = x * 2\nh[0] = x[1] + 1\nreturn h',
        'h = x * 2\nh = F.np.concatenate([F.npx.reshape_like(F.np.zeros_like(h[0:1]) + (x[1] + 1), h[0:1]), h[1:]], axis=0)\nreturn h', False),
    'assign_row_slice_tensor': ('h = x * 2\nh[1, 1:] = F.np.tanh(x[0, 0])\nreturn h',
        'h = x * 2\nh = F.np.concatenate([h[:1], F.np.concatenate([h[1:2][:, :1], F.npx.reshape_like(F.np.zeros_like(h[1:2][:, 1:]) + F.np.tanh(x[0, 0]), h[1:2][:, 1:])], axis=1), h[2:]], axis=0)\nreturn h', False),
    'zeros_like_shape': ('return F.np.zeros(x.shape, ctx=x.context) + x',
        "return F.np.zeros_like(x, dtype='float32') + x", False),
    'ones_batch_state': ('h = F.np.ones((x.shape[0], 5), ctx=x.context)\nreturn h * 2',
        "h = F.np.tile(F.np.ones_like(F.npx.reshape(F.npx.reshape(x, (-2, -1))[:, 0], (-1, 1)), dtype='float32'), (1, 5))\nreturn h * 2", False),
    'zeros_middle_axis': ('return F.np.zeros((2, x.shape[1], 5), dtype=x.dtype, ctx=x.context) + 1',
        'return F.np.tile(F.np.zeros_like(F.npx.reshape(F.npx.reshape(F.np.swapaxes(x, 0, 1), (-2, -1))[:, 0], (1, -1, 1))), (2, 1, 5)) + 1', False),
}

#: What the legacy conversions emit, on np-mode arrays: MXNet 1.9.1 refuses each (its control-flow
#: operators and ``BlockGrad`` take legacy arrays only; an np-mode Symbol has no ``detach``), so
#: ``F.contrib.cond``/``while_loop`` and HY001/HY009's gradient-free value keep the finding in np-mode
#: code, and loops over rows pass ``F.contrib.foreach`` legacy arrays (``as_nd_ndarray``), their
#: body converting back (recorded in ``fixtures/conversions.json``).
UNAVAILABLE: dict[str, str] = {
    "contrib_foreach": "out, _ = F.contrib.foreach(lambda r, s: (r * 2, s), x, [])\nreturn out",
    "contrib_while_loop": "_, [h] = F.contrib.while_loop(lambda h: h.sum() > 1, lambda h: ([], [h / 2]), [x], "
                          "max_iterations=5)\nreturn h",
    "contrib_cond": "return F.contrib.cond(x.sum() > 0, lambda: x * 2, lambda: -x)",
    "block_grad": "return F.BlockGrad(x) * 2",
    "detach": "return x.detach() * 2",
    # bridged as the loops over rows are, ``cond`` and ``while_loop`` still fail hybridized (type inference)
    "bridged_cond": "return F.contrib.cond((x.sum() > 0).as_nd_ndarray(), lambda: (x * 2).as_nd_ndarray(), "
                    "lambda: (-x).as_nd_ndarray()).as_np_ndarray()",
    "bridged_while_loop": "def step(h):\n    h = h.as_np_ndarray()\n    return [], [(h / 2).as_nd_ndarray()]\n"
                          "_, [h] = F.contrib.while_loop(lambda h: (F.np.linalg.norm(h.as_np_ndarray()) > 1)"
                          ".as_nd_ndarray(), step, [x.as_nd_ndarray()], max_iterations=5)\nreturn h.as_np_ndarray()",
}


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
