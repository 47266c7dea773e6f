"""``mx.io.MNISTIter``: MXNet's C++ MNIST iterator (``src/io/iter_mnist.cc``), in Python.

It reads the published idx files (``train-images-idx3-ubyte``, ``train-labels-idx1-ubyte``; gzip'd
ones too, which MXNet cannot), scales pixels by 1/256 (not 1/255: MXNet's factor), keeps the part
``part_index`` of ``num_parts`` and, with ``shuffle`` (the default), shuffles once, at construction,
in the order MXNet's ``std::shuffle`` with ``std::mt19937(seed)`` gives (:func:`std_shuffle`); every
epoch then gives the same batches. A last partial batch is dropped, as MXNet does.
"""
from __future__ import annotations

import gzip
import struct

import numpy as np

from ..base import DataFileError
from ..ndarray import array
from .io import DataBatch, DataDesc, DataIter

__all__ = ["MNISTIter", "std_shuffle"]

_U32 = 0xFFFFFFFF


def _mt19937(seed: int) -> np.random.MT19937:
    """``std::mt19937(seed)``: numpy's MT19937 with the reference (``init_genrand``) seeding."""
    bg = np.random.MT19937(0)
    bg._legacy_seeding(int(seed) & _U32)
    return bg


def std_shuffle(n: int, seed: int) -> np.ndarray:
    """The permutation ``std::shuffle(first, first + n, std::mt19937(seed))`` leaves in libstdc++ as
    MXNet 1.9.1's Linux build compiled it (see :func:`_shuffle_with`)."""
    return _shuffle_with(_mt19937(seed), n)


def _shuffle_with(bg: np.random.MT19937, n: int) -> np.ndarray:
    """``std::shuffle`` of ``0 .. n-1`` drawing from the engine ``bg`` (which goes on from there):
    Fisher-Yates from the front, each swap position drawn by libstdc++'s
    ``uniform_int_distribution`` (downscaling by division, rejecting the top of the range)."""
    idx = np.arange(n)
    for i in range(1, n):
        span = i + 1
        scaling = _U32 // span
        past = span * scaling
        r = int(bg.random_raw())
        while r >= past:
            r = int(bg.random_raw())
        j = r // scaling
        idx[i], idx[j] = idx[j], idx[i]
    return idx


def _read_idx(path: str, what: str) -> tuple[tuple[int, ...], bytes]:
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise DataFileError(path, f"cannot open the MNIST {what} file: {e.strerror}") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            raise DataFileError(path, f"corrupt gzip'd MNIST {what} file: {e}") from None
    ndim = 3 if what == "image" else 1
    head = 4 * (1 + ndim)
    if len(raw) < head:
        raise DataFileError(path, f"invalid mnist format: {len(raw)} bytes, the {what} header needs {head}")
    dims = struct.unpack(f">{ndim}i", raw[4:head])
    size = int(np.prod(dims))
    if len(raw) - head < size:
        raise DataFileError(path, f"invalid mnist format: the header announces {' x '.join(map(str, dims))} "
                                  f"bytes of {what}s, the file holds {len(raw) - head}")
    return dims, raw[head:head + size]


class MNISTIter(DataIter):
    """Batches of MNIST images (``(batch, 1, rows, cols)``, or ``(batch, rows * cols)`` with ``flat``)
    and labels (``(batch,)``), float32, as ``mx.io.MNISTIter``."""

    def __init__(self, image: str = "./train-images-idx3-ubyte", label: str = "./train-labels-idx1-ubyte",
                 batch_size: int = 128, shuffle: bool = True, flat: bool = False, seed: int = 0,
                 silent: bool = False, num_parts: int = 1, part_index: int = 0,
                 data_name: str = "data", label_name: str = "softmax_label", **kwargs):
        super().__init__(int(batch_size))
        if self.batch_size < 1:
            raise ValueError("MNISTIter: batch_size must be at least 1")
        if not 0 <= int(part_index) < int(num_parts):
            raise ValueError(f"MNISTIter: part_index={part_index} must be in [0, num_parts={num_parts})")
        (count, rows, cols), pixels = _read_idx(image, "image")
        (lcount,), labels = _read_idx(label, "label")
        start, end = self._part(count, num_parts, part_index)
        images = np.frombuffer(pixels, np.uint8).reshape(count, rows, cols)[start:end]
        lstart, lend = self._part(lcount, num_parts, part_index)
        labs = np.frombuffer(labels, np.uint8)[lstart:lend].astype(np.float32)
        if lcount != count:
            raise DataFileError(label, f"{lcount} labels for the {count} images of {image}")
        self._images = images.astype(np.float32) * np.float32(1.0 / 256.0)
        self._labels = labs
        if shuffle:
            order = std_shuffle(len(labs), seed)
            self._images, self._labels = self._images[order], labs[order]
        shape = (rows * cols,) if flat else (1, rows, cols)
        self._images = self._images.reshape((len(self._images),) + shape)
        self._names = (data_name, label_name)
        self._loc = 0
        self._batch: DataBatch | None = None

    @staticmethod
    def _part(count: int, num_parts: int, part_index: int) -> tuple[int, int]:
        return int(count / num_parts * part_index), int(count / num_parts * (part_index + 1))

    @property
    def provide_data(self) -> list:
        return [DataDesc(self._names[0], (self.batch_size,) + self._images.shape[1:], np.float32)]

    @property
    def provide_label(self) -> list:
        return [DataDesc(self._names[1], (self.batch_size,), np.float32)]

    def reset(self) -> None:
        self._loc = 0

    def iter_next(self) -> bool:
        if self._loc + self.batch_size > len(self._images):
            return False
        s = slice(self._loc, self._loc + self.batch_size)
        self._batch = DataBatch([array(self._images[s], dtype=np.float32)],
                                [array(self._labels[s], dtype=np.float32)], pad=0)
        self._loc += self.batch_size
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
        return 0
