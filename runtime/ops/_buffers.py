"""Large host arrays kept for reuse, as MXNet's pooled storage manager keeps its blocks.

glibc maps every block above 32 MiB on its own (``mmap``) and unmaps it when freed, so each fresh
large array page-faults all its memory in again: the kernel zeroes every page first, 0.5-1 s of
system time for 537 MB on a loaded machine, where copying into memory already mapped takes 0.05 s.
A program that makes arrays of the same large size again and again (a copy of an input, its
gradient buffer, ``asnumpy`` of that gradient, once per layer tested) paid that every time.

Here such an array is a view of a *block* (a ``uint8`` array this module keeps). A block is free
again when nothing but the pool refers to it any more (every view of a numpy array holds its base),
and the next request of a size that fits takes it. At most ``HYBRIDIZE_POOL_BYTES`` (default: an
eighth of the memory, at most 4 GiB; ``0``: no pool) of free blocks are kept; beyond that the oldest
free ones are let go (back to the kernel). Arrays below 32 MiB come from numpy as usual: glibc keeps
and reuses those itself.
"""
from __future__ import annotations

import os
import sys
import threading

import numpy as np

__all__ = ["empty", "zeros", "copy_of", "MIN_BYTES"]

MIN_BYTES = 32 << 20            # glibc's largest mmap threshold: every block above it is mmap'd
_ALIGN = 1 << 21                # blocks are rounded to 2 MiB (a huge page): near sizes share them


def _default_cap() -> int:
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = 8 << 30
    return min(ram // 8, 4 << 30)


def _cap_from_env() -> int:
    try:
        return int(os.environ.get("HYBRIDIZE_POOL_BYTES", _default_cap()))
    except ValueError:
        return _default_cap()


_CAP = _cap_from_env()
_blocks: list[np.ndarray] = []  # oldest first
_lock = threading.Lock()


def _refs_when_free() -> int:
    """``sys.getrefcount`` of a block nobody else holds, as :func:`_take` sees it (the list's
    reference and the call's argument)."""
    probe = [np.empty(1, np.uint8)]
    return sys.getrefcount(probe[0])


_FREE_REFS = _refs_when_free()


def _take(nbytes: int) -> tuple[np.ndarray, bool]:
    """A free block of at least ``nbytes`` (and less than a quarter more), claimed, or a new one
    (its pages not yet touched: zeros); and whether it is new."""
    size = -(-nbytes // _ALIGN) * _ALIGN
    with _lock:
        found = -1
        free: list[int] = []            # positions of the other free blocks
        for i in range(len(_blocks)):
            if sys.getrefcount(_blocks[i]) == _FREE_REFS:
                if found < 0 and size <= _blocks[i].nbytes <= size + size // 4:
                    found = i
                else:
                    free.append(i)
        if found >= 0:
            block = _blocks.pop(found)
            _blocks.append(block)       # most recently used last
            return block, False
        free_bytes = sum(_blocks[i].nbytes for i in free)
        drop = set()
        for i in free:                  # let the oldest free blocks go
            if free_bytes + size <= _CAP:
                break
            free_bytes -= _blocks[i].nbytes
            drop.add(i)
        _blocks[:] = [b for i, b in enumerate(_blocks) if i not in drop]
        block = np.zeros(size, np.uint8)   # calloc of fresh pages: zero without a pass over them
        if size <= _CAP:
            _blocks.append(block)
        return block, True


def _view(block: np.ndarray, shape: tuple, dtype: np.dtype) -> np.ndarray:
    return block[:int(np.prod(shape, dtype=np.int64)) * dtype.itemsize].view(dtype).reshape(shape)


def _pooled(shape: tuple, dtype: object) -> tuple[tuple, np.dtype, int]:
    dtype = np.dtype(dtype)
    shape = tuple(int(d) for d in shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return shape, dtype, (nbytes if _CAP > 0 and nbytes >= MIN_BYTES and not dtype.hasobject else 0)


def empty(shape: tuple, dtype: object) -> np.ndarray:
    """``np.empty(shape, dtype)`` (C order), in a reused block when it is large."""
    shape, dtype, nbytes = _pooled(shape, dtype)
    if not nbytes:
        return np.empty(shape, dtype)
    return _view(_take(nbytes)[0], shape, dtype)


def zeros(shape: tuple, dtype: object) -> np.ndarray:
    """``np.zeros(shape, dtype)``: a reused block is cleared (one pass over memory already
    mapped, faster than faulting in fresh zero pages); a new one is zero already."""
    shape, dtype, nbytes = _pooled(shape, dtype)
    if not nbytes:
        return np.zeros(shape, dtype)
    block, new = _take(nbytes)
    out = _view(block, shape, dtype)
    if not new:
        out[...] = 0
    return out


def copy_of(a: np.ndarray) -> np.ndarray:
    """``np.array(a, copy=True)``: a large C-contiguous one into a reused block."""
    if a.nbytes < MIN_BYTES or _CAP <= 0 or not a.flags.c_contiguous or a.dtype.hasobject:
        return np.array(a, copy=True)
    out = empty(a.shape, a.dtype)
    np.copyto(out, a)
    return out
