"""``CSRNDArray``: what ``mx.io.LibSVMIter`` returns (MXNet's compressed sparse row storage), for
a runtime whose arithmetic is dense.

The array keeps MXNet's CSR structure exactly as the iterator built it (``data``, ``indices``,
``indptr``: the stored values, explicit zeros included, their column indices and the row
offsets, int64 as MXNet's) and, for every operation, the dense array of the same values: an
operator given a ``CSRNDArray`` computes on the dense values and returns a dense ``NDArray``, as
MXNet's dense fallback does. ``asnumpy()``, ``tostype('default')`` and ``check_format`` are MXNet's.
Sparse storage elsewhere (``mx.nd.sparse``, row-sparse gradients) is not part of the runtime.
"""
from __future__ import annotations

import numpy as np

from ..base import HybridizeError
from ..ndarray import NDArray, array

__all__ = ["CSRNDArray", "SparseFormatError"]


class SparseFormatError(HybridizeError, ValueError):
    """A CSR structure that is not valid (``check_format``): MXNet's ``MXNetError``."""


class CSRNDArray(NDArray):
    """A 2-d array in compressed sparse row storage (``stype == 'csr'``) backed by its dense values."""

    __slots__ = ("_csr",)

    def __init__(self, values: np.ndarray, indices: np.ndarray, indptr: np.ndarray, shape: tuple):
        values = np.asarray(values, np.float32)
        indices = np.asarray(indices, np.int64)
        indptr = np.asarray(indptr, np.int64)
        dense = np.zeros(shape, np.float32)
        if values.size:
            rows = np.repeat(np.arange(shape[0]), np.diff(indptr))
            dense[rows, indices] = values
        super().__init__(dense)
        self._csr = (values, indices, indptr)

    @property
    def stype(self) -> str:
        return "csr"

    @property
    def data(self) -> NDArray:
        """The stored values (explicit zeros included), as MXNet's ``CSRNDArray.data``."""
        return array(self._csr[0], dtype=np.float32)

    @property
    def indices(self) -> NDArray:
        """The column index of every stored value (int64)."""
        return array(self._csr[1], dtype=np.int64)

    @property
    def indptr(self) -> NDArray:
        """Row ``i``'s stored values are ``data[indptr[i]:indptr[i + 1]]`` (int64)."""
        return array(self._csr[2], dtype=np.int64)

    def tostype(self, stype: str) -> NDArray:
        if stype == "csr":
            return self
        if stype == "default":
            return array(self._data, dtype=np.float32)
        raise ValueError(f"storage type {stype!r} is not supported (csr and default only)")

    def check_format(self, full_check: bool = True) -> None:
        """MXNet's checks of a CSR structure: ``indptr`` has one more entry than rows, starts at 0,
        never decreases and ends at the number of values; with ``full_check``, every row's indices
        increase strictly and lie within the columns."""
        values, indices, indptr = self._csr
        rows, cols = self.shape
        if indptr.shape != (rows + 1,) or indices.shape != values.shape:
            raise SparseFormatError("CSRNDArray: indptr must hold rows + 1 entries and indices one per value")
        if not full_check:
            return
        if indptr[0] != 0 or indptr[-1] != len(values) or np.any(np.diff(indptr) < 0):
            raise SparseFormatError("CSRNDArray: indptr must start at 0, never decrease and end at the number "
                                    "of stored values")
        if len(indices) and (indices.min() < 0 or indices.max() >= cols):
            raise SparseFormatError(f"CSRNDArray: a column index is outside [0, {cols})")
        starts = np.zeros(len(indices), bool)
        starts[indptr[:-1][indptr[:-1] < len(indices)]] = True
        if np.any((np.diff(indices) <= 0) & ~starts[1:]):
            raise SparseFormatError("CSRNDArray: the column indices of a row must increase strictly")

    def __repr__(self) -> str:
        shape = "x".join(str(d) for d in self.shape)
        return f"\n<CSRNDArray {shape} @{self.context}>"
