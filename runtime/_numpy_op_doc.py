"""``mxnet._numpy_op_doc``: the NumPy-style signatures of MXNet 1.9.1's built-in ``_np_*``/``_npx_*``
operators (ported from MXNet 1.9.1's ``python/mxnet/_numpy_op_doc.py``, Apache-2.0; its long
docstrings are NumPy's). MXNet's generated front-end functions take ``*args, **kwargs``;
``mxnet.numpy_op_signature`` gives each the ``__signature__`` of the function of the same name
here, so ``inspect.signature(mx.np.sum)`` reads as NumPy's. The bodies are never called.
"""
from __future__ import annotations

import inspect
import types


def _np_all(a, axis=None, keepdims=False, out=None):
    """Whether all elements along the given axis are true (``np.all``)."""


def _np_any(a, axis=None, keepdims=False, out=None):
    """Whether any element along the given axis is true (``np.any``)."""


def _np_sometrue(a, axis=None, keepdims=False, out=None):
    """``np.any`` under its older name."""


def _np_cumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum along an axis (``np.cumsum``)."""


def _npx_nonzero(a):
    """The indices of the non-zero elements, one row per element (``npx.nonzero``)."""


def _np_repeat(a, repeats, axis=None):
    """Repeats elements of an array (``np.repeat``)."""


def _np_transpose(a, axes=None):
    """Permutes the dimensions of an array (``np.transpose``)."""


def _np_dot(a, b, out=None):
    """The dot product of two arrays (``np.dot``)."""


def _np_sum(a, axis=None, dtype=None, keepdims=False, initial=None, out=None):
    """The sum of array elements over the given axes (``np.sum``)."""


def _np_copy(a, out=None):
    """An array copy of the given object (``np.copy``)."""


def _np_atleast_1d(*arys):
    """Inputs as arrays of at least one dimension (``np.atleast_1d``)."""


def _np_atleast_2d(*arys):
    """Inputs as arrays of at least two dimensions (``np.atleast_2d``)."""


def _np_atleast_3d(*arys):
    """Inputs as arrays of at least three dimensions (``np.atleast_3d``)."""


def _np_reshape(a, newshape, order='C', out=None):
    """A new shape for an array without changing its data (``np.reshape``)."""


def _np_roll(a, shift, axis=None):
    """Rolls array elements along an axis (``np.roll``)."""


def _np_trace(a, offset=0, axis1=0, axis2=1, out=None):
    """The sum along diagonals of the array (``np.trace``)."""


def _np_squeeze(a, axis=None, out=None):
    """Removes single-dimensional entries from the shape (``np.squeeze``)."""


def _np_max(a, axis=None, keepdims=False, out=None):
    """The maximum along an axis (``np.max``)."""


def _np_amax(a, axis=None, keepdims=False, out=None):
    """The maximum along an axis (``np.amax``)."""


def _np_min(a, axis=None, keepdims=False, out=None):
    """The minimum along an axis (``np.min``)."""


def _np_amin(a, axis=None, keepdims=False, out=None):
    """The minimum along an axis (``np.amin``)."""


def _np_prod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product of array elements over the given axes (``np.prod``)."""


def _np_product(a, axis=None, dtype=None, out=None, keepdims=False):
    """``np.prod`` under its other name."""


def _np_moveaxis(a, source, destination):
    """Moves axes of an array to new positions (``np.moveaxis``)."""


def _np__random_shuffle(x):
    """Shuffles an array along its first axis in place (``np.random.shuffle``)."""


def _npx_constraint_check(x, msg):
    """Raises ``msg`` unless every element of the boolean ``x`` is true (``npx.constraint_check``)."""


def _npx_reshape(a, newshape, reverse=False, order='C'):
    """Reshape with MXNet's special codes (``npx.reshape``)."""


def _np_diag(array, k=0):
    """Extracts a diagonal or constructs a diagonal array (``np.diag``)."""


def _np_diagonal(a, offset=0, axis1=0, axis2=1):
    """The specified diagonals (``np.diagonal``)."""


def _np_diagflat(array, k=0):
    """A two-dimensional array with the flattened input as a diagonal (``np.diagflat``)."""


_SUBMODULES = {"_np_": ("linalg", "random"), "_npx_": ("image", "random")}


def apply_signatures(root: types.ModuleType, prefix: str) -> None:
    """Gives each function of ``root`` (``mx.np`` for ``_np_``, ``mx.npx`` for ``_npx_``) named here
    the signature of its doc function, as MXNet's ``numpy_op_signature._register_op_signatures``."""
    for name, doc in list(globals().items()):
        if not name.startswith(prefix) or not inspect.isfunction(doc) or (prefix == "_np_" and name.startswith("_npx_")):
            continue
        rest, module = name[len(prefix):], root
        for sub in _SUBMODULES[prefix]:   # MXNet: _np__random_shuffle is np.random.shuffle
            if rest.startswith("_" + sub + "_"):
                module, rest = getattr(root, sub, None), rest[len(sub) + 2:]
                break
        fn = getattr(module, rest, None) if module is not None else None
        if fn is not None:
            try:
                fn.__signature__ = inspect.signature(doc)
            except (AttributeError, TypeError):   # a builtin or a bound method: leave it
                pass
