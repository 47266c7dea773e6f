"""``mx.engine``: MXNet's bulk-execution knobs. MXNet's engine may bundle up to ``size`` operators
into one scheduled unit (a speed setting that never changes results); the runtime runs every
operator when called, so it only keeps the size, returning the previous one as MXNet does."""
from __future__ import annotations

_BULK_SIZE = [0]    # what MXNet 1.9.1 (CPU build) reports before any set_bulk_size


def set_bulk_size(size: int) -> int:
    """Sets the bulk size; returns the previous one."""
    prev, _BULK_SIZE[0] = _BULK_SIZE[0], int(size)
    return prev


class _BulkScope:
    """``with mx.engine.bulk(size):`` sets the bulk size inside and restores it after."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._old_size: int | None = None

    def __enter__(self) -> _BulkScope:
        self._old_size = set_bulk_size(self._size)
        return self

    def __exit__(self, ptype, value, trace) -> None:
        set_bulk_size(self._old_size)


def bulk(size: int) -> _BulkScope:
    """A scope with bulk size ``size`` (``with mx.engine.bulk(10): ...``)."""
    return _BulkScope(size)
