"""Downloads without a network: ``test_utils.download`` and the ``get_*`` data helpers use a file
already where the download would put it (as MXNet skips a download then) and otherwise refuse in
one line naming that file; the files ``tools/mxnet_unittests/local_files.py`` generates for MXNet's
unit tests are read by the datasets and helpers as the published files are (small sizes here)."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

from hybridize.runtime import gluon, test_utils
from hybridize.runtime.base import DatasetFileNotFoundError

TOOL = Path(__file__).resolve().parents[2] / "tools" / "mxnet_unittests" / "local_files.py"


@pytest.fixture(scope="module")
def local_files():
    spec = importlib.util.spec_from_file_location("local_files", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_download_uses_a_file_in_place_and_creates_its_folder(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text("local")
    assert test_utils.download("https://example.org/x/README.md") == "README.md"
    with pytest.raises(DatasetFileNotFoundError) as err:
        test_utils.download("https://example.org/x/data.zip", dirname="sub")
    assert (tmp_path / "sub").is_dir()
    assert str(err.value).splitlines() == [
        "sub/data.zip: cannot download https://example.org/x/data.zip: the runtime never downloads "
        "(place a copy of the file there)"]
    with pytest.raises(DatasetFileNotFoundError, match="README.md"):
        test_utils.download("https://example.org/x/README.md", overwrite=True)


def test_get_mnist_ubyte_and_get_cifar10_extract_the_archives_in_data(tmp_path, monkeypatch, local_files) -> None:
    from hybridize.runtime import io, recordio

    monkeypatch.chdir(tmp_path)
    with pytest.raises(DatasetFileNotFoundError, match="data/mnist.zip"):
        test_utils.get_mnist_ubyte()
    (tmp_path / "data" / "mnist.zip").write_bytes(local_files.mnist_zip(train=30, test=20))
    (tmp_path / "data" / "cifar10.zip").write_bytes(local_files.cifar10_zip(train=20, test=10))
    test_utils.get_mnist_ubyte()
    test_utils.get_cifar10()
    it = io.MNISTIter(image="data/train-images-idx3-ubyte", label="data/train-labels-idx1-ubyte",
                      batch_size=10, flat=True, shuffle=False)
    labels = np.concatenate([b.label[0].asnumpy() for b in it])
    assert labels.tolist() == [i % 10 for i in range(30)]
    rec = recordio.MXRecordIO("data/cifar/test.rec", "r")
    header, _ = recordio.unpack(rec.read())
    assert header.label == 0.0 and header.id == 0
    it = io.ImageRecordIter(path_imgrec="data/cifar/train.rec", data_shape=(3, 28, 28), batch_size=10)
    batch = next(iter(it))
    assert batch.data[0].shape == (10, 3, 28, 28) and batch.label[0].asnumpy().tolist() == list(range(10))


def test_the_datasets_read_the_generated_published_files(tmp_path, local_files) -> None:
    vision = gluon.data.vision
    for name, data in local_files.mnist_files(train=30, test=20).items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "cifar-10-binary.tar.gz").write_bytes(local_files.cifar10_tar_gz(per_batch=4))
    (tmp_path / "cifar-100-binary.tar.gz").write_bytes(local_files.cifar100_tar_gz(train=10, test=5))
    mnist = vision.MNIST(root=str(tmp_path))
    assert len(mnist) == 30 and len(vision.MNIST(root=str(tmp_path), train=False)) == 20
    image, label = mnist[13]
    assert image.shape == (28, 28, 1) and label == 3
    cifar = vision.CIFAR10(root=str(tmp_path))    # five batches of 4: labels 0 1 2 3 in each
    assert len(cifar) == 20 and cifar[7][1] == 3 and cifar[7][0].shape == (32, 32, 3)
    assert len(vision.CIFAR100(root=str(tmp_path), fine_label=True)) == 10
    assert len(vision.CIFAR100(root=str(tmp_path), train=False)) == 5


def test_the_test_images_archive_holds_sixteen_colour_jpegs(tmp_path, local_files) -> None:
    import tarfile

    archive = tmp_path / "test_images.tar.gz"
    archive.write_bytes(local_files.test_images_tar_gz())
    with tarfile.open(archive) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    folder = gluon.data.vision.ImageFolderDataset(str(tmp_path / "x"))
    assert folder.synsets == ["test_images"] and len(folder.items) == 16
    image, label = folder[3]
    assert image.shape[2] == 3 and label == 0


def test_prepare_links_each_files_copies_into_its_places(tmp_path, local_files, monkeypatch) -> None:
    monkeypatch.setitem(local_files._BUILDERS, "test_images", lambda: b"archive")
    monkeypatch.setitem(local_files.NEEDS, "test_x", ("test_images",))
    placed = local_files.prepare("test_x", str(tmp_path / "work"), str(tmp_path / "home"), str(tmp_path / "cache"))
    assert placed == [str(tmp_path / "work" / "data" / "test_images.tar.gz")]
    assert os.path.islink(placed[0]) and Path(placed[0]).read_bytes() == b"archive"


def test_the_urls_of_a_test_file_map_to_its_local_copies(tmp_path, local_files, monkeypatch) -> None:
    monkeypatch.setitem(local_files._BUILDERS, "test_images", lambda: b"archive")
    got = local_files.url_map("test_image", str(tmp_path))
    assert list(got) == ["http://data.mxnet.io/data/test_images.tar.gz"]
    assert Path(got["http://data.mxnet.io/data/test_images.tar.gz"]).read_bytes() == b"archive"
    assert local_files.url_map("test_metric", str(tmp_path)) == {}


def test_get_bz2_data_and_libsvm_iter_read_the_generated_news20(tmp_path, local_files) -> None:
    from hybridize.runtime import io

    data = tmp_path / "data"
    data.mkdir()
    (data / "news20.t.bz2").write_bytes(local_files.news20_t_bz2(rows=66, features=50))
    test_utils.get_bz2_data(str(data), "news20.t", "https://example.org/news20.t.bz2", "news20.t.bz2")
    it = io.LibSVMIter(data_libsvm=str(data / "news20.t"), data_shape=(51,), batch_size=33)
    batches = list(it)
    assert len(batches) == 2 and batches[0].data[0].stype == "csr"
    labels = np.concatenate([b.label[0].asnumpy() for b in batches])
    assert labels.min() == 1 and labels.max() == 20


def test_data_loader_iter_serves_a_data_loader_as_a_data_iter(tmp_path, local_files) -> None:
    """``mxnet.contrib.io.DataLoaderIter`` over MNIST read from generated files: batches and the
    last one's padding as MXNet's (a short 'keep' batch is placed in a full-size one)."""
    from hybridize.runtime.contrib.io import DataLoaderIter

    for name, data in local_files.mnist_files(train=10, test=25).items():
        (tmp_path / name).write_bytes(data)
    dataset = gluon.data.vision.MNIST(root=str(tmp_path), train=False)
    it = DataLoaderIter(gluon.data.DataLoader(dataset, 10, last_batch="keep"))
    assert it.provide_data[0].shape == (10, 28, 28, 1) and it.provide_label[0].shape == (10,)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 5]
    assert batches[-1].data[0].shape == (10, 28, 28, 1)
    assert batches[-1].label[0].asnumpy()[:5].tolist() == [0, 1, 2, 3, 4]
    it.reset()
    assert len(list(it)) == 3
