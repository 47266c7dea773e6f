"""Parameter files: MXNet's binary NDArray list (``nd.save``, ``*.params``) and numpy ``.npz``.

MXNet's format (``src/ndarray/ndarray.cc``, ``NDArray::Save``/``Load``, all little-endian)::

    uint64 0x112 (kMXAPINDArrayListMagic), uint64 0 (reserved)
    uint64 n, then n arrays:
        uint32 magic      0xF993FAC9 (V2) | 0xF993FACA (V3, numpy shape semantics)
        int32  stype      0 = dense (1 row_sparse, 2 csr: read, returned dense; layout in _read_sparse)
        int32  ndim, int64 dims[ndim]       (V2: ndim 0 = empty "none" array, nothing follows)
        int32  dev_type, int32 dev_id       (context; 1, 0 = cpu(0))
        int32  type_flag                    (mshadow: 0 f32, 1 f64, 2 f16, 3 u8, 4 i32, 5 i8, 6 i64, 7 bool)
        raw data, C order
    uint64 m, then m names: uint64 length, bytes (m is 0 for a nameless list, else n)

Older arrays (V1 magic 0xF993FAC8, or no magic at all: uint32 ndim + uint32 dims) are read too.
Names are ``arg:<name>`` / ``aux:<name>`` in ``export``'s files and structural names
(``features.0.weight``) in ``save_parameters``' files.

:func:`load` returns ``dict[str, ndarray]`` (named list) or ``list[ndarray]`` (nameless), an
empty array slot as ``None``; :func:`save` writes either back. Reading a file MXNet wrote and
writing the result gives identical bytes. Nothing is unpickled or evaluated, ``.npz`` included
(``allow_pickle=False``). Problems raise ``LoadError(path, problem)``; writes are atomic
(:mod:`hybridize.atomic`).

Hostile files: every size a file declares (a dense array's shape, a sparse array's data, indices
and dense shape, an ``.npy`` header in a ``.npz``) is checked against numpy's 64-bit limit and the
bytes present before anything is allocated; what a file legitimately makes us allocate (the file
itself, sparse arrays returned dense, inflated ``.npz`` members) counts against the load limit
(:mod:`.load_limit`, ``HYBRIDIZE_MAX_LOAD_BYTES``).
"""
from __future__ import annotations

import os
import struct
from typing import Any, Mapping, Sequence, Union

import numpy as np

from ...atomic import open_for_write, write_bytes
from ..base import LoadError
from .load_limit import Budget, checked_nbytes

__all__ = ["load", "save", "loads", "dumps", "dump_array", "load_array", "load_npz", "save_npz", "split_arg_aux", "join_arg_aux",
           "strip_prefixes", "LIST_MAGIC", "NDARRAY_V2_MAGIC", "NDARRAY_V3_MAGIC"]

LIST_MAGIC = 0x112
NDARRAY_V1_MAGIC = 0xF993FAC8
NDARRAY_V2_MAGIC = 0xF993FAC9
NDARRAY_V3_MAGIC = 0xF993FACA

# mshadow type flags <-> numpy (little-endian)
_FLAG_TO_DTYPE = {0: np.dtype("<f4"), 1: np.dtype("<f8"), 2: np.dtype("<f2"), 3: np.dtype("u1"),
                  4: np.dtype("<i4"), 5: np.dtype("i1"), 6: np.dtype("<i8"), 7: np.dtype("?")}
_DTYPE_TO_FLAG = {d.name: f for f, d in _FLAG_TO_DTYPE.items()}
_STYPES = {0: "default", 1: "row_sparse", 2: "csr"}
_MAX_NDIM = 32

Params = Union[dict, list]


class _Truncated(Exception):
    pass


class _Reader:
    def __init__(self, buf: bytearray | bytes):
        self.buf = buf
        self.pos = 0
        self.what = "the header"
        self.np_shape: bool | None = None   # the shape semantics every array must have been saved in

    def take(self, n: int) -> int:
        start = self.pos
        if n < 0 or start + n > len(self.buf):
            raise _Truncated()
        self.pos = start + n
        return start

    def u32(self) -> int:
        return struct.unpack_from("<I", self.buf, self.take(4))[0]

    def i32(self) -> int:
        return struct.unpack_from("<i", self.buf, self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack_from("<Q", self.buf, self.take(8))[0]

    def i64s(self, n: int) -> tuple:
        return struct.unpack_from(f"<{n}q", self.buf, self.take(8 * n))

    def u32s(self, n: int) -> tuple:
        return struct.unpack_from(f"<{n}I", self.buf, self.take(4 * n))


# -- reading -------------------------------------------------------------------------------------------
def load(path: str | os.PathLike, max_bytes: Any = None, np_shape: bool | None = None) -> Params:
    """Reads an MXNet ``.params``/``nd.save`` file or a ``.npz`` (told apart by content).

    ``max_bytes`` raises (or lowers) the load limit for this call (:mod:`.load_limit`); ``np_shape``
    (``nd.load``'s) requires the arrays' shape semantics to be that one, as MXNet's loader does."""
    budget = Budget(path, max_bytes)
    buf = _read_bytes(path, budget)
    if buf[:4] == b"PK\x03\x04" or buf[:4] == b"PK\x05\x06":
        del buf
        return load_npz(path, max_bytes)
    return loads(buf, path=path, budget=budget, np_shape=np_shape)


def _read_bytes(path: str | os.PathLike, budget: Budget) -> bytearray:
    from ...readers import open_regular

    try:
        with open_regular(path) as f:
            size = os.fstat(f.fileno()).st_size
            budget.claim(size, "the file")
            buf = bytearray(size)
            got = f.readinto(buf)
            if got != size:
                del buf[got:]
            return buf
    except FileNotFoundError:
        raise LoadError(path, "no such file") from None
    except IsADirectoryError:
        raise LoadError(path, "is a directory, not a parameter file") from None
    except MemoryError:
        raise LoadError(path, "not enough memory to read the file") from None
    except OSError as e:
        raise LoadError(path, f"cannot read: {e.strerror or e}") from None


def loads(data: bytes | bytearray, path: str | os.PathLike | None = None, budget: Budget | None = None,
          np_shape: bool | None = None) -> Params:
    """Parses MXNet's NDArray-list bytes. Arrays are views of one private buffer (writable when
    ``data`` is a ``bytearray``); sparse arrays are returned dense, counted against the load limit.
    ``np_shape``: each array must have been saved in that shape semantics (V3 arrays with numpy
    shape semantics, the others without: MXNet's ``NDArray::Load``); None accepts both."""
    r = _Reader(data)
    r.np_shape = np_shape
    if budget is None:
        budget = Budget(path)
    try:
        if len(data) < 16:
            raise _Truncated()
        magic = r.u64()
        if magic != LIST_MAGIC:
            if data[:6] == b"\x93NUMPY":
                raise LoadError(path, "is a .npy file, not an MXNet parameter file")
            raise LoadError(path, f"not an MXNet parameter file (magic 0x{magic:x}, expected 0x{LIST_MAGIC:x})")
        r.u64()  # reserved
        n = r.u64()
        if n > len(data):  # each array needs at least 4 bytes
            raise LoadError(path, f"garbled: claims {n} arrays in {len(data)} bytes")
        arrays: list = []
        for i in range(n):
            r.what = f"array #{i} (of {n})"
            arrays.append(_read_array(r, path, budget))
        r.what = "the names"
        m = r.u64()
        if m not in (0, n):
            raise LoadError(path, f"garbled: {m} names for {n} arrays")
        names: list[str] = []
        for i in range(m):
            r.what = f"name #{i} (of {m})"
            length = r.u64()
            raw = bytes(data[r.take(length):r.pos])
            try:
                names.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                raise LoadError(path, f"garbled: name #{i} is not UTF-8 text") from None
    except _Truncated as t:
        detail = f": {t.args[0]}" if t.args else ""
        raise LoadError(path, f"truncated at byte {len(data)} while reading {r.what}{detail}") from None
    if r.pos != len(data):
        raise LoadError(path, f"garbled: {len(data) - r.pos} unexpected bytes after the last name (byte {r.pos})")
    if m:
        if len(set(names)) != len(names):
            dup = next(x for x in names if names.count(x) > 1)
            raise LoadError(path, f"garbled: the name {dup!r} appears twice")
        return dict(zip(names, arrays))
    return arrays


def _dims(r: _Reader, path: Any, start: int, ndim: int, u32: bool = False) -> tuple:
    if ndim < 0 or ndim > _MAX_NDIM:
        raise LoadError(path, f"garbled: {r.what} at byte {start} has {ndim} dimensions")
    shape = tuple(int(d) for d in (r.u32s(ndim) if u32 else r.i64s(ndim)))
    if any(d < 0 for d in shape):
        raise LoadError(path, f"garbled: {r.what} has a negative dimension in {shape}")
    return shape


def _dtype(r: _Reader, path: Any, flag: int, role: str = "") -> np.dtype:
    dtype = _FLAG_TO_DTYPE.get(flag)
    if dtype is None:
        raise LoadError(path, f"{r.what}{role} has unsupported dtype flag {flag}"
                              + (" (bfloat16)" if flag == 12 else ""))
    return dtype


def _nbytes(r: _Reader, path: Any, shape: tuple, dtype: np.dtype, role: str = "") -> int:
    """The bytes ``shape`` x ``dtype`` declares, refused when it overflows (before any allocation)."""
    nbytes = checked_nbytes(shape, dtype.itemsize)
    if nbytes is None:
        raise LoadError(path, f"garbled: {r.what}{role} declares shape {shape} {dtype.name}, "
                              "whose size overflows a 64-bit integer")
    return nbytes


def _view(r: _Reader, path: Any, shape: tuple, dtype: np.dtype, role: str = "") -> np.ndarray:
    """The array stored next in the buffer (a view): its declared size checked against the bytes left."""
    nbytes = _nbytes(r, path, shape, dtype, role)
    left = len(r.buf) - r.pos
    if nbytes > left:
        raise _Truncated(f"{role.strip() or 'its data'} of shape {shape} {dtype.name} needs {nbytes} bytes, "
                         f"{left} remain")
    offset = r.take(nbytes)
    return np.frombuffer(r.buf, dtype=dtype, count=nbytes // dtype.itemsize, offset=offset).reshape(shape)


def _read_array(r: _Reader, path: Any, budget: Budget) -> np.ndarray | None:
    start = r.pos
    magic = r.u32()
    if r.np_shape is not None and (magic == NDARRAY_V3_MAGIC) != r.np_shape:
        raise LoadError(path, "ndarray was saved in np shape semantics, must be loaded in the same semantics "
                        "(turn numpy shape semantics on: `with mx.np_shape(True)`)" if r.np_shape is False else
                        "ndarray was not saved in np shape semantics, but is being loaded in np shape semantics "
                        "(turn them off: `with mx.np_shape(False)`)")
    if magic in (NDARRAY_V2_MAGIC, NDARRAY_V3_MAGIC):
        stype = r.i32()
        if stype != 0:
            if stype not in _STYPES:
                raise LoadError(path, f"garbled: {r.what} at byte {start} has unknown storage type {stype}")
            return _read_sparse(r, path, stype, start, budget)
        ndim = r.i32()
        if ndim == -1 or (ndim == 0 and magic == NDARRAY_V2_MAGIC):
            return None  # an empty ("none") NDArray: nothing more is stored
        shape = _dims(r, path, start, ndim)
    elif magic == NDARRAY_V1_MAGIC:
        shape = _dims(r, path, start, r.i32())
        if not shape:
            return None
    else:
        # the oldest format: no magic, the uint32 read is ndim, dims are uint32
        if magic > _MAX_NDIM:
            raise LoadError(path, f"garbled: {r.what} at byte {start} starts with 0x{magic:08x}, "
                                  "not an NDArray header")
        shape = _dims(r, path, start, magic, u32=True)
        if not shape:
            return None
    _context(r, path, start)
    return _view(r, path, shape, _dtype(r, path, r.i32()))


def _context(r: _Reader, path: Any, start: int) -> None:
    dev_type, _dev_id = r.i32(), r.i32()
    if dev_type not in (1, 2, 3, 5):
        raise LoadError(path, f"garbled: {r.what} at byte {start} has unknown device type {dev_type}")


def _read_sparse(r: _Reader, path: Any, stype: int, start: int, budget: Budget) -> np.ndarray | None:
    """A row_sparse (1) or csr (2) array, returned dense (it is written back dense).

    Layout (``NDArray::Save``): storage shape, shape, context, dtype flag, per aux array (row_sparse:
    row indices; csr: indptr, column indices) its dtype flag and shape, then the data, then each
    aux array's data. Every declared size is checked against the bytes present, the indices
    against the shape, and the dense result against the load limit before it is allocated."""
    kind = _STYPES[stype]
    nad = 1 if stype == 1 else 2
    sshape = _dims(r, path, start, r.i32())
    shape = _dims(r, path, start, r.i32())
    if not shape:
        return None
    _context(r, path, start)
    dtype = _dtype(r, path, r.i32())
    aux = [(_dtype(r, path, r.i32(), " (index array)"), _dims(r, path, start, r.i32())) for _ in range(nad)]
    data = _view(r, path, sshape, dtype, " data")
    roles = [" row indices"] if stype == 1 else [" indptr", " column indices"]
    aux_data = [_view(r, path, s, t, role) for (t, s), role in zip(aux, roles)]

    def bad(problem: str) -> LoadError:
        return LoadError(path, f"garbled: {r.what} ({kind}, shape {shape}): {problem}")

    for (t, _s), role in zip(aux, roles):
        if t.kind not in "iu":
            raise bad(f"{role.strip()} have dtype {t.name}, not an integer type")
    if stype == 1:   # row_sparse: data (k, *shape[1:]), aux 0 = k row indices
        rows = aux_data[0].reshape(-1)
        if len(sshape) != len(shape) or tuple(sshape[1:]) != tuple(shape[1:]) or (sshape and sshape[0] != rows.size):
            raise bad(f"data shape {sshape} does not fit {rows.size} rows of shape {shape}")
        if rows.size and (int(rows.min()) < 0 or int(rows.max()) >= shape[0]):
            raise bad(f"a row index is outside 0..{shape[0] - 1}")
    else:            # csr: data (nnz,), indptr (rows + 1,), column indices (nnz,)
        indptr, cols = aux_data[0].reshape(-1), aux_data[1].reshape(-1)
        if len(shape) != 2:
            raise bad("a csr array must be 2-D")
        nnz = data.size
        if indptr.size != shape[0] + 1:
            raise bad(f"indptr has {indptr.size} entries, {shape[0] + 1} expected")
        if cols.size != nnz:
            raise bad(f"{cols.size} column indices for {nnz} values")
        if int(indptr[0]) != 0 or int(indptr[-1]) != nnz or np.any(np.diff(indptr.astype(np.int64)) < 0):
            raise bad(f"indptr must rise from 0 to the {nnz} values (it ends at {int(indptr[-1])})")
        if nnz and (int(cols.min()) < 0 or int(cols.max()) >= shape[1]):
            raise bad(f"a column index is outside 0..{shape[1] - 1}")
    budget.claim(_nbytes(r, path, shape, dtype), f"{r.what} ({kind}) returned dense as shape {shape} {dtype.name}")
    try:
        dense = np.zeros(shape, dtype=dtype)
        if stype == 1:
            dense[aux_data[0].reshape(-1).astype(np.int64)] = data.reshape((-1,) + shape[1:])
        else:
            indptr, cols = aux_data[0].reshape(-1).astype(np.int64), aux_data[1].reshape(-1).astype(np.int64)
            rows = np.repeat(np.arange(shape[0]), np.diff(indptr))
            dense[rows, cols] = data.reshape(-1)
    except MemoryError:
        raise LoadError(path, f"{r.what} ({kind}): not enough memory for its dense shape {shape}") from None
    return dense


# -- writing -------------------------------------------------------------------------------------------
def _flag(arr: np.ndarray, where: str) -> int:
    flag = _DTYPE_TO_FLAG.get(arr.dtype.name)
    if flag is None:
        raise TypeError(f"{where}: dtype {arr.dtype} cannot be stored in an MXNet parameter file "
                        f"(supported: {', '.join(sorted(_DTYPE_TO_FLAG))})")
    return flag


def _array_bytes(value: Any, where: str, np_shape: bool = False) -> list[bytes]:
    if value is None:
        return [struct.pack("<Iii", NDARRAY_V2_MAGIC, 0, 0)]
    if hasattr(value, "asnumpy"):
        value = value.asnumpy()
    arr = np.asarray(value)
    flag = _flag(arr, where)
    # a 0-d array only exists in numpy shape semantics (V3); V2 reads ndim 0 as "none". With NumPy
    # shape semantics on MXNet writes every array V3 (and refuses to load V2 ones then, or V3 ones
    # without them)
    magic = NDARRAY_V3_MAGIC if arr.ndim == 0 or np_shape else NDARRAY_V2_MAGIC
    head = struct.pack(f"<Iii{arr.ndim}qiii", magic, 0, arr.ndim, *arr.shape, 1, 0, flag)
    data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))
    return [head, data.tobytes()]


def dumps(data: Params, np_shape: bool | None = None) -> bytes:
    """MXNet's NDArray-list bytes for a dict (named) or a list/tuple (nameless) of arrays; V3 arrays
    with NumPy shape semantics on (``np_shape``; default: ``npx.set_np()``'s state now, as MXNet)."""
    if np_shape is None:
        from ..util import is_np_shape
        np_shape = is_np_shape()
    if isinstance(data, Mapping):
        names = [str(k) for k in data.keys()]
        values = list(data.values())
    elif isinstance(data, (list, tuple)):
        names, values = [], list(data)
    else:
        raise TypeError(f"parameters must be a dict or a list of arrays, got {type(data).__name__}")
    parts = [struct.pack("<QQQ", LIST_MAGIC, 0, len(values))]
    for i, v in enumerate(values):
        parts.extend(_array_bytes(v, f"array {names[i]!r}" if names else f"array #{i}", np_shape))
    parts.append(struct.pack("<Q", len(names)))
    for nm in names:
        raw = nm.encode("utf-8")
        parts.append(struct.pack("<Q", len(raw)))
        parts.append(raw)
    return b"".join(parts)


def dump_array(value: Any) -> bytearray:
    """One array in MXNet's per-array format (``NDArray::Save`` to a memory stream: what MXNet's
    ``NDArray.__getstate__`` pickles, from ``MXNDArraySaveRawBytes``)."""
    return bytearray(b"".join(_array_bytes(value, "array")))


def load_array(data: bytes | bytearray) -> np.ndarray:
    """The array of :func:`dump_array`'s bytes (a writable copy); garbled bytes raise LoadError."""
    r = _Reader(bytes(data))
    r.what = "the array"
    try:
        arr = _read_array(r, None, Budget(None))
    except _Truncated as t:
        detail = f": {t.args[0]}" if t.args else ""
        raise LoadError(None, f"truncated array bytes ({len(data)} bytes){detail}") from None
    if r.pos != len(data):
        raise LoadError(None, f"garbled: {len(data) - r.pos} unexpected bytes after the array")
    return np.zeros((0,), np.float32) if arr is None else np.array(arr)


def save(path: str | os.PathLike, data: Params) -> None:
    """Writes ``data`` atomically: ``.npz`` when ``path`` ends with ``.npz``, else MXNet's format."""
    if os.fspath(path).endswith(".npz"):
        save_npz(path, data)  # type: ignore[arg-type]
        return
    write_bytes(path, dumps(data))


# -- npz -------------------------------------------------------------------------------------------------
def load_npz(path: str | os.PathLike, max_bytes: Any = None) -> dict[str, np.ndarray]:
    """A ``.npz`` file's arrays by name; never unpickles, every declared size checked first
    (:func:`.npyfile.load_npz`)."""
    from .npyfile import load_npz as _load_npz
    return _load_npz(path, max_bytes)


def save_npz(path: str | os.PathLike, data: Mapping[str, Any] | Sequence[Any]) -> None:
    """Writes arrays to ``path`` as ``.npz`` atomically (a list is stored as arr_0, arr_1, ...)."""
    if not isinstance(data, Mapping):
        data = {f"arr_{i}": v for i, v in enumerate(data)}
    arrays = {str(k): (v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)) for k, v in data.items()}
    with open_for_write(path) as f:
        np.savez(f, **arrays)


# -- names -----------------------------------------------------------------------------------------------
def split_arg_aux(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``export``'s ``arg:``/``aux:`` keys -> (arg_params, aux_params) without prefixes; keys with
    neither prefix count as arguments."""
    args: dict[str, Any] = {}
    aux: dict[str, Any] = {}
    for k, v in params.items():
        if k.startswith("aux:"):
            aux[k[4:]] = v
        elif k.startswith("arg:"):
            args[k[4:]] = v
        else:
            args[k] = v
    return args, aux


def join_arg_aux(args: Mapping[str, Any], aux: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``arg:``/``aux:`` keyed dict ``export`` writes."""
    out = {f"arg:{k}": v for k, v in args.items()}
    out.update({f"aux:{k}": v for k, v in (aux or {}).items()})
    return out


def strip_prefixes(params: Mapping[str, Any], path: str | os.PathLike | None = None) -> dict[str, Any]:
    """One name -> value dict whatever the keys (``arg:x``, ``aux:x`` or plain ``x``)."""
    args, aux = split_arg_aux(params)
    both = sorted(set(args) & set(aux))
    if both:
        raise LoadError(path, f"parameter {both[0]!r} appears both as arg: and aux:")
    args.update(aux)
    return args
