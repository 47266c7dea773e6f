"""MXNet's C++ file iterators, ``mx.io.MNISTIter``, ``mx.io.LibSVMIter`` and
``mx.io.ImageDetRecordIter``, give MXNet 1.9.1's batches (recorded by tools/record_io_iters_mxnet.py
on the files in fixtures/iters_*): MNIST's pixels / 256, its parts and its shuffle (std::shuffle with
std::mt19937, once, at construction); LibSVM rows as dense arrays of MXNet's CSR values, labels from
the lines or from a label file, the last batch completed from the start (pad) and the file's
byte-split parts; detection images force-resized and normalized with their padded labels
``[c, h, w, n, label..., pad]``, shuffled per pass. Bad files: one line."""
import gzip
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime.base import DataFileError
from hybridize.runtime.io.mnist import std_shuffle
from recorded import FIXTURES, fixture

FIXTURES_DIR = Path(FIXTURES)

with open(fixture("iters_mxnet.json")) as _f:
    REC = json.load(_f)
MNIST = {"plain": dict(shuffle=False), "shuffle": dict(shuffle=True), "seed5_flat": dict(shuffle=True, seed=5, flat=True),
         "part1of2": dict(shuffle=False, num_parts=2, part_index=1), "default": {}}
LIBSVM = {
    "doc": dict(data_libsvm="iters_data.t", data_shape=(3,), batch_size=3),
    "label_file": dict(data_libsvm="iters_data.t", data_shape=(3,), label_libsvm="iters_label.t", label_shape=(3,), batch_size=3),
    "seven": dict(data_libsvm="iters_seven.t", data_shape=(4,), batch_size=3),
    "seven_b7": dict(data_libsvm="iters_seven.t", data_shape=(4,), batch_size=7),
    **{f"part{k}of3": dict(data_libsvm="iters_seven.t", data_shape=(4,), batch_size=1, num_parts=3, part_index=k) for k in range(3)},
}


def _epochs(it, n):
    out = []
    for e in range(n):
        if e:
            it.reset()
        out.append([[b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(), b.pad] for b in it])
    return {"epochs": out, "provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
            "provide_label": [[d.name, list(d.shape)] for d in it.provide_label]}


def _mnist(**kw):
    return mx.io.MNISTIter(image=fixture("iters_mnist-images-idx3-ubyte"), label=fixture("iters_mnist-labels-idx1-ubyte"),
                           batch_size=5, silent=True, **kw)


@pytest.mark.parametrize("case", sorted(MNIST))
def test_mnist_iter_gives_mxnets_batches(case):
    assert _epochs(_mnist(**MNIST[case]), 2) == REC["mnist"][case]


@pytest.mark.parametrize("seed", ["0", "7"])
def test_mnist_shuffle_is_mxnets_permutation_of_3000_images(seed):
    assert std_shuffle(3000, int(seed)).tolist() == REC["mnist_perm"][seed]


def test_mnist_iter_reads_the_published_gzipd_files_too(tmp_path):
    for name in ("iters_mnist-images-idx3-ubyte", "iters_mnist-labels-idx1-ubyte"):
        (tmp_path / (name + ".gz")).write_bytes(gzip.compress((FIXTURES_DIR / name).read_bytes()))
    it = mx.io.MNISTIter(image=str(tmp_path / "iters_mnist-images-idx3-ubyte.gz"),
                         label=str(tmp_path / "iters_mnist-labels-idx1-ubyte.gz"), batch_size=5, silent=True)
    assert _epochs(it, 2) == REC["mnist"]["default"]


@pytest.mark.parametrize("case", sorted(LIBSVM))
def test_libsvm_iter_gives_mxnets_batches(case, monkeypatch):
    monkeypatch.chdir(FIXTURES)
    kw = LIBSVM[case]
    assert _epochs(mx.io.LibSVMIter(**kw), 1 if "num_parts" in kw else 3) == REC["libsvm"][case]


def test_bad_files_are_one_line_naming_the_file(tmp_path):
    shutil.copy(fixture("iters_mnist-labels-idx1-ubyte"), tmp_path / "labels")
    (tmp_path / "short").write_bytes(open(fixture("iters_mnist-images-idx3-ubyte"), "rb").read()[:100])
    with pytest.raises(DataFileError, match=r"missing-images: cannot open the MNIST image file: No such file"):
        mx.io.MNISTIter(image=str(tmp_path / "missing-images"), label=str(tmp_path / "labels"))
    with pytest.raises(DataFileError, match=r"short: invalid mnist format: the header announces 23 x 4 x 3 bytes "
                                            r"of images, the file holds 84$"):
        mx.io.MNISTIter(image=str(tmp_path / "short"), label=str(tmp_path / "labels"))
    (tmp_path / "bad.t").write_text("1 0:0.5\n2 zero:1\n")
    with pytest.raises(DataFileError, match=r"bad.t: line 2 is not 'label index:value \.\.\.': '2 zero:1'$"):
        mx.io.LibSVMIter(data_libsvm=str(tmp_path / "bad.t"), data_shape=(3,))
    (tmp_path / "wide.t").write_text("1 0:0.5\n2 3:1\n")
    with pytest.raises(DataFileError, match=r"wide.t: line 2: column 3 is outside data_shape \(3,\)"):
        mx.io.LibSVMIter(data_libsvm=str(tmp_path / "wide.t"), data_shape=(3,))


DET = {
    "default": dict(data_shape=(3, 8, 10)),
    "norm": dict(data_shape=(3, 6, 7), mean_r=100, mean_g=110, mean_b=120, std_r=50, std_g=60, std_b=70, scale=0.5,
                 label_pad_width=20, label_pad_value=-2),
    "gray_noround": dict(data_shape=(1, 8, 10), round_batch=False),
    "shuffle": dict(data_shape=(3, 5, 5), shuffle=True, seed=4),
    "resize_nearest": dict(data_shape=(3, 7, 9), resize=11, inter_method=0),
}


@pytest.mark.parametrize("case", sorted(DET))
def test_image_det_record_iter_gives_mxnets_batches_and_padded_labels(case):
    pytest.importorskip("PIL")
    it = mx.io.ImageDetRecordIter(path_imgrec=fixture("iters_det.rec"), batch_size=2, **DET[case])
    assert _epochs(it, 3 if case == "shuffle" else 2) == REC["det"][case]


def test_image_det_record_iter_refuses_what_it_does_not_do():
    with pytest.raises(NotImplementedError, match=r"^ImageDetRecordIter: rand_crop_prob, rand_mirror_prob not supported"):
        mx.io.ImageDetRecordIter(path_imgrec=fixture("iters_det.rec"), data_shape=(3, 8, 8), batch_size=2,
                                 rand_crop_prob=0.5, rand_mirror_prob=0.5)
    with pytest.raises(ValueError, match=r"label_pad_width: 5 smaller than estimated width: 17$"):
        mx.io.ImageDetRecordIter(path_imgrec=fixture("iters_det.rec"), data_shape=(3, 8, 8), batch_size=2,
                                 label_pad_width=5)


@pytest.mark.parametrize("case", ["doc", "label_file", "seven", "seven_b7"])
def test_libsvm_iter_batches_are_mxnets_csr_arrays(case, monkeypatch):
    """``data``/``indices``/``indptr`` (explicit zeros kept, int64 indices) and ``stype`` as MXNet
    1.9.1 gives them (``tools/record_libsvm_csr_mxnet.py``)."""
    import json

    with open(FIXTURES_DIR / "libsvm_csr.json") as f:
        want = json.load(f)[case]
    monkeypatch.chdir(FIXTURES)
    it = mx.io.LibSVMIter(**LIBSVM[case])

    def csr(x):
        if x.stype != "csr":
            return {"stype": x.stype}
        x.check_format(True)
        return {"stype": "csr", "data": x.data.asnumpy().tolist(), "indices": x.indices.asnumpy().tolist(),
                "indptr": x.indptr.asnumpy().tolist(),
                "dtypes": [np.dtype(a.dtype).name for a in (x.data, x.indices, x.indptr)]}

    for epoch in want:
        assert [{"data": csr(b.data[0]), "label": csr(b.label[0])} for b in it] == epoch
        it.reset()


def test_a_csr_batch_computes_as_its_dense_values_and_checks_its_format():
    from hybridize.runtime.io.csr import CSRNDArray, SparseFormatError

    x = CSRNDArray([0.5, 0.0, 2.0], [0, 2, 1], [0, 2, 2, 3], (3, 3))
    assert x.asnumpy().tolist() == [[0.5, 0, 0], [0, 0, 0], [0, 2.0, 0]]
    y = mx.nd.dot(x, mx.nd.ones((3, 2)))
    assert y.stype == "default" and y.asnumpy().tolist() == [[0.5, 0.5], [0, 0], [2, 2]]
    assert x.tostype("default").stype == "default" and x.tostype("csr") is x
    with pytest.raises(mx.base.MXNetError, match="must increase strictly"):
        CSRNDArray([1.0, 2.0], [2, 1], [0, 2], (1, 3)).check_format(True)
    bad = CSRNDArray([1.0], [0], [0, 1], (1, 3))
    bad._csr = (bad._csr[0], np.array([5]), bad._csr[2])      # a column past the end
    with pytest.raises(SparseFormatError, match=r"outside \[0, 3\)"):
        bad.check_format(True)
