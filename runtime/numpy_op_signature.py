"""``mxnet.numpy_op_signature``: the ``mx.np``/``mx.npx`` function of a built-in operator's name
(``_np_sum`` -> ``np.sum``, ``_npx_relu`` -> ``npx.relu``, ``_np__random_shuffle`` ->
``np.random.shuffle``), as MXNet 1.9.1's. The functions named in ``_numpy_op_doc`` carry its
signatures (given when ``mx.np``/``mx.npx`` are imported: ``_numpy_op_doc.apply_signatures``)."""
from __future__ import annotations

from typing import Any

from . import _numpy_op_doc  # noqa: F401  (MXNet's module imports it)
from . import numpy as mx_np
from . import numpy_extension as mx_npx

# MXNet's base._NP_OP_SUBMODULE_LIST / _NP_EXT_OP_SUBMODULE_LIST
_SUBMODULES = {"_np_": ("_random_", "_linalg_"), "_npx_": ("_image_", "_random_")}


def _get_builtin_op(op_name: str) -> Any:
    """The public function behind an ``_np_``/``_npx_`` name, None for other names; ValueError when
    the namespace has no such function (as MXNet)."""
    for prefix, root in (("_np_", mx_np), ("_npx_", mx_npx)):
        if op_name.startswith(prefix):
            break
    else:
        return None
    rest = op_name[len(prefix):]
    sub = next((s for s in _SUBMODULES[prefix] if rest.startswith(s)), "")
    module = root
    if sub:
        module = getattr(root, sub[1:-1], None)
        if module is None:
            raise ValueError(f"Cannot find submodule {sub[1:-1]} in module {root.__name__}")
    op = getattr(module, rest[len(sub):], None)
    if op is None:
        raise ValueError(f"Cannot find operator {rest} in module {root.__name__}")
    return op
