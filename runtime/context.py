"""Devices, as ``mxnet.context``: everything runs on the CPU here; the objects exist for API parity.

CPU-kind contexts (``cpu(n)``, ``cpu_pinned``, ``cpu_shared``) are all host memory: arrays created
in one record it (``nd.zeros(s, ctx=mx.Context('cpu_shared', 0)).context``), as MXNet. A GPU context
can be named, since code mentions them, but arrays made with it stay on the CPU: creating the first
one warns once (:class:`CPUFallbackWarning`) instead of running silently on the wrong device.
"""
from __future__ import annotations

import threading
import warnings

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "gpu_memory_info",
           "CPUFallbackWarning"]


class CPUFallbackWarning(UserWarning):
    """A GPU context was asked for: this runtime computes on the CPU."""


_warned_gpu = False
_warn_lock = threading.Lock()


def _warn_gpu_once(ctx: "Context") -> None:
    global _warned_gpu
    with _warn_lock:
        if _warned_gpu:
            return
        _warned_gpu = True
    warnings.warn(f"{ctx} requested: the hybridize runtime has no GPU support and computes on the CPU "
                  "(arrays and parameters stay in cpu(0)); this warning is shown once",
                  CPUFallbackWarning, stacklevel=4)


class _ClassProperty:
    """``Context.default_ctx`` as MXNet defines it: a property of the class, readable and settable."""

    def __init__(self, fget, fset=None):
        self.fget, self.fset = fget, fset

    def __get__(self, obj, cls=None):
        return self.fget(cls if cls is not None else type(obj))

    def setter(self, fset):
        self.fset = fset
        return self


class _ContextMeta(type):
    def __setattr__(cls, name, value):
        attr = cls.__dict__.get(name)
        if isinstance(attr, _ClassProperty) and attr.fset is not None:
            attr.fset(cls, value)
            return
        super().__setattr__(name, value)


_DEPRECATED = ("Context.default_ctx has been deprecated. Please use Context.current_context() instead. "
               "Please use test_utils.set_default_context to set a default context")


class Context(metaclass=_ContextMeta):
    """A device: ``cpu(0)``. GPU contexts can be named (code mentions them) but arrays stay on the CPU."""

    _default_ctx = threading.local()
    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {v: k for k, v in devtype2str.items()}

    def __init__(self, device_type: "str | Context" = "cpu", device_id: int = 0):
        if isinstance(device_type, Context):
            self.device_typeid, self.device_id = device_type.device_typeid, device_type.device_id
        else:
            self.device_typeid, self.device_id = Context.devstr2type[device_type], device_id
        self._old_ctx: Context | None = None
        if self.device_typeid == 2:
            _warn_gpu_once(self)

    @property
    def device_type(self) -> str:
        return Context.devtype2str[self.device_typeid]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and (self.device_typeid, self.device_id) == (other.device_typeid, other.device_id)

    def __hash__(self) -> int:
        return hash((self.device_typeid, self.device_id))

    def __repr__(self) -> str:
        return f"{self.device_type}({self.device_id})"

    __str__ = __repr__

    def __enter__(self) -> "Context":
        self._old_ctx = current_context()
        Context._default_ctx.value = self
        return self

    def __exit__(self, *exc: object) -> None:
        Context._default_ctx.value = self._old_ctx

    @_ClassProperty
    def default_ctx(cls) -> "Context":
        """The current default context (deprecated in MXNet 1.9.1, which warns: so does this)."""
        warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=2)
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, val: "Context") -> None:
        warnings.warn(_DEPRECATED, DeprecationWarning, stacklevel=3)
        cls._default_ctx.value = val

    def empty_cache(self) -> None:
        """Nothing is cached per device here."""


def cpu(device_id: int = 0) -> Context:
    return Context("cpu", device_id)


def cpu_pinned(device_id: int = 0) -> Context:
    return Context("cpu_pinned", device_id)


def gpu(device_id: int = 0) -> Context:
    """A GPU context: named for API parity; computation stays on the CPU (warned once)."""
    return Context("gpu", device_id)


def num_gpus() -> int:
    return 0


def gpu_memory_info(device_id: int = 0) -> tuple:
    """There is no GPU: raises MXNetError, as MXNet does without CUDA."""
    from .base import MXNetError
    raise MXNetError(f"gpu_memory_info({device_id}): no GPU (the hybridize runtime computes on the CPU)")


def current_context() -> Context:
    cur = getattr(Context._default_ctx, "value", None)
    return cur if cur is not None else cpu()
