"""What ``mxnet.util`` offers to Gluon code: the NumPy-semantics switches, always off here.

This runtime implements MXNet's classic (``mx.nd``/``mx.sym``) semantics only, so
``is_np_array()`` and ``is_np_shape()`` are ``False`` and the ``use_np*`` decorators return
their argument unchanged; code written for both modes takes its classic branch.
"""
from __future__ import annotations

import contextlib
import functools
import os
from typing import Any, Callable

__all__ = ["is_np_array", "is_np_shape", "set_np", "reset_np", "use_np", "use_np_array",
           "use_np_shape", "np_array", "np_shape", "set_np_shape", "makedirs", "getenv", "setenv",
           "get_gpu_count", "get_gpu_memory", "wraps_safely"]


def is_np_array() -> bool:
    return False


def is_np_shape() -> bool:
    return False


def set_np_shape(active: bool) -> bool:
    if active:
        raise NotImplementedError("NumPy shape semantics are not supported by this runtime")
    return False


def set_np(shape: bool = True, array: bool = True, dtype: bool = False) -> None:
    if shape or array:
        raise NotImplementedError("NumPy semantics (mx.np / mx.npx) are not supported by this runtime")


def reset_np() -> None:
    """Nothing to reset: NumPy semantics are never on."""


def _identity_decorator(func: Any = None) -> Any:
    return func


use_np = use_np_array = use_np_shape = _identity_decorator


@contextlib.contextmanager
def np_array(active: bool = True):
    if active:
        raise NotImplementedError("NumPy array semantics are not supported by this runtime")
    yield


@contextlib.contextmanager
def np_shape(active: bool = True):
    if active:
        raise NotImplementedError("NumPy shape semantics are not supported by this runtime")
    yield


def makedirs(d: str) -> None:
    os.makedirs(os.path.expanduser(d), exist_ok=True)


def getenv(name: str) -> str | None:
    return os.environ.get(name)


def setenv(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def get_gpu_count() -> int:
    return 0


def get_gpu_memory(gpu_dev_id: int) -> tuple:
    raise RuntimeError("no GPU: this runtime runs on the CPU only")


def wraps_safely(wrapped: Callable, assigned: tuple = functools.WRAPPER_ASSIGNMENTS) -> Callable:
    return functools.wraps(wrapped, assigned=[a for a in assigned if hasattr(wrapped, a)])
