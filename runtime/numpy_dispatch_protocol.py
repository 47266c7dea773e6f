"""``mxnet.numpy_dispatch_protocol``: which official NumPy functions and ufuncs dispatch to ``mx.np``
when given ``mx.np.ndarray`` arrays (MXNet 1.9.1's two lists), and its two test decorators."""
from __future__ import annotations

import functools
from typing import Any, Callable

from .numpy import _ARRAY_FUNCTIONS, _ARRAY_UFUNCS

__all__ = ["_NUMPY_ARRAY_FUNCTION_LIST", "_NUMPY_ARRAY_UFUNC_LIST", "with_array_function_protocol",
           "with_array_ufunc_protocol"]

_NUMPY_ARRAY_FUNCTION_LIST = list(_ARRAY_FUNCTIONS)
_NUMPY_ARRAY_UFUNC_LIST = list(_ARRAY_UFUNCS)


def _protocol_runner(func: Callable[..., Any], what: str) -> Callable[..., Any]:
    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            func(*args, **kwargs)
        except Exception as e:
            raise RuntimeError(f"Running function {func.__name__} with NumPy array {what} protocol failed with "
                               f"exception {e}") from e
    return run


def with_array_function_protocol(func: Callable[..., Any]) -> Callable[..., Any]:
    """Runs ``func``, reporting a failure as MXNet does (NumPy >= 1.17 always has the protocol)."""
    return _protocol_runner(func, "function")


def with_array_ufunc_protocol(func: Callable[..., Any]) -> Callable[..., Any]:
    """Runs ``func``, reporting a failure as MXNet does (NumPy >= 1.15 always has the protocol)."""
    return _protocol_runner(func, "ufunc")
