"""The emitters by op: what ``emit/nhwc.py`` and ``emit/conv.py`` register into (the contract: this
package's docstring)."""
from __future__ import annotations

from typing import Any, Callable

from .planner import Emit

__all__ = ["EMITTERS", "emitter"]

EMITTERS: dict[Any, Callable[[Emit], list[str]]] = {}


def emitter(op: Any) -> Callable:
    """Registers the decorated function as ``op``'s emitter."""
    def deco(fn: Callable[[Emit], list[str]]) -> Callable[[Emit], list[str]]:
        EMITTERS[op] = fn
        return fn
    return deco
