"""The load limit: how many bytes one file may make the loaders allocate (``HYBRIDIZE_MAX_LOAD_BYTES``).

A parameter file can declare far more than it holds: a sparse array's dense shape, a ``.npy``
header inside a ``.npz``, a zip member that inflates a thousandfold. The loaders check every
declared size against the bytes present first; what remains legitimately large (a big ``.params``
file, a ``.npz`` whose members really inflate to gigabytes, sparse arrays returned dense) is
counted against this limit, per file, before anything is allocated.

The default, 2 GiB, is above every model of MXNet's model zoo (the largest, vgg19_bn, is 0.57 GB).
For a genuinely larger model raise it: the environment variable ``HYBRIDIZE_MAX_LOAD_BYTES``
(a byte count, optionally with a binary suffix: ``8G``, ``512M``, ``1T``), the ``max_bytes=``
argument of ``nd.load`` / ``graph.params.load`` / ``Model.load``, or ``hybridize run
--max-load-bytes``.
"""
from __future__ import annotations

import os
import re
from typing import Optional, Union

from ...messages import fmt_bytes  # noqa: F401 - re-exported: the loaders' messages
from ..base import LoadError

__all__ = ["ENV", "DEFAULT", "max_load_bytes", "parse_size", "fmt_bytes", "Budget"]

ENV = "HYBRIDIZE_MAX_LOAD_BYTES"
DEFAULT = 2 * 1024 ** 3
_SUFFIX = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4, "P": 1024 ** 5}


def parse_size(text: Union[str, int]) -> int:
    """``"8G"`` -> 8589934592; plain integers are bytes. ``ValueError`` for anything else."""
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        m = re.fullmatch(r"\s*(\d+)\s*([KMGTP]?)(?:i?B)?\s*", str(text), flags=re.IGNORECASE)
        if not m:
            raise ValueError(f"{text!r} is not a byte count (e.g. 2147483648, 512M, 8G)")
        value = int(m.group(1)) * _SUFFIX[m.group(2).upper()]
    if value <= 0:
        raise ValueError(f"{text!r}: the load limit must be positive")
    return value


def max_load_bytes(override: Optional[Union[str, int]] = None) -> int:
    """The limit in force: ``override`` if given, else ``$HYBRIDIZE_MAX_LOAD_BYTES``, else 2 GiB."""
    if override is not None:
        try:
            return parse_size(override)
        except ValueError as e:
            raise LoadError(None, f"max_bytes: {e}") from None
    env = os.environ.get(ENV)
    if env:
        try:
            return parse_size(env)
        except ValueError as e:
            raise LoadError(None, f"{ENV}: {e}") from None
    return DEFAULT


class Budget:
    """What one file has made the loader allocate so far, against the limit."""

    def __init__(self, path, limit: Optional[Union[str, int]] = None):
        self.path = path
        self.limit = max_load_bytes(limit)
        self.used = 0

    def claim(self, nbytes: int, what: str) -> None:
        """Counts ``nbytes`` for ``what`` or raises ``LoadError`` naming it, before any allocation."""
        if self.used + nbytes > self.limit:
            already = f" (after {fmt_bytes(self.used)} already loaded)" if self.used else ""
            raise LoadError(self.path, f"{what} needs {fmt_bytes(nbytes)}{already}, over the load limit of "
                                       f"{fmt_bytes(self.limit)}; raise it with {ENV} (e.g. {ENV}=8G) "
                                       "if the file is trusted")
        self.used += nbytes


def checked_nbytes(shape, itemsize: int) -> Optional[int]:
    """Bytes of an array of ``shape``, or None when numpy could not even describe it (its size
    overflows a 64-bit index: the product of the non-zero dimensions times the item size)."""
    count = 1
    extent = max(int(itemsize), 1)
    for d in shape:
        d = int(d)
        count *= d
        extent *= max(d, 1)
    if extent > 2 ** 63 - 1:
        return None
    return count * int(itemsize)
