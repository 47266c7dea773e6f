"""``mx.io.ImageDetRecordIter``: MXNet's C++ detection record iterator (``src/io/iter_image_det_recordio.cc``
with its default detection augmenter, normalizer and batch loader), in Python; decoding through
Pillow (the ``image`` extra).

Each record is ``recordio.pack``'d: a label of any width (im2rec's detection layout: header width,
object width, then the objects) and an encoded image. Every image is force-resized to ``data_shape``
(after an optional shorter-edge ``resize``) with ``inter_method`` (0 nearest, 1 bilinear: the
runtime's copies of OpenCV's), then ``(pixel - mean) / std * scale`` per channel where given (MXNet
applies a mean only when one is positive, a std only when positive). The label of a sample is
``[channels, height, width, n, label (n values), pad...]``: ``label_pad_width + 4`` wide (the widest
record's label when ``label_pad_width`` is smaller; MXNet refuses a positive one that is too small),
filled with ``label_pad_value``. ``shuffle`` permutes the records of every pass as MXNet's
``std::shuffle`` with ``std::mt19937(233 + seed)`` does (one permutation per pass over the file, the
engine continuing across passes; files up to MXNet's 8 MB read chunk). ``round_batch`` as MXNet's
batch loader. The random augmentations (``rand_crop_prob``, ``rand_pad_prob``, ``rand_mirror_prob``,
the colour ``*_prob``) and ``mean_img`` are refused with one clear error.
"""
from __future__ import annotations

import numpy as np

from ..base import DataFileError
from ..ndarray import array
from .io import DataBatch, DataDesc, DataIter
from .mnist import _mt19937, _shuffle_with

__all__ = ["ImageDetRecordIter"]

_RANDOM_AUGS = ("rand_crop_prob", "rand_pad_prob", "rand_mirror_prob", "random_hue_prob", "random_saturation_prob",
                "random_illumination_prob", "random_contrast_prob")


class ImageDetRecordIter(DataIter):
    """Batches of detection images (float32 NCHW, ``data_shape``) and their padded labels
    ``(batch, label_pad_width + 4)``, as ``mx.io.ImageDetRecordIter``."""

    def __init__(self, path_imgrec: str, data_shape, batch_size: int, path_imglist: str = "",
                 label_width: int = -1, label_pad_width: int = 0, label_pad_value: float = -1.0,
                 shuffle: bool = False, seed: int = 0, round_batch: bool = True, resize: int = -1,
                 inter_method: int = 1, resize_mode: str = "force", mean_r: float = 0.0, mean_g: float = 0.0,
                 mean_b: float = 0.0, mean_a: float = 0.0, std_r: float = 0.0, std_g: float = 0.0,
                 std_b: float = 0.0, std_a: float = 0.0, scale: float = 1.0, mean_img: str = "",
                 num_parts: int = 1, part_index: int = 0, data_name: str = "data",
                 label_name: str = "softmax_label", **kwargs):
        super().__init__(int(batch_size))
        from .. import recordio
        self.data_shape = tuple(int(d) for d in data_shape)
        if len(self.data_shape) != 3 or self.data_shape[0] not in (1, 3):
            raise ValueError(f"ImageDetRecordIter: data_shape must be (channels, height, width) with 1 or 3 "
                             f"channels, got {data_shape}")
        used = [k for k in _RANDOM_AUGS if float(kwargs.get(k, 0)) > 0]
        if used or mean_img or resize_mode != "force" or int(num_parts) != 1 or path_imglist:
            what = used + (["mean_img"] if mean_img else []) + ([f"resize_mode={resize_mode!r}"] if resize_mode != "force"
                                                                else []) \
                + (["num_parts"] if int(num_parts) != 1 else []) + (["path_imglist"] if path_imglist else [])
            raise NotImplementedError(f"ImageDetRecordIter: {', '.join(what)} not supported by the runtime "
                                      "(deterministic resizing and normalization only)")
        if int(inter_method) not in (0, 1, 2):
            raise NotImplementedError(f"ImageDetRecordIter: inter_method={inter_method} not supported "
                                      "(0 nearest, 1 bilinear, 2 bicubic)")
        self._inter, self._resize = int(inter_method), int(resize)
        c = self.data_shape[0]
        means = [mean_r, mean_g, mean_b][:c] if c == 3 else [mean_r]
        stds = [std_r, std_g, std_b][:c] if c == 3 else [std_r]
        self._mean = np.array(means, np.float32) if any(m > 0 for m in (mean_r, mean_g, mean_b, mean_a)) else None
        self._std = np.array([s if s > 0 else 1.0 for s in stds], np.float32)
        self._scale = np.float32(scale)
        rec = recordio.MXRecordIO(path_imgrec, "r")
        self._records = []
        while (r := rec.read()) is not None:
            self._records.append(recordio.unpack(r))
        rec.close()
        if not self._records:
            raise DataFileError(path_imgrec, "no image records in the file")
        widths = [np.atleast_1d(np.asarray(h.label)).size for h, _ in self._records]
        if int(label_width) > 0 and any(w != int(label_width) for w in widths):
            bad = next(w for w in widths if w != int(label_width))
            raise DataFileError(path_imgrec, f"rec file provide {bad}-dimensional label but label_width "
                                             f"is set to {label_width}")
        widest = max(widths)
        if widest > int(label_pad_width) > 0:
            raise ValueError(f"ImageDetRecordIter: label_pad_width: {label_pad_width} smaller than estimated "
                             f"width: {widest}")
        self._label_width = max(widest, int(label_pad_width)) + 4
        self._pad_value = np.float32(label_pad_value)
        self._names = (data_name, label_name)
        self._shuffle = bool(shuffle)
        self._engine = _mt19937(233 + int(seed))
        self.round_batch = bool(round_batch)
        self._order: list[int] = []
        self._ptr = 0
        self._fresh = True       # the next base step starts a pass (and, shuffling, draws its order)
        self._overflow = 0
        self._pad = 0
        self._last: list | None = None
        self._batch: DataBatch | None = None

    @property
    def provide_data(self) -> list:
        return [DataDesc(self._names[0], (self.batch_size,) + self.data_shape, np.float32)]

    @property
    def provide_label(self) -> list:
        return [DataDesc(self._names[1], (self.batch_size, self._label_width), np.float32)]

    # -- the record iterator under MXNet's batch loader: one pass over the file at a time ----------
    def _base_before_first(self) -> None:
        self._fresh = True

    def _base_next(self) -> int | None:
        if self._fresh:
            self._fresh = False
            n = len(self._records)
            self._order = _shuffle_with(self._engine, n).tolist() if self._shuffle else list(range(n))
            self._ptr = 0
        if self._ptr >= len(self._order):
            return None
        self._ptr += 1
        return self._order[self._ptr - 1]

    def _sample(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        from .. import image
        header, payload = self._records[i]
        c, h, w = self.data_shape
        img = image.imdecode(payload, flag=1 if c == 3 else 0)
        if self._resize != -1:
            ih, iw = img.shape[:2]
            nh, nw = (self._resize * ih // iw, self._resize) if ih > iw else (self._resize, self._resize * iw // ih)
            img = image.imresize(img, nw, nh, interp=self._inter)
        img = image.imresize(img, w, h, interp=self._inter)
        arr = img.asnumpy().astype(np.float32).reshape(h, w, c)
        if self._mean is not None:
            arr = arr - self._mean
        arr = arr / self._std * self._scale
        raw = np.atleast_1d(np.asarray(header.label, np.float32))
        label = np.full(self._label_width, self._pad_value, np.float32)
        label[:4] = (c, h, w, raw.size)
        label[4:4 + raw.size] = raw
        return arr.transpose(2, 0, 1), label

    def reset(self) -> None:
        if not self.round_batch or self._overflow == 0:
            self._base_before_first()
        else:
            self._overflow = 0

    def iter_next(self) -> bool:
        self._pad = 0
        if self._overflow != 0:
            return False
        samples = []
        while len(samples) < self.batch_size and (i := self._base_next()) is not None:
            samples.append(self._sample(i))
        if not samples:
            return False
        if len(samples) < self.batch_size:
            if self.round_batch:
                self._base_before_first()
                while len(samples) < self.batch_size:
                    i = self._base_next()
                    if i is None:
                        raise ValueError("ImageDetRecordIter: number of input must be bigger than batch size")
                    samples.append(self._sample(i))
                    self._overflow += 1
                self._pad = self._overflow
            else:  # the slots past the data keep the previous batch's samples, as MXNet's loader
                self._pad = self.batch_size - len(samples)
                samples += self._last[len(samples):] if self._last else [samples[-1]] * self._pad
        self._last = samples
        self._batch = DataBatch([array(np.stack([s[0] for s in samples]))],
                                [array(np.stack([s[1] for s in samples]))], pad=self._pad)
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
