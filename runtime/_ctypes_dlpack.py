"""DLPack capsules made and read with ctypes, for numpy older than 1.22 (which has no ``__dlpack__``).

MXNet 1.9.1's CI ran its tests on numpy<1.20; so that ``to_dlpack_for_read/write`` and ``from_dlpack``
work there as on newer numpy, this module builds the unversioned ``"dltensor"`` capsule of the DLPack
0.x ABI (``DLManagedTensor``) over a numpy array, and views such a capsule's memory as a numpy array,
renaming it ``"used_dltensor"`` and calling its deleter when the view is gone, as the protocol says.
Newer numpy does both itself (``runtime/_interop.py`` uses it there).
"""
from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

__all__ = ["export", "consume"]


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_Managed._fields_ = [("dl_tensor", _Tensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

_KDLCPU = 1
_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}        # kDLInt, kDLUInt, kDLFloat, kDLBool
_KINDS = {v: k for k, v in _CODES.items()}
_NAME = b"dltensor"
_USED = b"used_dltensor"

# the capsule C API on raw pointers: a capsule's destructor runs while its refcount is 0
_api = ctypes.pythonapi
_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(("PyCapsule_New", _api))
_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_pointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))
_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", _api))
_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_SetName", _api))

# exported tensors alive until their deleter runs: id -> (struct, array, shape/strides buffers)
_LIVE: dict[int, tuple] = {}


@_DELETER
def _delete(managed: Any) -> None:
    _LIVE.pop(managed.contents.manager_ctx or 0, None)


@ctypes.PYFUNCTYPE(None, ctypes.c_void_p)
def _destroy_capsule(capsule: int) -> None:
    """A capsule nobody consumed owns its tensor: free it (a consumed one was renamed)."""
    if _valid_raw(capsule, _NAME):
        managed = ctypes.cast(_pointer_raw(capsule, _NAME), ctypes.POINTER(_Managed))
        managed.contents.deleter(managed)


def export(a: np.ndarray) -> Any:
    """A ``"dltensor"`` capsule viewing ``a``'s memory (``a`` is kept alive until the consumer's
    deleter call, or the capsule's end if nobody consumes it)."""
    if a.dtype.kind not in _CODES or a.dtype.byteorder == ">":
        raise TypeError(f"DLPack cannot describe the dtype {a.dtype}")
    shape = (ctypes.c_int64 * a.ndim)(*a.shape)
    strides = (ctypes.c_int64 * a.ndim)(*(s // a.itemsize for s in a.strides))
    managed = _Managed()
    t = managed.dl_tensor
    t.data = a.ctypes.data if a.size else None
    t.device = _Device(_KDLCPU, 0)
    t.ndim = a.ndim
    t.dtype = _DataType(_CODES[a.dtype.kind], a.itemsize * 8, 1)
    t.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    managed.manager_ctx = id(managed)
    managed.deleter = _delete
    _LIVE[id(managed)] = (managed, a, shape, strides)
    return _new(ctypes.addressof(managed), _NAME, ctypes.cast(_destroy_capsule, ctypes.c_void_p))


class _Owner:
    """Holds a consumed tensor for the numpy view of it; the tensor's deleter runs when the view dies."""

    def __init__(self, managed: Any, iface: dict):
        self.managed = managed
        self.__array_interface__ = iface

    def __del__(self) -> None:
        if self.managed.contents.deleter:
            self.managed.contents.deleter(self.managed)


def consume(capsule: Any) -> np.ndarray:
    """A writable numpy view of a ``"dltensor"`` capsule's memory; the capsule becomes ``"used_dltensor"``."""
    managed = ctypes.cast(_pointer(capsule, _NAME), ctypes.POINTER(_Managed))
    t = managed.contents.dl_tensor
    if t.device.device_type != _KDLCPU:
        raise BufferError("from_dlpack: only CPU memory can be viewed")
    if t.dtype.lanes != 1 or t.dtype.code not in _KINDS:
        raise TypeError(f"from_dlpack: unsupported DLPack dtype (code {t.dtype.code}, {t.dtype.bits} bits)")
    dtype = np.dtype("?" if t.dtype.code == 6 else f"{_KINDS[t.dtype.code]}{t.dtype.bits // 8}")
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = None if not t.strides else tuple(t.strides[i] * dtype.itemsize for i in range(t.ndim))
    _set_name(capsule, _USED)
    if not t.data or 0 in shape:
        managed.contents.deleter(managed)
        return np.zeros(shape, dtype)
    iface = {"version": 3, "shape": shape, "typestr": dtype.str, "strides": strides,
             "data": (t.data + t.byte_offset, False)}
    return np.asarray(_Owner(managed, iface))
