"""Devices, as ``mxnet.context``: everything runs on the CPU here; the objects exist for API parity."""
from __future__ import annotations

import threading

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus"]


class Context:
    """A device: ``cpu(0)``. GPU contexts can be named (code mentions them) but arrays stay on the CPU."""

    _state = threading.local()
    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {v: k for k, v in devtype2str.items()}

    def __init__(self, device_type: "str | Context" = "cpu", device_id: int = 0):
        if isinstance(device_type, Context):
            self.device_typeid, self.device_id = device_type.device_typeid, device_type.device_id
        else:
            self.device_typeid, self.device_id = Context.devstr2type[device_type], device_id
        self._old: Context | None = None

    @property
    def device_type(self) -> str:
        return Context.devtype2str[self.device_typeid]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Context) and (self.device_typeid, self.device_id) == (other.device_typeid, other.device_id)

    def __hash__(self) -> int:
        return hash((self.device_typeid, self.device_id))

    def __repr__(self) -> str:
        return f"{self.device_type}({self.device_id})"

    def __enter__(self) -> "Context":
        self._old = current_context()
        Context._state.value = self
        return self

    def __exit__(self, *exc: object) -> None:
        Context._state.value = self._old

    def empty_cache(self) -> None:
        """Nothing is cached per device here."""


def cpu(device_id: int = 0) -> Context:
    return Context("cpu", device_id)


def cpu_pinned(device_id: int = 0) -> Context:
    return Context("cpu_pinned", device_id)


def gpu(device_id: int = 0) -> Context:
    return Context("gpu", device_id)


def num_gpus() -> int:
    return 0


def current_context() -> Context:
    cur = getattr(Context._state, "value", None)
    return cur if cur is not None else cpu()
