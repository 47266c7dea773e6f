"""numpy ``.npy`` and ``.npz`` files read without trusting what they declare (no pickle, no eval).

``np.load`` allocates whatever an ``.npy`` header declares and inflates whatever a zip member
holds. Here every declared size is checked before anything is allocated: an ``.npy`` header's
shape and dtype against numpy's size limit, against the bytes present (in a ``.npz`` the zip
entry's uncompressed size must be exactly header + data) and against the load limit
(:mod:`.load_limit`) on the total one file may allocate; then the data is read in bounded chunks
into the one array allocated for it. The header is a Python literal read by ``ast.literal_eval``
(as numpy's own ``safe_eval``), at most 64 KiB; object dtypes (pickles) are refused.
Every problem is a ``LoadError(path, "<member>: <problem>")``.
"""
from __future__ import annotations

import ast
import errno
import os
import struct
import zipfile
from typing import IO, Any, Optional

import numpy as np

from ..base import LoadError
from .load_limit import Budget, checked_nbytes, fmt_bytes

__all__ = ["MAGIC", "load_npy", "load_npz", "load_array_file"]

MAGIC = b"\x93NUMPY"
_MAX_HEADER = 65536
_MAX_NDIM = 64
_CHUNK = 1 << 22


def _fail(path: Any, what: str, problem: str) -> LoadError:
    return LoadError(path, f"{what}: {problem}" if what else problem)


def _read_exact(fp: IO[bytes], n: int) -> bytes:
    out = fp.read(n)
    return out if out is not None else b""


def _header(fp: IO[bytes], path: Any, what: str) -> tuple[np.dtype, tuple, bool, int]:
    """(dtype, shape, fortran_order, header bytes) of the ``.npy`` stream at ``fp``."""
    head = _read_exact(fp, 8)
    if len(head) < 8 or head[:6] != MAGIC:
        raise _fail(path, what, "not a .npy array (no numpy header)")
    major, minor = head[6], head[7]
    if (major, minor) not in ((1, 0), (2, 0), (3, 0)):
        raise _fail(path, what, f"unsupported .npy format version {major}.{minor}")
    size_fmt = "<H" if major == 1 else "<I"
    raw_len = _read_exact(fp, struct.calcsize(size_fmt))
    if len(raw_len) < struct.calcsize(size_fmt):
        raise _fail(path, what, "truncated .npy header")
    hlen = struct.unpack(size_fmt, raw_len)[0]
    if hlen > _MAX_HEADER:
        raise _fail(path, what, f".npy header of {hlen} bytes (at most {_MAX_HEADER} are read)")
    raw = _read_exact(fp, hlen)
    if len(raw) < hlen:
        raise _fail(path, what, f"truncated .npy header ({len(raw)} of {hlen} bytes)")
    try:
        text = raw.decode("utf-8" if major == 3 else "latin1")
        d = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError, UnicodeDecodeError):
        raise _fail(path, what, "garbled .npy header (not a dict literal)") from None
    if not isinstance(d, dict) or set(d) != {"descr", "fortran_order", "shape"}:
        raise _fail(path, what, "garbled .npy header (needs exactly descr, fortran_order and shape)")
    shape, fortran, descr = d["shape"], d["fortran_order"], d["descr"]
    if (not isinstance(shape, tuple) or len(shape) > _MAX_NDIM
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in shape)):
        raise _fail(path, what, f"garbled .npy header (shape {shape!r})")
    if not isinstance(fortran, bool):
        raise _fail(path, what, f"garbled .npy header (fortran_order {fortran!r})")
    try:
        dtype = np.lib.format.descr_to_dtype(descr)
    except Exception:  # numpy raises ValueError/TypeError/KeyError... for a bad descr
        raise _fail(path, what, f"garbled .npy header (dtype {descr!r})") from None
    if dtype.hasobject:
        raise _fail(path, what, "holds pickled objects, which are never loaded")
    return dtype, shape, fortran, 8 + len(raw_len) + hlen


def _read_array(fp: IO[bytes], path: Any, what: str, budget: Budget, data_bytes: Optional[int],
                exact: bool) -> np.ndarray:
    """The array at ``fp``; ``data_bytes``: the bytes present after the header (None: unknown)."""
    dtype, shape, fortran, consumed = _header(fp, path, what)
    desc = f"shape {shape} {dtype.name}"
    nbytes = checked_nbytes(shape, dtype.itemsize)
    if nbytes is None:
        raise _fail(path, what, f"garbled .npy header: {desc} overflows a 64-bit size")
    if data_bytes is not None:
        present = data_bytes - consumed
        if present < nbytes or (exact and present != nbytes):
            where = "the zip entry holds" if exact else "the file holds"
            raise _fail(path, what, f"the .npy header declares {desc} ({fmt_bytes(nbytes)}) "
                                    f"but {where} {max(present, 0)} bytes of data")
    budget.claim(nbytes, what or f"an array of {desc}")
    try:
        flat = np.empty(nbytes // dtype.itemsize if dtype.itemsize else 0, dtype=dtype)
    except MemoryError:
        raise _fail(path, what, f"not enough memory for {desc} ({fmt_bytes(nbytes)})") from None
    view = flat.view(np.uint8) if nbytes else None
    pos = 0
    while pos < nbytes:
        chunk = fp.read(min(_CHUNK, nbytes - pos))
        if not chunk:
            raise _fail(path, what, f"truncated: {desc} needs {nbytes} bytes of data, {pos} present")
        view[pos:pos + len(chunk)] = np.frombuffer(chunk, dtype=np.uint8)  # type: ignore[index]
        pos += len(chunk)
    if fortran:
        return flat.reshape(shape[::-1]).transpose()
    return flat.reshape(shape)


def _open(path: Any, kind: str) -> IO[bytes]:
    from ...readers import open_regular

    try:
        return open_regular(path)
    except FileNotFoundError:
        raise LoadError(path, "no such file") from None
    except IsADirectoryError:
        raise LoadError(path, f"is a directory, not a {kind} file") from None
    except OSError as e:
        raise LoadError(path, f"cannot read: {e.strerror or e}") from None


def load_npy(path: str | os.PathLike, max_bytes: Any = None) -> np.ndarray:
    """One ``.npy`` file's array."""
    budget = Budget(path, max_bytes)
    with _open(path, ".npy") as fp:
        size = os.fstat(fp.fileno()).st_size
        return _read_array(fp, path, "", budget, size, exact=False)


def load_npz(path: str | os.PathLike, max_bytes: Any = None) -> dict[str, np.ndarray]:
    """A ``.npz`` archive's arrays by name (the member name without ``.npy``)."""
    budget = Budget(path, max_bytes)
    with _open(path, ".npz") as fp:
        try:
            with zipfile.ZipFile(fp) as z:
                return _members(z, path, budget)
        except LoadError:
            raise
        except zipfile.BadZipFile as e:
            raise LoadError(path, f"garbled .npz archive ({e})") from None
        except (EOFError, zipfile.LargeZipFile, NotImplementedError, RuntimeError) as e:
            raise LoadError(path, f"garbled .npz archive ({type(e).__name__}: {e})") from None
        except OSError as e:  # a seek to a garbled offset is EINVAL; anything else is the disk's
            if e.errno == errno.EINVAL:
                raise LoadError(path, "garbled .npz archive (an offset points outside the file)") from None
            raise LoadError(path, f"cannot read .npz: {e.strerror or e}") from None
        except Exception as e:  # zlib.error, struct.error from a garbled local header
            raise LoadError(path, f"garbled .npz archive ({type(e).__name__}: {e})") from None


def _members(z: zipfile.ZipFile, path: Any, budget: Budget) -> dict[str, np.ndarray]:
    infos = [i for i in z.infolist() if not i.is_dir()]
    names = [i.filename for i in infos]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise LoadError(path, f"garbled .npz archive: member {dup!r} appears twice")
    inflated = Budget(path, budget.limit)  # a zip bomb is refused before a single byte is inflated
    for info in infos:
        inflated.claim(info.file_size, f"member {info.filename!r} (inflating to {info.file_size} bytes)")
    out: dict[str, np.ndarray] = {}
    for info in infos:
        what = f"member {info.filename!r}"
        if not info.filename.endswith(".npy"):
            raise LoadError(path, f"{what}: not a .npy array (a .npz holds only .npy members)")
        with z.open(info) as member:
            out[info.filename[:-4]] = _read_array(member, path, what, budget, info.file_size, exact=True)
    return out


def load_array_file(path: str | os.PathLike, max_bytes: Any = None) -> np.ndarray:
    """The one array of a ``.npy`` file, or of a ``.npz`` holding exactly one (an input file)."""
    with _open(path, ".npy") as fp:
        head = fp.read(6)
    if head[:2] == b"PK":
        arrays = load_npz(path, max_bytes)
        if len(arrays) != 1:
            raise LoadError(path, f"holds {len(arrays)} arrays ({', '.join(arrays) or 'none'}); "
                                  "an input file must hold exactly one")
        return next(iter(arrays.values()))
    if head != MAGIC:
        raise LoadError(path, "not a .npy or .npz file (no numpy header)")
    return load_npy(path, max_bytes)
