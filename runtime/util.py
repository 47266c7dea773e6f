"""What ``mxnet.util`` offers to Gluon code, including MXNet's NumPy-semantics switches.

``set_np()`` turns on NumPy shape semantics (zero-dim and zero-size arrays are real, a 0 in a shape is
not "unknown") and NumPy array semantics (Gluon creates ``mx.np.ndarray`` parameters and outputs,
``hybrid_forward``'s ``F`` offers ``F.np``/``F.npx``), as MXNet 1.9.1's. The array flag is per thread
(MXNet's ``_NumpyArrayScope``); the shape flag is process-wide here (MXNet keeps it per thread in C++;
nothing here runs operators on other threads).
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import os
import threading
from typing import Any, Callable, Iterator

from .ops._util import np_shape_semantics, set_np_shape_semantics

__all__ = ["is_np_array", "is_np_shape", "set_np", "reset_np", "use_np", "use_np_array",
           "use_np_shape", "np_array", "np_shape", "set_np_shape", "makedirs", "getenv", "setenv",
           "get_gpu_count", "get_gpu_memory", "wraps_safely", "set_np_default_dtype", "is_np_default_dtype"]

_STATE = {"dtype": False}
_ARRAY = threading.local()


def is_np_array() -> bool:
    """Whether NumPy array semantics are on (Gluon then makes ``mx.np.ndarray`` arrays)."""
    return getattr(_ARRAY, "value", False)


def is_np_shape() -> bool:
    """Whether NumPy shape semantics are on (zero-dim/zero-size shapes are real)."""
    return np_shape_semantics()


def set_np_shape(active: bool) -> bool:
    """Turns NumPy shape semantics on or off; returns the previous state. The flag lives with the
    operators (``ops._util``): their shape rules and graph inference read unknown dimensions by it."""
    return set_np_shape_semantics(active)


def _set_np_array(active: bool) -> bool:
    prev = is_np_array()
    _ARRAY.value = bool(active)
    return prev


def set_np(shape: bool = True, array: bool = True, dtype: bool = False) -> None:
    """Turns on NumPy shape and array semantics (as ``npx.set_np()``); array semantics need shape
    semantics (ValueError, as MXNet)."""
    if not shape and array:
        raise ValueError("NumPy Shape semantics is required in using NumPy array semantics.")
    _set_np_array(array)
    set_np_shape(shape)
    _STATE["dtype"] = bool(dtype)


def reset_np() -> None:
    """Turns NumPy shape and array semantics off."""
    set_np(shape=False, array=False)


def set_np_default_dtype(is_np_default_dtype: bool = True) -> bool:
    """MXNet 2's float64 default dtype switch: only False (float32, MXNet 1.9.1's default) is supported."""
    if is_np_default_dtype:
        raise NotImplementedError("NumPy's float64 default dtype is not supported (MXNet 1.9.1 creates float32)")
    return False


def is_np_default_dtype() -> bool:
    return False


@contextlib.contextmanager
def np_shape(active: bool = True) -> Iterator[None]:
    """A scope with NumPy shape semantics on (or off)."""
    prev = set_np_shape(active)
    try:
        yield
    finally:
        set_np_shape(prev)


@contextlib.contextmanager
def np_array(active: bool = True) -> Iterator[None]:
    """A scope with NumPy array semantics on (or off), for this thread."""
    prev = _set_np_array(active)
    try:
        yield
    finally:
        _set_np_array(prev)


def _scoped(scope: Callable[..., Any], decorator_name: str) -> Callable[[Any], Any]:
    def decorate(func: Any) -> Any:
        if inspect.isclass(func):
            for name, method in inspect.getmembers(
                    func, predicate=lambda f: inspect.isfunction(f) or inspect.ismethod(f) or isinstance(f, property)):
                if isinstance(method, property):
                    setattr(func, name, property(decorate(method.__get__), method.__set__, method.__delattr__,
                                                 method.__doc__))
                else:
                    setattr(func, name, decorate(method))
            return func
        if callable(func):
            @functools.wraps(func)
            def scoped(*args: Any, **kwargs: Any) -> Any:
                with scope(active=True):
                    return func(*args, **kwargs)
            return scoped
        raise TypeError(f"{decorator_name} can only decorate classes and callable objects, while received a {type(func)}")
    return decorate


use_np_shape = _scoped(np_shape, "use_np_shape")
use_np_array = _scoped(np_array, "use_np_array")


def use_np(func: Any) -> Any:
    """``use_np_shape(use_np_array(func))``: the function (or every method of the class) runs with
    NumPy semantics on."""
    return use_np_shape(use_np_array(func))


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
