"""The persistent tuning cache: convolution algorithm choices measured once per machine, not per process.

Autotuning (``kernels/conv/tune.py::tune_conv_algo``) times every candidate algorithm of a 3x3 convolution
on its exact shape; that costs most of a first call. Its verdicts are stored here, in a user cache
directory, so the next process (and the next model sharing a layer shape) skips the timing.

Where: ``$HYBRIDIZE_CACHE_DIR``, else platformdirs' user cache directory (``$XDG_CACHE_HOME/hybridize``, else
``~/.cache/hybridize`` on Linux; the platform's own place elsewhere);
``HYBRIDIZE_CACHE_DIR=off`` (or ``0``, ``none``, ``false``) disables the cache. Entries live under
``conv-tune/v1/``, one small JSON file per (machine fingerprint, layer key), named by the SHA-256 of
both. A per-layer key (input shape incl. batch, attributes, dtype, candidates) rather than a per-model
one means any model or batch size meeting a layer shape seen before reuses its verdict.

The machine fingerprint is what makes a timing transferable: CPU model (``/proc/cpuinfo``), machine
architecture, numpy version, its BLAS build (``numpy.__config__``), and the thread count. A file is
never trusted blindly: it is JSON only (never pickle), and it is used only when its schema tag, its
fingerprint and its key equal ours and its algorithm is one of the candidates; anything else (corrupt,
truncated, foreign, another version) is ignored as a miss and overwritten by the next verdict.

Failure is silent by design: the cache is an optimization, so an unwritable or missing directory, a
full disk or a racing writer never reaches the user (the process just tunes as before). Writes go
through :mod:`hybridize.atomic` (temporary file + ``os.replace``), so two processes writing the same
entry each publish a complete file and the last rename wins; readers see old or new, never a torn file.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from typing import Any, Optional

import numpy as np

from ... import atomic

ENV = "HYBRIDIZE_CACHE_DIR"
SCHEMA = "hybridize-conv-tune/1"
_OFF = {"off", "0", "none", "false", "no"}
_fingerprint: Optional[dict] = None


def cache_dir() -> Optional[str]:
    """The cache directory in force, or None when ``HYBRIDIZE_CACHE_DIR`` disables it."""
    value = os.environ.get(ENV, "").strip()
    if value.lower() in _OFF:
        return None
    if value:
        return os.path.abspath(os.path.expanduser(value))
    if sys.platform.startswith("linux"):
        # platformdirs' answer on Linux, without its import (8-25 ms of the first compile)
        base = os.environ.get("XDG_CACHE_HOME", "").strip() or os.path.expanduser("~/.cache")
        return os.path.join(base, "hybridize")
    from platformdirs import user_cache_dir  # the platform's place elsewhere
    return user_cache_dir("hybridize", appauthor=False)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _blas_build() -> str:
    """numpy's BLAS as built (name, version, configuration string): stable across processes."""
    try:
        deps = np.__config__.CONFIG["Build Dependencies"]["blas"]   # numpy >= 1.26
        return " | ".join(str(deps.get(k, "")) for k in ("name", "version", "openblas configuration"))
    except Exception:  # older numpy: no structured config; the numpy version still separates builds
        return "unknown"


def fingerprint(threads: int) -> dict:
    """What a timing depends on besides the layer: this machine, this numpy/BLAS, ``threads``."""
    global _fingerprint
    if _fingerprint is None:
        _fingerprint = {"cpu": _cpu_model(), "arch": platform.machine(), "numpy": np.__version__,
                        "blas": _blas_build()}
    return {**_fingerprint, "threads": int(threads)}


def _jsonable(value: Any) -> Any:
    """Tuples become lists (JSON's only sequence) so that a key read back compares equal."""
    if isinstance(value, (tuple, list)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    return value


def _entry_path(folder: str, fp: dict, key: dict) -> str:
    blob = json.dumps([fp, key], sort_keys=True, separators=(",", ":"))
    return os.path.join(folder, "conv-tune", "v1", hashlib.sha256(blob.encode()).hexdigest()[:40] + ".json")


def load(key: dict, candidates: tuple, threads: int) -> Optional[str]:
    """The algorithm stored for ``key`` on this machine, or None (disabled, missing, or not valid)."""
    folder = cache_dir()
    if folder is None:
        return None
    fp, key = fingerprint(threads), _jsonable(key)
    try:
        from ...readers import open_regular

        entry = _entry_path(folder, fp, key)
        if os.path.islink(entry) or not _private(folder, os.path.dirname(entry)):
            return None
        with open_regular(entry) as f:
            data = json.loads(f.read(65536).decode("utf-8"))
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("fingerprint") != fp \
            or data.get("key") != key:
        return None
    algo = data.get("algo")
    return algo if isinstance(algo, str) and algo in candidates else None


def store(key: dict, candidates: tuple, algo: str, times: dict, threads: int) -> None:
    """Records ``algo`` (measured ``times`` kept for humans) for ``key``; any failure is ignored."""
    folder = cache_dir()
    if folder is None or algo not in candidates:
        return
    fp, key = fingerprint(threads), _jsonable(key)
    path = _entry_path(folder, fp, key)
    record = {"schema": SCHEMA, "fingerprint": fp, "key": key, "algo": algo,
              "seconds": {str(k): float(v) for k, v in times.items()}}
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not _private(folder, os.path.dirname(path)):
            return
        if os.path.islink(path):   # planted in our own folder: the link goes, its target is untouched
            os.unlink(path)
        atomic.write_text(path, json.dumps(record, sort_keys=True, indent=1) + "\n")
    except (OSError, ValueError):
        pass


def _private(folder: str, entries: str) -> bool:
    """Every directory from the cache folder down to ``entries`` is a real directory (no symlink),
    ours, and writable by nobody else: otherwise another user could plant links or entries there."""
    import stat

    here = os.path.abspath(entries)
    top = os.path.abspath(folder)
    while True:
        st = os.lstat(here)
        if not stat.S_ISDIR(st.st_mode) or st.st_mode & 0o002 or (hasattr(os, "geteuid") and st.st_uid != os.geteuid()):
            return False
        if here == top or os.path.dirname(here) == here:
            return True
        here = os.path.dirname(here)
