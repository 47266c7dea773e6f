"""``mxnet.numpy_op_signature``: the ``mx.np``/``mx.npx`` function of an operator name
(``_np_sum`` -> ``np.sum``, ``_npx_relu`` -> ``npx.relu``, ``_np_linalg_svd`` -> ``np.linalg.svd``)."""
from __future__ import annotations

from typing import Any

from . import numpy as mx_np
from . import numpy_extension as mx_npx

_SUBMODULES = {"_np_": ("linalg", "random"), "_npx_": ("image", "random")}


def _get_builtin_op(op_name: str) -> Any:
    """The public function behind an ``_np_``/``_npx_`` name, None for other names; ValueError when
    the namespace has no such function (as MXNet)."""
    for prefix, root in (("_np_", mx_np), ("_npx_", mx_npx)):
        if op_name.startswith(prefix):
            break
    else:
        return None
    rest = op_name[len(prefix):]
    module = root
    for sub in _SUBMODULES[prefix]:
        if rest.startswith(sub + "_"):
            module, rest = getattr(root, sub, None), rest[len(sub) + 1:]
            if module is None:
                raise ValueError(f"Cannot find submodule {sub} in module {root.__name__}")
            break
    op = getattr(module, rest, None)
    if op is None:
        raise ValueError(f"Cannot find operator {rest} in module {root.__name__}")
    return op
