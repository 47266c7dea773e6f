"""Attribute scopes, as MXNet's ``mxnet.attribute``: ``with mx.AttrScope(ctx_group='dev1'):``
annotates every symbol created inside (operators and variables) with those attributes.

MXNet's ``foreach`` uses one to mark the nodes of its loop body (``__subgraph_name__``), which
shows in exported ``-symbol.json`` files; user code uses it for ``ctx_group`` and the like.
Values are strings, as in MXNet; scopes nest (inner values win) and are per thread.
"""
from __future__ import annotations

import threading
from collections import defaultdict

__all__ = ["AttrScope", "current_attrs"]

_state = threading.local()


class AttrScope:
    """Attributes given to every symbol created while the scope is active."""

    _subgraph_names: defaultdict = defaultdict(int)      # MXNet's per-process subgraph name counter

    def __init__(self, **kwargs: str) -> None:
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr = kwargs
        self._old: dict | None = None

    def get(self, attr: dict | None) -> dict:
        """``attr`` merged over this scope's attributes."""
        out = dict(current_attrs())
        out.update(attr or {})
        return out

    def __enter__(self) -> "AttrScope":
        self._old = current_attrs()
        _state.attrs = {**self._old, **self._attr}
        return self

    def __exit__(self, *exc: object) -> None:
        _state.attrs = self._old or {}


def current_attrs() -> dict:
    """The attributes of the innermost active scope (empty outside any)."""
    return getattr(_state, "attrs", {})


def unique_subgraph_name(name: str) -> str:
    """MXNet's ``_get_unique_subgraph_name``: ``foreach0``, ``foreach1``, ... per process, nested
    names joined by ``$``."""
    outer = current_attrs().get("__subgraph_name__", "")
    if outer:
        name = outer + "$" + name
    AttrScope._subgraph_names[name] += 1
    return name + str(AttrScope._subgraph_names[name] - 1)
