#!/usr/bin/env python
"""Records MXNet 1.9.1's C++ file iterators, ``mx.io.MNISTIter``, ``mx.io.LibSVMIter`` and
``mx.io.ImageDetRecordIter``, on small files this script writes (tests/data/fixtures/iters_*), for
tests/data/test_io_iters.py: every batch of two or three epochs (data, label, pad),
``provide_data``/``provide_label``; MNIST shuffled with two seeds on 3000 images (the permutation
of std::shuffle). Needs MXNet; the test only reads.

    /tmp/mxnet-venv/bin/python tools/record_io_iters_mxnet.py tests/data/fixtures
"""
import json
import os
import struct
import sys
import zlib

import mxnet as mx
import numpy as np

MNIST_CASES = {"plain": dict(shuffle=False), "shuffle": dict(shuffle=True), "seed5_flat": dict(shuffle=True, seed=5, flat=True),
               "part1of2": dict(shuffle=False, num_parts=2, part_index=1), "default": {}}
LIBSVM_CASES = {
    "doc": dict(data_libsvm="iters_data.t", data_shape=(3,), batch_size=3),
    "label_file": dict(data_libsvm="iters_data.t", data_shape=(3,), label_libsvm="iters_label.t", label_shape=(3,), batch_size=3),
    "seven": dict(data_libsvm="iters_seven.t", data_shape=(4,), batch_size=3),
    "seven_b7": dict(data_libsvm="iters_seven.t", data_shape=(4,), batch_size=7),
    **{f"part{k}of3": dict(data_libsvm="iters_seven.t", data_shape=(4,), batch_size=1, num_parts=3, part_index=k) for k in range(3)},
}

DET_CASES = {
    "default": dict(data_shape=(3, 8, 10)),
    "norm": dict(data_shape=(3, 6, 7), mean_r=100, mean_g=110, mean_b=120, std_r=50, std_g=60, std_b=70, scale=0.5,
                 label_pad_width=20, label_pad_value=-2),
    "gray_noround": dict(data_shape=(1, 8, 10), round_batch=False),
    "shuffle": dict(data_shape=(3, 5, 5), shuffle=True, seed=4),
    "resize_nearest": dict(data_shape=(3, 7, 9), resize=11, inter_method=0),
}


def _png(img):
    """A minimal RGB PNG writer (MXNet's venv has no image encoder in Python)."""
    h, w, _ = img.shape
    raw = b"".join(b"\0" + img[y].tobytes() for y in range(h))

    def chunk(t, data):
        c = struct.pack(">I", len(data)) + t + data
        return c + struct.pack(">I", zlib.crc32(t + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _det_records(path):
    """5 PNG images of different sizes with im2rec's detection labels: [2, 5, (cls, x0, y0, x1, y1) * k]."""
    rng = np.random.RandomState(3)
    w = mx.recordio.MXRecordIO(path, "w")
    for i in range(5):
        img = rng.randint(0, 256, size=(9 + i, 12 - i, 3)).astype(np.uint8)
        objs = []
        for k in range(1 + i % 3):
            objs += [float(k + i), 0.1 * k, 0.2, 0.5 + 0.1 * k, 0.9]
        w.write(mx.recordio.pack(mx.recordio.IRHeader(0, np.array([2.0, 5.0] + objs, np.float32), i, 0), _png(img)))
    w.close()


def _idx(path, magic, arr):
    with open(path, "wb") as f:
        f.write(struct.pack(">" + "i" * (1 + arr.ndim), magic, *arr.shape))
        f.write(arr.astype(np.uint8).tobytes())


def _epochs(it, n):
    out = []
    for e in range(n):
        if e:
            it.reset()
        out.append([[b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(), b.pad] for b in it])
    return {"epochs": out, "provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
            "provide_label": [[d.name, list(d.shape)] for d in it.provide_label]}


def main(d):
    rng = np.random.RandomState(0)
    _idx(os.path.join(d, "iters_mnist-images-idx3-ubyte"), 2051, rng.randint(0, 256, size=(23, 4, 3)))
    _idx(os.path.join(d, "iters_mnist-labels-idx1-ubyte"), 2049, rng.randint(0, 10, size=23))
    with open(os.path.join(d, "iters_data.t"), "w") as f:
        f.write("1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n")        # MXNet's documented example
    with open(os.path.join(d, "iters_label.t"), "w") as f:
        f.write("1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n")
    with open(os.path.join(d, "iters_seven.t"), "w") as f:
        f.write("".join(f"{i} {i % 3}:{i + 0.5} 3:{-i}\n" for i in range(7)))
    out = {"mxnet": mx.__version__, "mnist": {}, "libsvm": {}, "mnist_perm": {}, "det": {}}
    os.chdir(d)
    for name, kw in MNIST_CASES.items():
        it = mx.io.MNISTIter(image="iters_mnist-images-idx3-ubyte", label="iters_mnist-labels-idx1-ubyte",
                             batch_size=5, silent=True, **kw)
        out["mnist"][name] = _epochs(it, 2)
    # the shuffle's permutation on 3000 images whose pixels are their index (a temporary file)
    n = 3000
    ids = np.arange(n)
    _idx("perm-images", 2051, np.stack([ids // 256, ids % 256], 1).reshape(n, 1, 2))
    _idx("perm-labels", 2049, np.zeros(n))
    for seed in (0, 7):
        it = mx.io.MNISTIter(image="perm-images", label="perm-labels", batch_size=n, silent=True, seed=seed, flat=True)
        px = np.round(next(iter(it)).data[0].asnumpy() * 256).astype(int)
        out["mnist_perm"][str(seed)] = (px[:, 0] * 256 + px[:, 1]).tolist()
    os.remove("perm-images")
    os.remove("perm-labels")
    for name, kw in LIBSVM_CASES.items():
        out["libsvm"][name] = _epochs(mx.io.LibSVMIter(**kw), 1 if "num_parts" in kw else 3)
    _det_records("iters_det.rec")
    for name, kw in DET_CASES.items():
        it = mx.io.ImageDetRecordIter(path_imgrec="iters_det.rec", batch_size=2, verbose=False, **kw)
        out["det"][name] = _epochs(it, 3 if name == "shuffle" else 2)
    with open("iters_mxnet.json", "w") as f:
        json.dump(out, f)
    print("recorded", len(out["mnist"]), "MNISTIter,", len(out["libsvm"]), "LibSVMIter and", len(out["det"]),
          "ImageDetRecordIter cases")


if __name__ == "__main__":
    main(os.path.abspath(sys.argv[1]))
