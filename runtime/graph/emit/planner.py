"""Buffers of the compiled program: liveness-based planning into one per-thread arena.

The ``plan memory`` stage of the pipeline (``passes/liveness.py``) orders the steps and records
each entry's last use in its metadata; buffers are taken here as the emitters ask for them
(outputs, scratch, in place when an input dies at this step) and packed into the arena once the
program is emitted (:meth:`Planner.finish`).
"""
from __future__ import annotations

import math
import types
from typing import Any

import numpy as np

from ..ir import Entry, Graph, Node

__all__ = ["Planner", "Emit"]


_ALIGN = 64


class _VBuf:
    __slots__ = ("index", "shape", "dtype", "nbytes", "first", "last", "offset", "scratch", "name", "node")

    def __init__(self, index: int, shape: tuple, dtype: np.dtype, first: int, scratch: bool):
        self.index, self.shape, self.dtype = index, tuple(int(d) for d in shape), np.dtype(dtype)
        self.nbytes = math.prod(self.shape) * self.dtype.itemsize
        self.first = self.last = first
        self.offset = 0
        self.scratch = scratch
        self.name = ""
        self.node: tuple[str, str] = ("", "")    # (name, op) of the node whose step asked for it


def _aligned(nbytes: int) -> int:
    return -(-nbytes // _ALIGN) * _ALIGN


class _Lifetimes:
    """Placed buffers by lifetime (in steps), so that placing one looks at the buffers alive with it
    only, not at every buffer placed before: a buffer overlaps ``[first, last]`` when it is alive at
    ``first`` (a segment tree over the steps answers that, each buffer stored in O(log steps)
    nodes) or starts within ``(first, last]`` (buffers by their first step)."""

    def __init__(self, n_steps: int):
        self.size = 1 << max(n_steps - 1, 1).bit_length()
        self.tree: dict[int, list[_VBuf]] = {}
        self.starts: dict[int, list[_VBuf]] = {}

    def add(self, vb: _VBuf) -> None:
        self.starts.setdefault(vb.first, []).append(vb)
        lo, hi = vb.first + self.size, vb.last + self.size + 1
        while lo < hi:
            if lo & 1:
                self.tree.setdefault(lo, []).append(vb)
                lo += 1
            if hi & 1:
                hi -= 1
                self.tree.setdefault(hi, []).append(vb)
            lo, hi = lo >> 1, hi >> 1

    def overlapping(self, first: int, last: int) -> list[_VBuf]:
        found: list[_VBuf] = []
        i = first + self.size
        while i:
            found.extend(self.tree.get(i, ()))
            i >>= 1
        if last - first < len(self.starts):
            for t in range(first + 1, last + 1):
                found.extend(self.starts.get(t, ()))
        else:
            found.extend(v for t, vs in self.starts.items() if first < t <= last for v in vs)
        return found


class Planner:
    """Liveness-based buffer planning: every planned buffer is a view into one per-thread arena;
    buffers whose lifetimes (in steps) do not overlap share memory."""

    def __init__(self, glob: dict, names: Any, meta: dict[Entry, Any]):
        self.glob, self.names, self.meta = glob, names, meta
        self.vbufs: list[_VBuf] = []
        self.owners: dict[Entry, frozenset[int]] = {}
        self.step = 0
        self.node: tuple[str, str] = ("", "")    # the node being emitted: (name, op)
        self.parallel = False      # some kernel runs row chunks on the thread pool
        self.split_dense = False   # large dense GEMMs in row chunks on the pool (training programs)
        self.augmented: dict[Entry, str] = {}      # entry -> a (1, n + 1) buffer holding it and a 1 (_hy_dense)
        self.slots: dict[tuple, str] = {}          # (buffer, offset, width) -> a view made with the buffers
        self.shared: dict[tuple, str] = {}         # Emit.bind's shared values -> their global's name
        self.dests: dict[Entry, int] = {}          # output entry -> k: its buffer is _out[k] when given

    def owner(self, e: Entry) -> frozenset[int]:
        return self.owners.get(e, frozenset())

    def new(self, shape: tuple, dtype: Any, scratch: bool = False) -> _VBuf:
        vb = _VBuf(len(self.vbufs), shape, dtype, self.step, scratch)
        vb.node = self.node
        vb.name = self.names.make(f"_s{vb.index}" if scratch else f"_b{vb.index}", internal=True)
        self.vbufs.append(vb)
        return vb

    def slot(self, vb: _VBuf, off: int, width: int) -> str:
        """The name of a per-thread view ``vb[..., off:off + width]``, made once with the buffers
        (not sliced on every call)."""
        key = (vb.index, off, width)
        nm = self.slots.get(key)
        if nm is None:
            nm = self.slots[key] = self.names.make(f"_v{vb.index}_{off}", internal=True)
        return nm

    def define(self, e: Entry, owners: frozenset[int]) -> None:
        self.owners[e] = owners
        t = self.meta[e].last_use
        if t is None:
            t = self.step
        for i in owners:
            vb = self.vbufs[i]
            vb.last = max(vb.last, t)

    def finish(self, stats: dict) -> list[str]:
        """Assigns arena offsets (greedy by size, first fit) and returns the prelude lines."""
        if not self.vbufs:
            stats["memory"] = {"peak_bytes": 0, "lower_bound_bytes": 0, "buffers": 0, "unshared_bytes": 0,
                               "live_bytes": [0] * self.step}
            return []
        n_steps = max(v.last for v in self.vbufs) + 1
        placed = _Lifetimes(n_steps)
        total = 0
        for vb in sorted(self.vbufs, key=lambda v: (-v.nbytes, v.first)):
            size = _aligned(vb.nbytes)
            off = 0
            for a, b in sorted((p.offset, p.offset + _aligned(p.nbytes)) for p in placed.overlapping(vb.first, vb.last)):
                if off + size <= a:
                    break
                off = max(off, b)
            vb.offset = off
            total = max(total, off + size)
            placed.add(vb)
        live = np.zeros(n_steps + 1, np.int64)
        for v in self.vbufs:
            live[v.first] += v.nbytes
            live[v.last + 1] -= v.nbytes
        live = np.cumsum(live)
        lower = int(live.max())
        # live_bytes[t]: planned bytes alive at step t (a training step's bound adds the activations)
        stats["memory"] = {"peak_bytes": int(total), "lower_bound_bytes": lower, "buffers": len(self.vbufs),
                           "unshared_bytes": int(sum(v.nbytes for v in self.vbufs)),
                           "live_bytes": [int(live[t]) if t < len(live) else 0 for t in range(self.step)]}
        layout = [(v.offset, v.nbytes, v.dtype, v.shape) for v in self.vbufs]
        slots = list(self.slots.items())
        tls = self.glob["_tls"]

        largest = max(self.vbufs, key=lambda v: v.nbytes)

        glob = self.glob
        glob["_arena"] = _fresh_arena

        def alloc() -> tuple:
            try:
                arena = glob["_arena"](total)
            except MemoryError:
                from ...base import OutOfMemoryError
                from ....messages import printable
                from ..load_limit import fmt_bytes
                raise OutOfMemoryError(
                    f"out of memory allocating the compiled program's buffers: they need {fmt_bytes(total)} "
                    f"({total} bytes), the largest {largest.nbytes} bytes for node {printable(repr(largest.node[0]))} "
                    f"({largest.node[1]}); more than the memory this process may use") from None
            bufs = tuple(arena[o:o + n].view(d).reshape(s) for o, n, d, s in layout)
            bufs += tuple(bufs[i][..., off:off + w] for (i, off, w), _ in slots)
            tls.bufs = bufs
            return bufs
        self.glob["_alloc"] = alloc
        return ["try:", "    _bufs = _tls.bufs", "except AttributeError:", "    _bufs = _alloc()",
                "(" + ", ".join([v.name for v in self.vbufs] + [nm for _, nm in slots]) + ",) = _bufs"]


def _fresh_arena(nbytes: int) -> np.ndarray:
    """The arena of one program in one thread (``CompiledProgram.share_arena`` replaces it)."""
    return np.empty(nbytes, np.uint8)


_IMMUTABLE = (tuple, str, int, float, bool, np.dtype, np.generic)


def _shared_key(hint: str, value: Any) -> tuple | None:
    """The key under which a bound value may be shared, or None (arrays, kernels: one name each)."""
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, np.ufunc)):
        return (hint, "fn", id(value))
    if isinstance(value, _IMMUTABLE):
        try:
            hash(value)
        except TypeError:
            return None
        # (1, 2) and (1.0, 2.0) are equal but not interchangeable: the types are part of the key
        return (hint, type(value), value, _types(value))
    return None


def _types(value: Any) -> Any:
    return tuple(_types(v) for v in value) if isinstance(value, tuple) else type(value)


class Emit:
    """What an emitter gets (see this package's docstring for the contract)."""

    def __init__(self, plan: Planner, graph: Graph, *, node: Node, args: list[str], outs: list[str], in_shapes: list,
                 in_dtypes: list, out_shapes: list, out_dtypes: list, is_output: list[bool]):
        self.plan, self.graph, self.node, self.args, self.outs = plan, graph, node, args, outs
        self.in_shapes, self.in_dtypes, self.out_shapes, self.out_dtypes = in_shapes, in_dtypes, out_shapes, out_dtypes
        self.is_output = is_output
        self.glob, self.names = plan.glob, plan.names
        self.pre: list[str] = []
        self.owners: dict[int, frozenset[int]] = {}

    def users(self, e: Entry) -> list[Node]:
        """The nodes reading ``e`` (later steps: ``e`` is computed by this one)."""
        return [u for u, _ in self.graph.users(e)]

    def bind(self, hint: str, value: Any) -> str:
        """A global of the generated code holding ``value``. Functions and small immutable values
        (shapes, dtypes, scalars, activation specs) bound again under the same hint reuse the first
        name: a long program binds each of them once, not once per node."""
        key = _shared_key(hint, value)
        if key is not None:
            nm = self.plan.shared.get(key)
            if nm is not None:
                return nm
        nm = self.names.make(hint, "_")
        self.glob[nm] = value
        if key is not None:
            self.plan.shared[key] = nm
        return nm

    def out_buffer(self, i: int) -> str:
        if self.is_output[i]:
            nm = self.names.make(self.outs[i] + "_out")
            s = self.bind("shape", tuple(self.out_shapes[i]))
            d = self.bind("dtype", np.dtype(self.out_dtypes[i]))
            k = self.plan.dests.get(Entry(self.node, i))
            if k is None:
                self.pre.append(f"{nm} = _empty({s}, {d})")
            else:       # the caller's destination (``output_args``), else a fresh array
                self.pre.append(f"{nm} = _empty({s}, {d}) if _out is None or _out[{k}] is None else _out[{k}]")
            return nm
        vb = self.plan.new(self.out_shapes[i], self.out_dtypes[i])
        self.owners[i] = frozenset({vb.index})
        return vb.name

    def scratch(self, shape: tuple, dtype: Any) -> str:
        return self.plan.new(shape, dtype, scratch=True).name

    def inplace(self, i: int, j: int) -> str | None:
        if self.is_output[i]:
            return None
        e = self.node.inputs[j]
        own = self.plan.owner(e)
        if len(own) != 1 or tuple(self.in_shapes[j]) != tuple(self.out_shapes[i]) \
                or np.dtype(self.in_dtypes[j]) != np.dtype(self.out_dtypes[i]):
            return None
        vb = self.plan.vbufs[next(iter(own))]
        if vb.last > self.plan.step or vb.scratch:
            return None
        self.owners[i] = own
        return self.args[j]

    def alias(self, i: int) -> None:
        own = frozenset().union(*[self.plan.owner(e) for e in self.node.inputs]) if self.node.inputs else frozenset()
        self.owners[i] = own
