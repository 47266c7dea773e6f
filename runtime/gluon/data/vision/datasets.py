"""Vision datasets (``mxnet.gluon.data.vision.datasets``), read from local files in their published
formats (ported from MXNet 1.9.1, Apache-2.0).

MNIST/FashionMNIST: the four idx files (``train-images-idx3-ubyte[.gz]`` ...) in ``root``;
CIFAR-10/100: the binary batches (``data_batch_1.bin`` ... / ``train.bin``, ``test.bin``) in ``root``
or its ``cifar-10-batches-bin``/``cifar-100-binary`` folder, or the published ``.tar.gz`` archive in
``root`` (unpacked on first use). Nothing is ever downloaded: a missing file raises
:class:`DatasetFileNotFoundError` naming the file expected.
"""
__all__ = [
    'CIFAR10',
    'CIFAR100',
    'MNIST',
    'FashionMNIST',
    'ImageFolderDataset',
    'ImageRecordDataset',
]

import gzip
import os
import struct
import tarfile
import warnings

import numpy as np

from .... import base, image, nd, recordio
from ....base import DataFileError, DatasetFileNotFoundError
from ..dataset import Dataset, RecordFileDataset, _DownloadedDataset


def is_np_array():  # the NumPy front end (mx.np) is not part of the runtime
    return False


_mx_np = None


def _local_file(root, names, dataset, hint=""):
    """The first of ``names`` present in ``root`` (a published file, possibly gzip'd)."""
    for name in names:
        path = os.path.join(root, name)
        if os.path.isfile(path):
            return path
    raise DatasetFileNotFoundError(os.path.join(root, names[0]),
                                   f"{dataset} file not found (expected {' or '.join(names)} in {root}{hint}; "
                                   "the runtime never downloads: copy the published files there)")


def _open_maybe_gz(path):
    with open(path, 'rb') as f:
        gz = f.read(2) == b'\x1f\x8b'
    return gzip.open(path, 'rb') if gz else open(path, 'rb')


def _read_idx(path, magic, ndim):
    """An idx file's array (MNIST's format: big-endian magic, dims, then uint8 data)."""
    try:
        with _open_maybe_gz(path) as fin:
            head = fin.read(4 + 4 * ndim)
            raw = fin.read()
    except (OSError, EOFError) as e:
        raise DataFileError(path, f"cannot read the idx file: {e}") from None
    if len(head) != 4 + 4 * ndim or struct.unpack(">I", head[:4])[0] != magic:
        raise DataFileError(path, f"not an idx{ndim} ubyte file (magic {magic:#x} expected)")
    dims = struct.unpack(">" + "I" * ndim, head[4:])
    if len(raw) != int(np.prod(dims)):
        raise DataFileError(path, f"idx file holds {len(raw)} bytes, its header announces {dims}")
    return np.frombuffer(raw, dtype=np.uint8).reshape(dims)


class MNIST(_DownloadedDataset):
    """MNIST handwritten digits dataset from http://yann.lecun.com/exdb/mnist

    Each sample is an image (in 3D NDArray) with shape (28, 28, 1).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/mnist
        Path to temp folder for storing data.
    train : bool, default True
        Whether to load the training or testing set.
    transform : function, default None
        A user defined callback that transforms each sample. For example::

            transform=lambda data, label: (data.astype(np.float32)/255, label)

    """
    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'mnist'),
                 train=True, transform=None):
        self._train = train
        self._train_data = ('train-images-idx3-ubyte.gz',
                            '6c95f4b05d2bf285e1bfb0e7960c31bd3b3f8a7d')
        self._train_label = ('train-labels-idx1-ubyte.gz',
                             '2a80914081dc54586dbdf242f9805a6b8d2a15fc')
        self._test_data = ('t10k-images-idx3-ubyte.gz',
                           'c3a25af1f52dad7f726cce8cacb138654b760d48')
        self._test_label = ('t10k-labels-idx1-ubyte.gz',
                            '763e7fa3757d93b0cdec073cef058b2004252c17')
        self._namespace = 'mnist'
        super().__init__(root, transform)

    def _get_data(self):
        if self._train:
            data, label = self._train_data, self._train_label
        else:
            data, label = self._test_data, self._test_label

        name = type(self).__name__
        label_file = _local_file(self._root, [label[0], label[0][:-3]], name)
        data_file = _local_file(self._root, [data[0], data[0][:-3]], name)
        label = _read_idx(label_file, 2049, 1).astype(np.int32)
        data = _read_idx(data_file, 2051, 3)
        if len(data) != len(label):
            raise DataFileError(data_file, f"{len(data)} images for {len(label)} labels in {label_file}")
        data = data.reshape(len(label), 28, 28, 1)
        array_fn = _mx_np.array if is_np_array() else nd.array
        self._data = array_fn(data, dtype=data.dtype)
        self._label = label


class FashionMNIST(MNIST):
    """A dataset of Zalando's article images consisting of fashion products,
    a drop-in replacement of the original MNIST dataset from
    https://github.com/zalandoresearch/fashion-mnist

    Each sample is an image (in 3D NDArray) with shape (28, 28, 1).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/fashion-mnist'
        Path to temp folder for storing data.
    train : bool, default True
        Whether to load the training or testing set.
    transform : function, default None
        A user defined callback that transforms each sample. For example::

            transform=lambda data, label: (data.astype(np.float32)/255, label)

    """
    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'fashion-mnist'),
                 train=True, transform=None):
        self._train = train
        self._train_data = ('train-images-idx3-ubyte.gz',
                            '0cf37b0d40ed5169c6b3aba31069a9770ac9043d')
        self._train_label = ('train-labels-idx1-ubyte.gz',
                             '236021d52f1e40852b06a4c3008d8de8aef1e40b')
        self._test_data = ('t10k-images-idx3-ubyte.gz',
                           '626ed6a7c06dd17c0eec72fa3be1740f146a2863')
        self._test_label = ('t10k-labels-idx1-ubyte.gz',
                            '17f9ab60e7257a1620f4ad76bbbaf857c3920701')
        self._namespace = 'fashion-mnist'
        super(MNIST, self).__init__(root, transform) # pylint: disable=bad-super-call


class CIFAR10(_DownloadedDataset):
    """CIFAR10 image classification dataset from https://www.cs.toronto.edu/~kriz/cifar.html

    Each sample is an image (in 3D NDArray) with shape (32, 32, 3).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/cifar10
        Path to temp folder for storing data.
    train : bool, default True
        Whether to load the training or testing set.
    transform : function, default None
        A user defined callback that transforms each sample. For example::

            transform=lambda data, label: (data.astype(np.float32)/255, label)

    """
    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'cifar10'),
                 train=True, transform=None):
        self._train = train
        self._archive_file = ('cifar-10-binary.tar.gz', 'fab780a1e191a7eda0f345501ccd62d20f7ed891')
        self._train_data = [('data_batch_1.bin', 'aadd24acce27caa71bf4b10992e9e7b2d74c2540'),
                            ('data_batch_2.bin', 'c0ba65cce70568cd57b4e03e9ac8d2a5367c1795'),
                            ('data_batch_3.bin', '1dd00a74ab1d17a6e7d73e185b69dbf31242f295'),
                            ('data_batch_4.bin', 'aab85764eb3584312d3c7f65fd2fd016e36a258e'),
                            ('data_batch_5.bin', '26e2849e66a845b7f1e4614ae70f4889ae604628')]
        self._test_data = [('test_batch.bin', '67eb016db431130d61cd03c7ad570b013799c88c')]
        self._namespace = 'cifar10'
        super().__init__(root, transform)

    def _find_batches(self):
        """Where the binary batches are: root, root/<archive folder>, or unpacked from the archive."""
        needed = [n for n, _ in (self._train_data if self._train else self._test_data)]
        folder = {'cifar10': 'cifar-10-batches-bin', 'cifar100': 'cifar-100-binary'}[self._namespace]
        for d in (self._root, os.path.join(self._root, folder)):
            if all(os.path.isfile(os.path.join(d, n)) for n in needed):
                self._dir = d
                return
        archive = os.path.join(self._root, self._archive_file[0])
        if os.path.isfile(archive):
            with tarfile.open(archive) as tar:
                tar.extractall(self._root, filter='data') if hasattr(tarfile, 'data_filter') \
                    else tar.extractall(self._root)
            return self._find_batches_after_unpack(needed, folder)
        missing = next(n for n in needed if not os.path.isfile(os.path.join(self._root, n)))
        _local_file(self._root, [missing], type(self).__name__,
                    f", in {folder}/ there, or the archive {self._archive_file[0]}")

    def _find_batches_after_unpack(self, needed, folder):
        for d in (self._root, os.path.join(self._root, folder)):
            if all(os.path.isfile(os.path.join(d, n)) for n in needed):
                self._dir = d
                return
        missing = next(n for n in needed if not os.path.isfile(os.path.join(self._root, folder, n)))
        _local_file(os.path.join(self._root, folder), [missing], type(self).__name__,
                    f" (unpacked from {self._archive_file[0]})")

    def _read_batch(self, filename, width=3072 + 1):
        with open(filename, 'rb') as fin:
            raw = fin.read()
        if len(raw) % width:
            raise DataFileError(filename, f"{len(raw)} bytes is not a whole number of {width}-byte CIFAR records")
        data = np.frombuffer(raw, dtype=np.uint8).reshape(-1, width)

        return data[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), \
               data[:, 0].astype(np.int32)

    def _get_data(self):
        self._find_batches()
        if self._train:
            data_files = self._train_data
        else:
            data_files = self._test_data
        data, label = zip(*(self._read_batch(os.path.join(self._dir, name))
                            for name, _ in data_files))
        data = np.concatenate(data)
        label = np.concatenate(label)

        array_fn = _mx_np.array if is_np_array() else nd.array
        self._data = array_fn(data, dtype=data.dtype)
        self._label = array_fn(label, dtype=label.dtype) if is_np_array() else label


class CIFAR100(CIFAR10):
    """CIFAR100 image classification dataset from https://www.cs.toronto.edu/~kriz/cifar.html

    Each sample is an image (in 3D NDArray) with shape (32, 32, 3).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/cifar100
        Path to temp folder for storing data.
    fine_label : bool, default False
        Whether to load the fine-grained (100 classes) or coarse-grained (20 super-classes) labels.
    train : bool, default True
        Whether to load the training or testing set.
    transform : function, default None
        A user defined callback that transforms each sample. For example::

            transform=lambda data, label: (data.astype(np.float32)/255, label)

    """
    def __init__(self, root=os.path.join(base.data_dir(), 'datasets', 'cifar100'),
                 fine_label=False, train=True, transform=None):
        self._train = train
        self._archive_file = ('cifar-100-binary.tar.gz', 'a0bb982c76b83111308126cc779a992fa506b90b')
        self._train_data = [('train.bin', 'e207cd2e05b73b1393c74c7f5e7bea451d63e08e')]
        self._test_data = [('test.bin', '8fb6623e830365ff53cf14adec797474f5478006')]
        self._fine_label = fine_label
        self._namespace = 'cifar100'
        super(CIFAR10, self).__init__(root, transform) # pylint: disable=bad-super-call

    def _read_batch(self, filename, width=3072 + 2):
        with open(filename, 'rb') as fin:
            raw = fin.read()
        if len(raw) % width:
            raise DataFileError(filename, f"{len(raw)} bytes is not a whole number of {width}-byte CIFAR records")
        data = np.frombuffer(raw, dtype=np.uint8).reshape(-1, width)

        return data[:, 2:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1), \
               data[:, 0+self._fine_label].astype(np.int32)


class ImageRecordDataset(RecordFileDataset):
    """A dataset wrapping over a RecordIO file containing images.

    Each sample is an image and its corresponding label.

    Parameters
    ----------
    filename : str
        Path to rec file.
    flag : {0, 1}, default 1
        If 0, always convert images to greyscale. \
        If 1, always convert images to colored (RGB).
    transform : function, default None
        A user defined callback that transforms each sample. For example::

            transform=lambda data, label: (data.astype(np.float32)/255, label)

    """
    def __init__(self, filename, flag=1, transform=None):
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx):
        record = super().__getitem__(idx)
        header, img = recordio.unpack(record)
        if self._transform is not None:
            return self._transform(image.imdecode(img, self._flag), header.label)
        return image.imdecode(img, self._flag), header.label


class ImageFolderDataset(Dataset):
    """A dataset for loading image files stored in a folder structure.

    like::

        root/car/0001.jpg
        root/car/xxxa.jpg
        root/car/yyyb.jpg
        root/bus/123.jpg
        root/bus/023.jpg
        root/bus/wwww.jpg

    Parameters
    ----------
    root : str
        Path to root directory.
    flag : {0, 1}, default 1
        If 0, always convert loaded images to greyscale (1 channel).
        If 1, always convert loaded images to colored (3 channels).
    transform : callable, default None
        A function that takes data and label and transforms them::

            transform = lambda data, label: (data.astype(np.float32)/255, label)

    Attributes
    ----------
    synsets : list
        List of class names. `synsets[i]` is the name for the integer label `i`
    items : list of tuples
        List of all images in (filename, label) pairs.
    """
    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = ['.jpg', '.jpeg', '.png']
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []

        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn('Ignoring %s, which is not a directory.'%path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn('Ignoring %s of type %s. Only support %s'%(
                        filename, ext, ', '.join(self._exts)))
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        img = image.imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self):
        return len(self.items)
