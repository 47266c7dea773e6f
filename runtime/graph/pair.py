"""An exported pair, ``PREFIX-symbol.json`` + ``PREFIX-EPOCH.params``, written and read as a pair.

Each file is written atomically (:mod:`hybridize.atomic`), but two renames are not one: a writer
killed between them, or a disk filling up on the second file, leaves a new graph beside old
parameters (or the reverse), which loads and runs with wrong numbers whenever the shapes agree.
So ``export`` first writes ``PREFIX-EPOCH.pair.json``, the SHA-256 digests of both files' new
contents, then the parameters, then the graph. A reader that finds the digest file checks both
files against it and refuses a mismatch with one line; until the graph (the last file) is in
place, every state of an interrupted export mismatches. The two data files stay byte for byte what
MXNet 1.9.1 writes, and a pair without a digest file (MXNet's own, or one copied without it) loads
unchecked, as before.
"""
from __future__ import annotations

import hashlib
import json
import os

from ...atomic import write_bytes
from ..base import LoadError

__all__ = ["digest_path", "write_pair", "check_pair"]

FORMAT = "hybridize-export-pair/1"
#: the digest file is a few hundred bytes: anything larger is not one
MAX_DIGEST_BYTES = 64 * 1024


def digest_path(params_path: str | os.PathLike) -> str:
    """``net-0000.params`` -> ``net-0000.pair.json`` (beside the parameters it vouches for)."""
    p = os.fspath(params_path)
    return (p[: -len(".params")] if p.endswith(".params") else p) + ".pair.json"


def _sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def write_pair(symbol_path: str, symbol_bytes: bytes, params_path: str, params_bytes: bytes) -> None:
    """Digests first, then the parameters, then the graph, each atomically (see the module docstring)."""
    doc = {"format": FORMAT, "symbol": os.path.basename(symbol_path), "symbol_sha256": _sha256_bytes(symbol_bytes),
           "params": os.path.basename(params_path), "params_sha256": _sha256_bytes(params_bytes)}
    write_bytes(digest_path(params_path), (json.dumps(doc, indent=1) + "\n").encode("utf-8"))
    write_bytes(params_path, params_bytes)
    write_bytes(symbol_path, symbol_bytes)


def check_pair(symbol_path: str | os.PathLike, params_path: str | os.PathLike) -> None:
    """Raises ``LoadError`` when a digest file beside ``params_path`` says these two files were not
    written together; silent without one (MXNet's pairs)."""
    marker = digest_path(params_path)
    try:
        if not os.path.isfile(marker):
            return
        with open(marker, "rb") as f:
            raw = f.read(MAX_DIGEST_BYTES + 1)
    except OSError:
        return
    try:
        doc = json.loads(raw) if len(raw) <= MAX_DIGEST_BYTES else None
    except ValueError:
        doc = None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise LoadError(marker, "is not an export digest file (remove it to load the pair unchecked)")
    try:
        same = (_sha256_file(params_path) == doc.get("params_sha256")
                and _sha256_file(symbol_path) == doc.get("symbol_sha256"))
    except OSError:
        return  # the loaders report the unreadable file themselves
    if not same:
        raise LoadError(symbol_path, f"and {os.fspath(params_path)} were not written together (their digests "
                                     f"in {marker} differ: an interrupted export or a replaced file); "
                                     "export again, or remove the digest file to load them anyway")
