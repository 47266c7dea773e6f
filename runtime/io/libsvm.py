"""``mx.io.LibSVMIter``: MXNet's C++ LibSVM iterator (``src/io/iter_libsvm.cc`` with its sparse batch
loader), in Python.

Each line of ``data_libsvm`` is ``label idx:value idx:value ...`` with zero-based, ascending column
indices; a row becomes one sample of ``data_shape`` (1-d). Labels are the lines' first numbers, or,
with ``label_libsvm``, the rows of that file (``label_shape`` then has more than one element). The
last batch is always completed from the start of the file (MXNet's ``round_batch``, the only mode):
``pad`` counts the borrowed rows and the next epoch starts after them. ``num_parts``/``part_index``
split the file by bytes as dmlc-core does (a part starts after the first line end at or past
``ceil(size / num_parts) * part_index``), so the parts are not even.

The data (and a file's labels) come back as ``CSRNDArray`` (``runtime/io/csr.py``) with MXNet's
``data``/``indices``/``indptr`` (explicit zeros kept), computed on as their dense values.
"""
from __future__ import annotations

import numpy as np

from ..base import DataFileError
from ..ndarray import array
from .csr import CSRNDArray
from .io import DataBatch, DataDesc, DataIter

__all__ = ["LibSVMIter"]


def _part_lines(path: str, num_parts: int, part_index: int) -> list[tuple[int, bytes]]:
    """(line number, line) of the part ``part_index`` of ``num_parts`` of the file, as dmlc-core's
    line splitter cuts it."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise DataFileError(path, f"cannot open the LibSVM file: {e.strerror}") from None
    step = -(-len(raw) // num_parts)

    def start(offset: int) -> int:
        if offset <= 0:
            return 0
        if offset >= len(raw):
            return len(raw)
        ends = [i for i in (raw.find(b"\n", offset), raw.find(b"\r", offset)) if i >= 0]
        if not ends:
            return len(raw)
        i = min(ends)
        while i < len(raw) and raw[i:i + 1] in (b"\n", b"\r"):
            i += 1
        return i

    lo, hi = start(step * part_index), start(step * (part_index + 1))
    first = raw.count(b"\n", 0, lo) + 1
    return [(first + n, line) for n, line in enumerate(raw[lo:hi].splitlines()) if line.strip()]


def _parse(path: str, lines: list[tuple[int, bytes]], width: int) -> tuple[list, np.ndarray]:
    """Every line's stored entries (column indices int64, values float32, in the file's order, explicit
    zeros kept, as MXNet's parser keeps them) and the first number of every line."""
    rows = []
    labels = np.zeros(len(lines), dtype=np.float32)
    for r, (lineno, line) in enumerate(lines):
        tokens = line.split(b"#", 1)[0].split()
        cols, vals = [], []
        try:
            labels[r] = float(tokens[0].split(b":", 1)[0])
            for tok in tokens[1:]:
                idx, sep, val = tok.partition(b":")
                col = int(idx)
                if not 0 <= col < width:
                    raise DataFileError(path, f"line {lineno}: column {col} is outside data_shape ({width},) "
                                              "(LibSVMIter's indices are zero-based)")
                cols.append(col)
                vals.append(float(val) if sep else 1.0)
        except (ValueError, IndexError):
            text = line.decode("utf-8", "replace")[:60]
            raise DataFileError(path, f"line {lineno} is not 'label index:value ...': {text!r}") from None
        rows.append((np.array(cols, np.int64), np.array(vals, np.float32)))
    return rows, labels


def _csr_batch(rows: list, take: list[int], width: int) -> CSRNDArray:
    """The CSR array of rows ``take`` (MXNet's batch: the rows' entries one after the other)."""
    counts = [len(rows[i][0]) for i in take]
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    indices = np.concatenate([rows[i][0] for i in take]) if take else np.zeros(0, np.int64)
    values = np.concatenate([rows[i][1] for i in take]) if take else np.zeros(0, np.float32)
    return CSRNDArray(values, indices, indptr, (len(take), width))


class LibSVMIter(DataIter):
    """Batches of LibSVM rows (``mx.io.LibSVMIter``): data ``(batch, data_shape[0])``, labels
    ``(batch,)`` or, from ``label_libsvm``, ``(batch, label_shape[0])``."""

    def __init__(self, data_libsvm: str, data_shape, label_libsvm: str = "NULL", label_shape=(1,),
                 batch_size: int = 1, num_parts: int = 1, part_index: int = 0, round_batch: bool = True,
                 data_name: str = "data", label_name: str = "softmax_label", **kwargs):
        super().__init__(int(batch_size))
        data_shape, label_shape = tuple(int(d) for d in data_shape), tuple(int(d) for d in label_shape)
        if len(data_shape) != 1:
            raise ValueError(f"LibSVMIter: dimension of data_shape is expected to be 1, got {data_shape}")
        if int(num_parts) < 1 or not 0 <= int(part_index) < int(num_parts):
            raise ValueError(f"LibSVMIter: part_index={part_index} must be in [0, num_parts={num_parts})")
        with_file = label_libsvm not in (None, "NULL")
        if with_file and int(np.prod(label_shape)) <= 1:
            raise ValueError("LibSVMIter: label_shape is not expected to be (1,) when label_libsvm is set")
        if not with_file and int(np.prod(label_shape)) != 1:
            raise ValueError("LibSVMIter: label_shape is expected to be (1,) when label_libsvm is NULL")
        self._data, labels = _parse(data_libsvm, _part_lines(data_libsvm, int(num_parts), int(part_index)),
                                    data_shape[0])
        self._widths = (data_shape[0], int(np.prod(label_shape)))
        self._label_csr = with_file
        if with_file:
            self._label, _ = _parse(label_libsvm, _part_lines(label_libsvm, int(num_parts), int(part_index)),
                                    int(np.prod(label_shape)))
            if len(self._label) < len(self._data):
                raise DataFileError(label_libsvm, f"{len(self._label)} label rows for the "
                                                  f"{len(self._data)} rows of {data_libsvm}")
        else:
            self._label = labels
        self._shapes = ((self.batch_size,) + data_shape,
                        (self.batch_size,) + (label_shape if with_file else ()))
        self._names = (data_name, label_name)
        self._pos = 0
        self._overflow = 0
        self._pad = 0
        self._batch: DataBatch | None = None

    @property
    def provide_data(self) -> list:
        return [DataDesc(self._names[0], self._shapes[0], np.float32)]

    @property
    def provide_label(self) -> list:
        return [DataDesc(self._names[1], self._shapes[1], np.float32)]

    def reset(self) -> None:
        if self._overflow == 0:
            self._pos = 0
        else:
            self._overflow = 0

    def iter_next(self) -> bool:
        self._pad = 0
        n = len(self._data)
        if self._overflow != 0 or self._pos >= n:
            return False
        take = list(range(self._pos, min(self._pos + self.batch_size, n)))
        self._pos += len(take)
        while len(take) < self.batch_size:          # round_batch: complete from the start
            if self._pos >= n:
                self._pos = 0
            if n == 0:
                return False
            take.append(self._pos)
            self._pos += 1
            self._overflow += 1
        self._pad = self._overflow
        data = _csr_batch(self._data, take, self._widths[0])
        label = _csr_batch(self._label, take, self._widths[1]) if self._label_csr else array(self._label[take])
        self._batch = DataBatch([data], [label], pad=self._pad)
        return True

    def next(self) -> DataBatch:
        if self.iter_next():
            return self._batch
        raise StopIteration

    def getdata(self):
        return self._batch.data[0]

    def getlabel(self):
        return self._batch.label[0]

    def getpad(self) -> int:
        return self._pad
