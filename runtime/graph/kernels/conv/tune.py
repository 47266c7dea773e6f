"""Algorithm choice by measurement (as MXNet's ``cudnn_tune``): the eligible tunable algorithms of a
convolution are timed on its actual shape, once per process and, through the persistent tuning
cache (``graph/tune_cache.py``), once per machine."""
from __future__ import annotations

import contextlib
import time
import types
from typing import Any

import numpy as np

from ..parallel import blas_single_threaded, num_threads
from . import build_conv, conv_out_hw, get_algo

_TUNED: dict[tuple, str] = {}
TUNE_MAX_FLOPS = 1e9        # a single convolution bigger than this is not timed by a compile (background.py may)
TUNE_BUDGET_SECONDS = 0.15  # blocking timing per compiled graph; past it the fixed rule decides, the tuner times later


def key_attrs(spec: Any) -> dict:
    """The attributes a tuning verdict is keyed by (with the input shape, dtype and candidates).
    Epilogue and bias are fixed (one verdict per layer shape): they cost every algorithm alike."""
    return {"kernel": tuple(spec.kernel), "stride": tuple(spec.stride), "pad": tuple(spec.pad),
            "dilate": tuple(spec.dilate), "num_filter": int(spec.K), "groups": int(spec.groups), "act": (),
            "has_bias": True, "has_res": False}


def time_conv(x_shape: tuple, attrs: Any, dtype: Any, rounds: int = 3) -> float:
    """Best-of-``rounds`` CPU seconds (all threads of the process) of one call of the ``_hy_conv``
    kernel for ``attrs`` on constant data of ``x_shape`` (after one warm-up call), with its own
    scratch buffers.

    CPU time, not wall time: on a shared machine (more runnable threads than cores) a wall-clock
    sample mostly measures the scheduler, and the verdict persists in the tuning cache. Measured
    here at load 3-8 on 2 cores: wall-clock tuning kept im2col for ResNet-18's 56x56x64 layers
    (4.9 ms of CPU) over F(4x4) (2.7 ms); CPU time picks the same algorithm as an idle machine's
    wall clock, since every candidate splits its work across the same threads. Without the pool
    (``HYBRIDIZE_THREADS=1``) BLAS keeps its own threads, whose spinning is CPU time: the wall clock
    decides there."""
    fn, scratch = build_conv(attrs, x_shape, dtype)
    N, H, W, C = x_shape
    OH, OW = conv_out_hw(H, W, attrs)
    kh, kw = attrs.kernel
    # the values do not matter (no denormals): constants are much cheaper than random draws
    x = np.full(x_shape, 0.5, dtype)
    w_shape = get_algo(attrs.algo).weight_shape((attrs.num_filter, C // attrs.groups, kh, kw), attrs.groups)
    w = np.full(w_shape, 0.01, dtype)
    optional = {"bias": np.zeros(attrs.num_filter, dtype)} if attrs.has_bias else {}
    out = np.empty((N, OH, OW, attrs.num_filter), dtype)
    bufs = [np.empty(shape, d) for shape, d in scratch]
    best = float("inf")
    # BLAS as the compiled program runs it: single-threaded under the pool (OpenBLAS's own threads
    # would make one big matmul look fast in isolation, and their spinning inflates CPU time);
    # without the pool (HYBRIDIZE_THREADS=1) BLAS keeps its threads and the wall clock decides
    pooled = num_threads() > 1
    clock = time.process_time if pooled else time.perf_counter
    with blas_single_threaded() if pooled else contextlib.nullcontext():
        fn(x, w, out, *bufs, **optional)
        for _ in range(rounds):
            t = clock()
            fn(x, w, out, *bufs, **optional)
            best = min(best, clock() - t)
    return max(best, 1e-9)      # a clock tick can exceed a tiny kernel: never report zero


def _keys(x_shape: tuple, attrs: dict, dtype: Any, candidates: tuple) -> tuple[tuple, dict, int]:
    """(in-process memo key, persistent cache key, thread count) of one convolution's verdict."""
    threads = num_threads()
    plain = {k: v for k, v in attrs.items() if k != "algo"}
    key = (tuple(x_shape), tuple(sorted(plain.items())), np.dtype(dtype).str, candidates, threads)
    disk_key = {"op": "conv2d_nhwc", "x_shape": list(x_shape), "attrs": plain, "dtype": np.dtype(dtype).str,
                "candidates": list(candidates), "versions": [get_algo(a).version for a in candidates],
                "clock": "cpu" if threads > 1 else "wall"}
    return key, disk_key, threads


def _known(x_shape: tuple, attrs: dict, dtype: Any, candidates: tuple) -> str | None:
    """The verdict for exactly this convolution: in-process memo, else the persistent cache."""
    from ... import tune_cache
    key, disk_key, threads = _keys(x_shape, attrs, dtype, candidates)
    if key not in _TUNED:
        stored = tune_cache.load(disk_key, candidates, threads)
        if stored is None:
            return None
        _TUNED[key] = stored
    return _TUNED[key]


def sibling_batches(n: int) -> list[int]:
    """Other batch sizes whose verdict stands in for batch ``n`` until ``n`` is timed: within a factor
    of two (the work per image is the same layer; the winner moves with the total work, slowly), nearest
    first."""
    near = {n - 1, n + 1} | {1 << k for k in range(12) if n / 2 <= (1 << k) <= 2 * n}
    return sorted((m for m in near if m >= 1 and m != n and n / 2 <= m <= 2 * n), key=lambda m: (abs(m - n), m))


def _measure(x_shape: tuple, attrs: dict, dtype: Any, candidates: tuple,
             sample: Any = None) -> str | None:
    """Times every candidate (through ``sample`` in the background tuner) and records the verdict."""
    from ... import tune_cache
    key, disk_key, threads = _keys(x_shape, attrs, dtype, candidates)
    times = {}
    for algo in candidates:
        one = lambda algo=algo: time_conv(x_shape, types.SimpleNamespace(**{**attrs, "algo": algo}), dtype)
        t = one() if sample is None else sample(one)
        if t is None:
            return None
        times[algo] = t
    _TUNED[key] = min(candidates, key=times.__getitem__)
    tune_cache.store(disk_key, candidates, _TUNED[key], times, threads)
    return _TUNED[key]


def _later(x_shape: tuple, attrs: dict, dtype: Any, candidates: tuple) -> None:
    """Leaves this convolution to the background tuner (``background.py``), when it is on."""
    from . import background
    key = _keys(x_shape, attrs, dtype, candidates)[0]

    def job(sample):
        if _known(x_shape, attrs, dtype, candidates) is None:
            try:
                _measure(x_shape, attrs, dtype, candidates, sample)
            except (MemoryError, ValueError):
                pass
    background.schedule(key, job)


def tune_conv_algo(x_shape: tuple, attrs: dict, dtype: Any, candidates: tuple,
                   budget: list | None = None) -> str | None:
    """The fastest of ``candidates`` for this convolution, measured on this machine (cached per
    shape, attrs and thread count: in this process, and across processes in the persistent tuning
    cache, ``graph/tune_cache.py``); None when nothing is known yet: the fixed rule decides.

    Never blocks on more than the compile's timing ``budget`` (``[seconds left]``, decremented here):
    past it, or when the convolution is too big to time within a compile (``TUNE_MAX_FLOPS``), it is
    timed later by the background tuner (``background.py``), for the next compile, and meanwhile takes
    the verdict of the same layer at a nearby batch size (:func:`sibling_batches`) if one is known."""
    from . import background

    N, H, W, C = x_shape
    kh, kw = attrs["kernel"]
    OH, OW = conv_out_hw(H, W, types.SimpleNamespace(**attrs))
    flops = 2.0 * N * OH * OW * C * kh * kw * attrs["num_filter"]
    if flops > background.BACKGROUND_MAX_FLOPS:
        return None
    known = _known(x_shape, attrs, dtype, candidates)
    if known is not None:
        return known
    if flops > TUNE_MAX_FLOPS or budget is not None and budget[0] <= 0:
        _later(x_shape, attrs, dtype, candidates)
        for m in sibling_batches(N):
            near = _known((m,) + tuple(x_shape[1:]), attrs, dtype, candidates)
            if near is not None:
                return near
        return None
    start = time.perf_counter()
    try:
        return _measure(x_shape, attrs, dtype, candidates)
    except (MemoryError, ValueError):   # no room for the trial buffers: let the fixed rule decide
        return None
    finally:
        if budget is not None:
            budget[0] -= time.perf_counter() - start
