"""Automatic naming of symbols, as MXNet's ``mxnet.name``: ``NameManager`` and ``Prefix``.

``F.relu(x)`` traced inside block ``hybridnet0`` is named ``hybridnet0_relu0``: the block's
``Prefix`` scope adds its prefix, and each scope counts names per op hint from zero.
"""
from __future__ import annotations

import threading

__all__ = ["NameManager", "Prefix", "current"]

_state = threading.local()


class NameManager:
    """Names symbols: an explicit name wins, otherwise ``hint`` + a per-hint counter."""

    def __init__(self) -> None:
        self._counter: dict[str, int] = {}
        self._old: NameManager | None = None

    def get(self, name: str | None, hint: str) -> str:
        if name:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return f"{hint}{n}"

    def __enter__(self) -> "NameManager":
        self._old = current()
        _state.current = self
        return self

    def __exit__(self, *exc: object) -> None:
        _state.current = self._old


class Prefix(NameManager):
    """Adds ``prefix`` to every name made inside the scope (given names included)."""

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self._prefix = prefix

    def get(self, name: str | None, hint: str) -> str:
        return self._prefix + super().get(name, hint)


def current() -> NameManager:
    cur = getattr(_state, "current", None)
    if cur is None:
        cur = _state.current = NameManager()
    return cur
