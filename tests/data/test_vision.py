"""gluon.data.vision: transforms give MXNet 1.9.1's numbers on a fixed image; MNIST, FashionMNIST,
CIFAR-10/100 and ImageFolderDataset read their published local formats."""
import gzip
import struct

import hybridize.runtime as mx
import numpy as np
import pytest
from hybridize.runtime.gluon import data as gdata
from hybridize.runtime.gluon.data.vision import transforms as T
from recorded import fixture

REC = np.load(fixture("transforms.npz"))
IMG = mx.nd.array(REC["img"], dtype=np.uint8)

DETERMINISTIC = {
    "to_tensor": lambda: T.ToTensor()(IMG),
    "normalize": lambda: T.Normalize((0.4, 0.5, 0.6), (0.2, 0.3, 0.25))(T.ToTensor()(IMG)),
    "resize_8": lambda: T.Resize(8)(IMG),
    "resize_9x5": lambda: T.Resize((9, 5))(IMG),
    "resize_keep": lambda: T.Resize(6, keep_ratio=True)(IMG),
    "center_crop_6": lambda: T.CenterCrop(6)(IMG),
    "center_crop_12x12": lambda: T.CenterCrop((12, 12))(IMG),
    "cast": lambda: T.Cast("float16")(IMG),
    "compose": lambda: T.Compose([T.Resize(12), T.CenterCrop(8), T.ToTensor(), T.Normalize(0.5, 0.25)])(IMG),
    "imresize": lambda: mx.image.imresize(IMG, 7, 5),
    "resize_short": lambda: mx.image.resize_short(IMG, 6, interp=1),
    "resize_short_cubic": lambda: mx.image.resize_short(IMG, 7),
    "imresize_cubic_up": lambda: mx.image.imresize(IMG, 23, 17, interp=2),
    "imresize_cubic_float": lambda: mx.image.imresize(IMG.astype("float32") / 3, 9, 4, interp=2),
    "center_crop_up": lambda: T.CenterCrop((16, 12))(IMG),
    "resize_bicubic": lambda: T.Resize((11, 6), interpolation=2)(IMG),
    "color_normalize": lambda: mx.image.color_normalize(IMG.astype("float32"), mx.nd.array([100, 110, 120]),
                                                        mx.nd.array([50, 60, 70])),
}


@pytest.mark.parametrize("name", sorted(DETERMINISTIC))
def test_deterministic_transforms_equal_mxnet(name):
    out = DETERMINISTIC[name]().asnumpy()
    assert out.dtype == REC[name].dtype and out.shape == REC[name].shape
    np.testing.assert_allclose(out.astype(np.float64), REC[name].astype(np.float64), rtol=1e-6, atol=1e-6)


def test_hybrid_compose_is_one_hybridized_block_with_compose_numbers():
    block = T.HybridCompose([T.ToTensor(), T.Normalize((0.4, 0.5, 0.6), (0.2, 0.3, 0.25))])
    np.testing.assert_allclose(block(IMG).asnumpy(), REC["normalize"], rtol=1e-6)
    with pytest.raises(ValueError, match="CenterCrop is not a HybridBlock"):
        T.HybridCompose([T.CenterCrop(4)])


def test_random_transforms_keep_shapes_and_ranges():
    mx.random.seed(1)
    img = IMG.astype("float32")
    crop = T.RandomResizedCrop((5, 4))(IMG)
    assert crop.shape == (4, 5, 3) and crop.dtype == np.uint8
    flips = {tuple(T.RandomFlipLeftRight()(IMG).asnumpy()[0, :, 0]) for _ in range(20)}
    assert flips == {tuple(REC["img"][0, :, 0]), tuple(REC["img"][0, ::-1, 0])}
    flips = {tuple(T.RandomFlipTopBottom()(IMG).asnumpy()[:, 0, 0]) for _ in range(20)}
    assert flips == {tuple(REC["img"][:, 0, 0]), tuple(REC["img"][::-1, 0, 0])}
    for t in (T.RandomBrightness(0.3), T.RandomContrast(0.3), T.RandomSaturation(0.3), T.RandomHue(0.1),
              T.RandomColorJitter(0.3, 0.3, 0.3, 0.1), T.RandomLighting(0.1)):
        out = t(img)
        assert out.shape == img.shape and np.isfinite(out.asnumpy()).all()


def _idx_gz(path, magic, arr):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in arr.shape) + arr.tobytes())


@pytest.mark.parametrize("cls", [gdata.vision.MNIST, gdata.vision.FashionMNIST])
def test_mnist_reads_the_published_idx_files(tmp_path, cls):
    rng = np.random.RandomState(0)
    imgs = rng.randint(0, 256, (5, 28, 28)).astype(np.uint8)
    labels = np.array([3, 1, 4, 1, 5], np.uint8)
    _idx_gz(tmp_path / "t10k-images-idx3-ubyte.gz", 2051, imgs)
    _idx_gz(tmp_path / "t10k-labels-idx1-ubyte.gz", 2049, labels)
    ds = cls(root=str(tmp_path), train=False, transform=lambda d, l: (d.astype("float32") / 255, l))
    assert len(ds) == 5
    x, y = ds[2]
    assert x.shape == (28, 28, 1) and y == 4 and isinstance(y, np.int32)
    np.testing.assert_allclose(x.asnumpy()[..., 0], imgs[2] / 255.0, rtol=1e-6)


def test_mnist_rejects_a_file_that_is_not_idx(tmp_path):
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(b"\0" * 20)
    (tmp_path / "train-images-idx3-ubyte").write_bytes(b"\0" * 20)
    with pytest.raises(mx.base.DataFileError, match="train-labels-idx1-ubyte: not an idx1 ubyte file"):
        gdata.vision.MNIST(root=str(tmp_path))


def test_cifar10_and_100_read_the_published_binary_batches(tmp_path):
    rng = np.random.RandomState(1)
    imgs = rng.randint(0, 256, (4, 3, 32, 32)).astype(np.uint8)
    (tmp_path / "cifar-10-batches-bin").mkdir()
    rows = np.concatenate([np.array([[7], [2], [0], [9]], np.uint8), imgs.reshape(4, -1)], axis=1)
    (tmp_path / "cifar-10-batches-bin" / "test_batch.bin").write_bytes(rows.tobytes())
    ds = gdata.vision.CIFAR10(root=str(tmp_path), train=False)
    x, y = ds[1]
    assert (x.shape, int(y)) == ((32, 32, 3), 2)
    assert x.asnumpy().tolist() == imgs[1].transpose(1, 2, 0).tolist()
    rows = np.concatenate([np.array([[1, 11], [2, 22], [3, 33], [4, 44]], np.uint8), imgs.reshape(4, -1)], axis=1)
    (tmp_path / "test.bin").write_bytes(rows.tobytes())
    assert int(gdata.vision.CIFAR100(root=str(tmp_path), train=False, fine_label=True)[3][1]) == 44
    assert int(gdata.vision.CIFAR100(root=str(tmp_path), train=False)[3][1]) == 4


def test_image_folder_dataset_labels_folders_in_sorted_order(tmp_path):
    pytest.importorskip("PIL")
    from hybridize.runtime.recordio import encode_image
    for cls_name, n in (("cat", 2), ("ant", 1)):
        (tmp_path / cls_name).mkdir()
        for i in range(n):
            (tmp_path / cls_name / f"{i}.png").write_bytes(
                encode_image(np.full((4, 5, 3), 10 * i + n, np.uint8), ".png"))
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    with pytest.warns(UserWarning, match="Ignoring .*notes.txt"):
        ds = gdata.vision.ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["ant", "cat"] and len(ds) == 3
    img, label = ds[2]
    assert (img.shape, label, int(img.asnumpy()[0, 0, 0])) == ((4, 5, 3), 1, 12)
    assert gdata.vision.ImageFolderDataset(str(tmp_path), flag=0)[0][0].shape == (4, 5, 1)
