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
TUNE_MAX_FLOPS = 1e9        # a single convolution bigger than this is not timed (compile-time bound)
TUNE_BUDGET_SECONDS = 0.5   # timing per compiled graph; past it the fixed rule decides


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


def tune_conv_algo(x_shape: tuple, attrs: dict, dtype: Any, candidates: tuple,
                   budget: list | None = None) -> str | None:
    """The fastest of ``candidates`` for this convolution, measured on this machine (cached per
    shape, attrs and thread count: in this process, and across processes in the persistent tuning
    cache, ``graph/tune_cache.py``); None when the convolution is too big to time cheaply or the
    compile's timing ``budget`` (``[seconds left]``, decremented here) is spent."""
    from ... import tune_cache
    from ..parallel import num_threads

    N, H, W, C = x_shape
    kh, kw = attrs["kernel"]
    OH, OW = conv_out_hw(H, W, types.SimpleNamespace(**attrs))
    if 2.0 * N * OH * OW * C * kh * kw * attrs["num_filter"] > TUNE_MAX_FLOPS:
        return None
    threads = num_threads()
    plain = {k: v for k, v in attrs.items() if k != "algo"}
    key = (tuple(x_shape), tuple(sorted(plain.items())), np.dtype(dtype).str, candidates, threads)
    if key not in _TUNED:
        disk_key = {"op": "conv2d_nhwc", "x_shape": list(x_shape), "attrs": plain, "dtype": np.dtype(dtype).str,
                    "candidates": list(candidates), "versions": [get_algo(a).version for a in candidates],
                    "clock": "cpu" if num_threads() > 1 else "wall"}
        stored = tune_cache.load(disk_key, candidates, threads)
        if stored is not None:
            _TUNED[key] = stored
            return stored
        if budget is not None and budget[0] <= 0:
            return None
        start = time.perf_counter()
        try:
            times = {algo: time_conv(x_shape, types.SimpleNamespace(**{**attrs, "algo": algo}), dtype)
                     for algo in candidates}
        except (MemoryError, ValueError):   # no room for the trial buffers: let the fixed rule decide
            return None
        finally:
            if budget is not None:
                budget[0] -= time.perf_counter() - start
        _TUNED[key] = min(candidates, key=times.__getitem__)
        tune_cache.store(disk_key, candidates, _TUNED[key], times, threads)
    return _TUNED[key]
