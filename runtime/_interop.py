"""Arrays shared with numpy and with other libraries through DLPack, as MXNet 1.9.1 shares them.

* ``nd.from_numpy(a)`` (zero copy): the NDArray takes ``a``'s memory and ``a`` becomes read-only,
  MXNet's rule (the numpy array must not be written behind the NDArray's back).
* ``to_dlpack_for_read/write`` give a PyCapsule named ``"dltensor"`` (DLPack 0.x, what MXNet
  exports and PyTorch, CuPy, TVM ... consume); ``from_dlpack`` consumes such a capsule once, renaming
  it ``"used_dltensor"`` as the protocol says, and views its memory.

numpy implements the protocol itself (``ndarray.__dlpack__``, ``np.from_dlpack``); this module only
adapts it to MXNet's calling conventions. An unversioned capsule cannot say whether its memory is
writable, so numpy imports it read-only; MXNet's NDArray made from it is writable (its documented
example writes through it), so the import is re-exposed writable here.
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import _ctypes_dlpack

__all__ = ["take_numpy", "to_dlpack", "from_dlpack", "DLPACK_DTYPES", "ConsumedCapsuleError"]

# the dtypes MXNet 1.9.1's from_numpy maps to DLPack (``DLDataType.TYPE_MAP``)
DLPACK_DTYPES = frozenset(("int32", "int64", "bool", "uint8", "uint32", "uint64", "float16", "float32", "float64"))

# numpy implements DLPack from 1.22 on; before, ``_ctypes_dlpack`` makes and reads the capsules
NUMPY_DLPACK = hasattr(np, "from_dlpack")
_capi = ctypes.pythonapi
_capi.PyCapsule_IsValid.restype = ctypes.c_int
_capi.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]


class ConsumedCapsuleError(ValueError, AssertionError):
    """A DLPack capsule given to ``from_dlpack`` a second time. MXNet 1.9.1 means a ValueError but
    raises an AssertionError (``assert ..., ValueError(...)``): this is both."""


def take_numpy(a: np.ndarray) -> np.ndarray:
    """A writable view of ``a``'s memory for an NDArray; ``a`` itself becomes read-only."""
    if not isinstance(a, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(a).__name__}")
    if str(a.dtype) not in DLPACK_DTYPES:
        raise ValueError(str(a.dtype) + " is not supported.")
    if not a.flags["C_CONTIGUOUS"]:
        raise ValueError("Only c-contiguous arrays are supported for zero-copy")
    view = a.view()
    if not view.flags.writeable:
        view = _writable(view)
    a.flags["WRITEABLE"] = False  # after taking the view: the view stays writable
    return view


def to_dlpack(data: np.ndarray) -> Any:
    """An unversioned DLPack capsule (``"dltensor"``) over ``data`` (writable, C-contiguous)."""
    if not NUMPY_DLPACK:
        return _ctypes_dlpack.export(data)
    return data.__dlpack__()


class _Capsule:
    """Hands a bare capsule to ``np.from_dlpack``, which wants an object with ``__dlpack__``."""

    def __init__(self, capsule: Any):
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple:
        return (1, 0)  # kDLCPU: numpy refuses other devices with a BufferError


def from_dlpack(obj: Any) -> np.ndarray:
    """A numpy view of a DLPack capsule (consumed) or of an object with ``__dlpack__``."""
    if not NUMPY_DLPACK:    # numpy<1.22 (MXNet 1.9.1's CI NumPy) speaks no DLPack: read the capsule here
        cap = obj.__dlpack__() if hasattr(obj, "__dlpack__") else obj
        if type(cap).__name__ != "PyCapsule":
            raise TypeError(f"from_dlpack expects a DLPack capsule or an object with __dlpack__, got {type(obj).__name__}")
        if not _capi.PyCapsule_IsValid(cap, b"dltensor"):
            raise ConsumedCapsuleError("Invalid DLPack Tensor. DLTensor capsules can be consumed only once.")
        return _ctypes_dlpack.consume(cap)
    if hasattr(obj, "__dlpack__"):
        out = np.from_dlpack(obj)
        return out if out.flags.writeable else _writable(out)
    if type(obj).__name__ != "PyCapsule":
        raise TypeError(f"from_dlpack expects a DLPack capsule or an object with __dlpack__, got {type(obj).__name__}")
    if not _capi.PyCapsule_IsValid(obj, b"dltensor") and not _capi.PyCapsule_IsValid(obj, b"dltensor_versioned"):
        raise ConsumedCapsuleError("Invalid DLPack Tensor. DLTensor capsules can be consumed only once.")
    unversioned = bool(_capi.PyCapsule_IsValid(obj, b"dltensor"))
    out = np.from_dlpack(_Capsule(obj))
    if unversioned and not out.flags.writeable:
        out = _writable(out)
    return out


class _Exposed:
    """Exposes ``base``'s memory through the array interface as writable, keeping ``base`` alive."""

    def __init__(self, base: np.ndarray):
        self.base = base
        iface = dict(base.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface


def _writable(a: np.ndarray) -> np.ndarray:
    if a.size == 0:
        return np.zeros(a.shape, a.dtype)  # no memory to share
    return np.asarray(_Exposed(a))
