"""Local copies of the files MXNet 1.9.1's unit tests download, for ``run.py``.

MXNet's tests fetch MNIST, Fashion-MNIST, CIFAR-10/100, data.mxnet.io's ``test_images.tar.gz``,
``mnist.zip`` and ``cifar10.zip``, and libsvmtools' ``news20.t.bz2``. The runtime never downloads (``download`` returns a file that is
already where the call would put it and refuses anything else in one line naming that file), so the
runner places, before a test file runs, files in the *published formats* at the places the tests'
own ``download`` calls and the datasets' default roots look: ``./data/...`` in the test's working
directory and ``$MXNET_HOME/datasets/<name>/`` (``MXNET_HOME`` is a temporary directory). The runtime
then reads them exactly as MXNet reads the files after a download.

The contents are generated, deterministic and small on disk: the published sizes (60,000 MNIST
images, 50,000 CIFAR records, 16 test images, ...) because the tests count them, but pixels that
compress to almost nothing (each image a flat colour with a small square whose place and value
follow its label), so each archive is a few hundred KB. They are not the real datasets: a test that
checks real pixel statistics would fail, and none of the tests run here does.

Everything is built once per ``run.py`` invocation into a cache directory and linked (symbolic links)
into each test file's working directory.
"""
from __future__ import annotations

import gzip
import io
import os
import struct
import tarfile
import zipfile

import numpy as np

#: data.mxnet.io's test images: 16 JPEGs in ``test_images/`` (the tests count them)
TEST_IMAGES = 16


# -- content -------------------------------------------------------------------------------------
def _images(n: int, height: int, width: int, channels: int, classes: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` uint8 images (NHWC) and their labels ``i % classes``: a flat grey with a bright square
    whose row and value follow the label (so a label is visible in its image, and gzip shrinks the
    whole to a few hundred bytes per thousand images)."""
    labels = (np.arange(n) % classes).astype(np.uint8)
    images = np.full((n, height, width, channels), 16, np.uint8)
    for c in range(classes):
        row = (c * 3) % (height - 4)
        images[labels == c, row:row + 4, 4:8, :] = 40 + (200 * c) // max(classes - 1, 1)
    return images, labels


def _idx(array: np.ndarray) -> bytes:
    """An idx ubyte file (MNIST's format: magic 0x0800|ndim, big-endian dims, the bytes)."""
    head = struct.pack(">I", 0x0800 | array.ndim) + struct.pack(">" + "I" * array.ndim, *array.shape)
    return head + np.ascontiguousarray(array, np.uint8).tobytes()


def _gz(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=6, mtime=0)


def _tar_gz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=6, mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            for name, data in members.items():
                info = tarfile.TarInfo(name)
                info.size, info.mode, info.mtime = len(data), 0o644, 0
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data, zipfile.ZIP_DEFLATED)
    return buf.getvalue()


def _encode(image: np.ndarray, fmt: str) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(image).save(buf, format=fmt, **({"quality": 90} if fmt == "JPEG" else {}))
    return buf.getvalue()


# -- the published files ---------------------------------------------------------------------------
def mnist_files(train: int = 60000, test: int = 10000) -> dict[str, bytes]:
    """The four gzip'd idx files of MNIST (and Fashion-MNIST, the same format): 60,000 + 10,000."""
    out = {}
    for prefix, n in (("train", train), ("t10k", test)):
        images, labels = _images(n, 28, 28, 1, 10)
        out[f"{prefix}-images-idx3-ubyte.gz"] = _gz(_idx(images[..., 0]))
        out[f"{prefix}-labels-idx1-ubyte.gz"] = _gz(_idx(labels))
    return out


def mnist_zip(train: int = 60000, test: int = 10000) -> bytes:
    """data.mxnet.io's ``mnist.zip`` (``get_mnist_ubyte``): the four idx files, not gzip'd."""
    return _zip({name[:-3]: gzip.decompress(data) for name, data in mnist_files(train, test).items()})


def cifar10_tar_gz(per_batch: int = 10000) -> bytes:
    """``cifar-10-binary.tar.gz``: ``cifar-10-batches-bin/data_batch_1..5.bin``, ``test_batch.bin``,
    each record ``<label byte><3072 bytes, channel-major 32x32>``."""
    members = {}
    for name, n in [(f"data_batch_{k}.bin", per_batch) for k in range(1, 6)] + [("test_batch.bin", per_batch)]:
        images, labels = _images(n, 32, 32, 3, 10)
        rec = np.concatenate([labels[:, None], images.transpose(0, 3, 1, 2).reshape(n, -1)], axis=1)
        members[f"cifar-10-batches-bin/{name}"] = rec.tobytes()
    members["cifar-10-batches-bin/batches.meta.txt"] = "".join(
        f"{c}\n" for c in ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
                           "truck")).encode()
    return _tar_gz(members)


def cifar100_tar_gz(train: int = 50000, test: int = 10000) -> bytes:
    """``cifar-100-binary.tar.gz``: ``cifar-100-binary/train.bin`` (50,000) and ``test.bin`` (10,000),
    each record ``<coarse label><fine label><3072 bytes>``."""
    members = {}
    for name, n in (("train.bin", train), ("test.bin", test)):
        images, fine = _images(n, 32, 32, 3, 100)
        coarse = fine // 5
        rec = np.concatenate([coarse[:, None], fine[:, None], images.transpose(0, 3, 1, 2).reshape(n, -1)], axis=1)
        members[f"cifar-100-binary/{name}"] = rec.tobytes()
    members["cifar-100-binary/coarse_label_names.txt"] = "".join(f"coarse{c}\n" for c in range(20)).encode()
    members["cifar-100-binary/fine_label_names.txt"] = "".join(f"fine{c}\n" for c in range(100)).encode()
    return _tar_gz(members)


def test_images_tar_gz() -> bytes:
    """data.mxnet.io's ``test_images.tar.gz``: ``test_images/`` with 16 colour JPEGs of several sizes."""
    rng = np.random.default_rng(0)
    members = {}
    for k in range(TEST_IMAGES):
        h, w = 48 + 8 * (k % 5), 64 + 12 * (k % 4)
        yy, xx = np.mgrid[0:h, 0:w]
        image = np.stack([(xx * 255 // w), (yy * 255 // h), np.full((h, w), 16 * k)], axis=-1)
        image = np.clip(image + rng.integers(0, 8, image.shape), 0, 255).astype(np.uint8)
        members[f"test_images/img{k:02d}.jpg"] = _encode(image, "JPEG")
    return _tar_gz(members)


def cifar10_zip(train: int = 50000, test: int = 10000) -> bytes:
    """data.mxnet.io's ``cifar10.zip`` (``get_cifar10``): ``cifar/train.rec``/``test.rec`` (RecordIO of
    32x32 PNGs written by the runtime's ``recordio``, header label = class, as im2rec writes them)
    with their ``.lst`` files; 50,000 and 10,000 images, 5,000 and 1,000 of each class."""
    import tempfile

    from hybridize.runtime import recordio

    images, _labels = _images(10, 32, 32, 3, 10)
    encoded = [_encode(images[c], "PNG") for c in range(10)]
    members = {}
    with tempfile.TemporaryDirectory(prefix="mxut-cifar-") as tmp:
        for split, n in (("train", train), ("test", test)):
            rec = os.path.join(tmp, f"{split}.rec")
            writer = recordio.MXRecordIO(rec, "w")
            for i in range(n):
                writer.write(recordio.pack(recordio.IRHeader(0, float(i % 10), i, 0), encoded[i % 10]))
            writer.close()
            with open(rec, "rb") as f:
                members[f"cifar/{split}.rec"] = f.read()
            members[f"cifar/{split}.lst"] = "".join(f"{i}\t{i % 10}\t{i % 10}/img{i}.png\n" for i in range(n)).encode()
    return _zip(members)


def news20_t_bz2(rows: int = 3993, features: int = 62060) -> bytes:
    """libsvmtools' ``news20.t.bz2`` (``test_io``'s LibSVM data): ``rows`` lines ``label idx:value ...``
    with labels 1..20 and a few ascending feature indices in [1, ``features``], bzip2'd."""
    import bz2

    lines = []
    for i in range(rows):
        cols = sorted({1 + (i * 7919 + k * 104729) % features for k in range(1 + i % 5)})
        lines.append(f"{1 + i % 20} " + " ".join(f"{c}:{0.03125 * (1 + (c + k) % 8)}" for k, c in enumerate(cols)))
    return bz2.compress(("\n".join(lines) + "\n").encode())


# -- placing them -----------------------------------------------------------------------------------
#: where each test file's downloads land, relative to its working directory ("@home" = $MXNET_HOME)
PLACES: dict[str, list[tuple[str, str]]] = {
    "mnist": [("data/mnist", ""), ("data/fashion-mnist", ""), ("@home/datasets/mnist", ""),
              ("@home/datasets/fashion-mnist", "")],
    "cifar10": [("data/cifar10", "cifar-10-binary.tar.gz"), ("@home/datasets/cifar10", "cifar-10-binary.tar.gz")],
    "cifar100": [("data/cifar100", "cifar-100-binary.tar.gz"),
                 ("@home/datasets/cifar100", "cifar-100-binary.tar.gz")],
    "test_images": [("data", "test_images.tar.gz")],
    "mnist_zip": [("data", "mnist.zip")],
    "cifar10_zip": [("data", "cifar10.zip")],
    "news20": [("data", "news20.t.bz2")],
}

_BUILDERS = {
    "cifar10": cifar10_tar_gz,
    "cifar100": cifar100_tar_gz,
    "test_images": test_images_tar_gz,
    "mnist_zip": mnist_zip,
    "cifar10_zip": cifar10_zip,
    "news20": news20_t_bz2,
}

#: what each test file downloads
NEEDS: dict[str, tuple[str, ...]] = {
    "test_gluon_data": ("mnist", "cifar10", "cifar100", "test_images"),
    "test_io": ("mnist_zip", "cifar10_zip", "news20"),
    "test_contrib_io": ("mnist",),
    "test_image": ("test_images",),
}

#: the URLs the tests download them from, for downloads into places not known in advance (a
#: ``tempfile.mkdtemp()`` folder): the shim copies the local file there first
URLS: dict[str, tuple[str, str]] = {
    "http://data.mxnet.io/data/test_images.tar.gz": ("test_images", "test_images.tar.gz"),
    "http://data.mxnet.io/mxnet/data/mnist.zip": ("mnist_zip", "mnist.zip"),
    "http://data.mxnet.io/mxnet/data/cifar10.zip": ("cifar10_zip", "cifar10.zip"),
    "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/gluon/dataset/news20.t.bz2": ("news20", "news20.t.bz2"),
}


def _build(cache: str, what: str) -> dict[str, str]:
    """``what``'s files in ``cache`` (built on first use): file name -> path."""
    folder = os.path.join(cache, what)
    if not os.path.isdir(folder):
        files = mnist_files() if what == "mnist" else {
            PLACES[what][0][1]: _BUILDERS[what]()}
        tmp = folder + ".part"
        os.makedirs(tmp, exist_ok=True)
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        os.rename(tmp, folder)
    return {name: os.path.join(folder, name) for name in sorted(os.listdir(folder))}


def url_map(stem: str, cache: str) -> dict[str, str]:
    """URL -> local copy, for the files test file ``stem`` downloads (built in ``cache``)."""
    needs = NEEDS.get(stem, ())
    return {url: _build(cache, what)[name] for url, (what, name) in URLS.items() if what in needs}


def prepare(stem: str, workdir: str, home: str, cache: str) -> list[str]:
    """Links the local copies test file ``stem`` downloads into ``workdir`` (its working
    directory) and ``home`` ($MXNET_HOME); the paths placed."""
    placed = []
    for what in NEEDS.get(stem, ()):
        files = _build(cache, what)
        for where, _name in PLACES[what]:
            folder = os.path.join(home, where[len("@home/"):]) if where.startswith("@home/") else \
                os.path.join(workdir, where)
            os.makedirs(folder, exist_ok=True)
            for name, path in files.items():
                dest = os.path.join(folder, name)
                if not os.path.lexists(dest):
                    os.symlink(path, dest)
                    placed.append(dest)
    return placed
