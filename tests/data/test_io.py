"""mx.io: NDArrayIter and CSVIter give MXNet 1.9.1's batches (pad / discard / roll_over, shuffle,
several epochs); ResizeIter and PrefetchingIter wrap them as MXNet's do."""
import hybridize.runtime as mx
import numpy as np
import pytest
from recorded import RECORDED, as_plain

REC = RECORDED["iters"]
DATA = np.arange(30, dtype=np.float32).reshape(10, 3)
LABEL = np.arange(10, dtype=np.float32)


def _batches(it):
    return [{"data": as_plain(b.data), "label": as_plain(b.label), "pad": b.pad} for b in it]


@pytest.mark.parametrize("how", ["pad", "discard", "roll_over"])
def test_ndarrayiter_last_batch_handling_over_three_epochs(how):
    it = mx.io.NDArrayIter(DATA, LABEL, batch_size=4, last_batch_handle=how)
    epochs = []
    for _ in range(3):
        epochs.append(_batches(it))
        it.reset()
    assert epochs == REC[f"ndarrayiter_{how}"]["epochs"]
    assert [[d.name, list(d.shape)] for d in it.provide_data] == \
        [d[:2] for d in REC[f"ndarrayiter_{how}"]["provide_data"]]
    assert [[d.name, list(d.shape)] for d in it.provide_label] == \
        [d[:2] for d in REC[f"ndarrayiter_{how}"]["provide_label"]]


def test_ndarrayiter_shuffles_dict_inputs_with_numpys_seed():
    np.random.seed(3)
    it = mx.io.NDArrayIter({"a": DATA, "b": DATA * 2}, {"y": LABEL}, batch_size=5, shuffle=True)
    assert _batches(it) == REC["ndarrayiter_shuffle_dict"]


@pytest.mark.parametrize("round_batch", [1, 0])
def test_csviter_batches_and_round_batch(tmp_path, round_batch):
    data, label = tmp_path / "data.csv", tmp_path / "label.csv"
    data.write_text("".join(",".join(str(i * 4 + j + 0.5) for j in range(4)) + "\n" for i in range(7)))
    label.write_text("".join(f"{i}\n" for i in range(7)))
    it = mx.io.CSVIter(data_csv=str(data), data_shape=(2, 2), label_csv=str(label), label_shape=(1,),
                       batch_size=3, round_batch=bool(round_batch))
    rec = RECORDED["csv"][f"csv_round{round_batch}"]
    epochs = []
    for _ in range(2):
        epochs.append(_batches(it))
        it.reset()
    assert epochs == rec["epochs"]
    assert [[d.name, list(d.shape)] for d in it.provide_data] == rec["provide_data"]
    assert [[d.name, list(d.shape)] for d in it.provide_label] == rec["provide_label"]


def test_csviter_without_labels_gives_zero_labels(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("".join(",".join(str(i * 4 + j + 0.5) for j in range(4)) + "\n" for i in range(7)))
    assert _batches(mx.io.CSVIter(data_csv=str(data), data_shape=(4,), batch_size=4)) == RECORDED["csv"]["csv_nolabel"]


def test_resize_iter_repeats_or_cuts_an_epoch():
    it = mx.io.ResizeIter(mx.io.NDArrayIter(DATA, LABEL, batch_size=4), 5)
    firsts = [b.data[0].asnumpy()[0, 0] for b in it]
    assert firsts == [0, 12, 24, 0, 12]


def test_prefetching_iter_renames_and_yields_the_same_batches():
    base = mx.io.NDArrayIter(DATA, LABEL, batch_size=4, last_batch_handle="discard")
    pre = mx.io.PrefetchingIter(mx.io.NDArrayIter(DATA, LABEL, batch_size=4, last_batch_handle="discard"),
                                rename_data=[{"data": "x"}])
    assert [d.name for d in pre.provide_data] == ["x"]
    assert _batches(pre) == _batches(base)


def test_databatch_and_datadesc_print_as_mxnet():
    desc = mx.io.DataDesc("data", (4, 3))
    assert repr(desc) == "DataDesc[data,(4, 3),<class 'numpy.float32'>,NCHW]"
    batch = mx.io.DataBatch([mx.nd.zeros((4, 3))], [mx.nd.zeros((4,))], pad=1)
    assert str(batch) == "DataBatch: data shapes: [(4, 3)] label shapes: [(4,)]"


@pytest.mark.parametrize("case", ["plain", "norm", "scale_resize", "noround"])
def test_image_record_iter_gives_mxnets_batches(case):
    pytest.importorskip("PIL")
    from recorded import fixture
    rec = RECORDED["image_record_iter"][case]
    it = mx.io.ImageRecordIter(path_imgrec=fixture("mx_images.rec"), data_shape=(3, 4, 4), batch_size=2,
                               **rec["kwargs"])
    assert [[d.name, list(d.shape)] for d in it.provide_data] == rec["provide_data"]
    assert [[d.name, list(d.shape)] for d in it.provide_label] == rec["provide_label"]
    for want in rec["epochs"]:
        got = [{"data": b.data[0].asnumpy(), "label": b.label[0].asnumpy().tolist(), "pad": b.pad} for b in it]
        it.reset()
        if case == "noround":
            # MXNet leaves the slots past the data uninitialized and reports pad 0; here pad says 1
            assert [g["pad"] for g in got] == [0, 1]
            got[-1]["label"], got[-1]["data"] = got[-1]["label"][:1], got[-1]["data"][:1]
            want = [dict(w) for w in want]
            want[-1]["label"], want[-1]["data"], want[-1]["pad"] = want[-1]["label"][:1], want[-1]["data"][:1], 1
        assert [(g["label"], g["pad"]) for g in got] == [(w["label"], w["pad"]) for w in want]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g["data"], w["data"], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["plain", "std_scale"])
def test_image_record_iter_creates_saves_and_uses_mxnets_mean_image(tmp_path, case):
    """``mean_img`` absent: the mean of the iterator's images (normalized as without it) is computed,
    saved under the key ``mean_img`` and subtracted from each pixel before the std and scale, as
    MXNet 1.9.1 (``tools/record_mean_img_mxnet.py``); present: loaded, same batches."""
    pytest.importorskip("PIL")
    import json

    from recorded import fixture
    with open(fixture("mean_img_iter.json")) as f:
        rec = json.load(f)[case]
    mean_path = tmp_path / "mean.bin"
    for want in rec["runs"]:
        it = mx.io.ImageRecordIter(path_imgrec=fixture("mx_images.rec"), data_shape=(3, 4, 4), batch_size=2,
                                   mean_img=str(mean_path), **rec["kwargs"])
        got = [{"data": b.data[0].asnumpy(), "label": b.label[0].asnumpy().tolist(), "pad": b.pad} for b in it]
        assert [(g["label"], g["pad"]) for g in got] == [(w["label"], w["pad"]) for w in want]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g["data"], w["data"], rtol=1e-6, atol=1e-5)
    saved = mx.nd.load(str(mean_path))
    assert sorted(saved) == rec["keys"]
    np.testing.assert_allclose(saved["mean_img"].asnumpy(), rec["mean_img"], rtol=1e-6)


def test_image_record_iter_refuses_what_it_does_not_do_and_ignores_what_mxnet_ignores():
    from recorded import fixture
    from hybridize.runtime.base import MXNetError
    with pytest.raises(NotImplementedError, match=r"max_rotate_angle=10 not supported"):
        mx.io.ImageRecordIter(path_imgrec=fixture("mx_images.rec"), data_shape=(3, 4, 4), batch_size=2,
                              max_rotate_angle=10, seed_aug=3)
    with pytest.raises(MXNetError, match=r"1 or 3 channels, got \(5, 4, 4\)"):
        mx.io.ImageRecordIter(path_imgrec=fixture("mx_images.rec"), data_shape=(5, 4, 4), batch_size=2)
    it = mx.io.ImageRecordIter(path_imgrec=fixture("mx_images.rec"), data_shape=(3, 4, 4), batch_size=2,
                               and_mirror=False, preprocess_threads=4, max_rotate_angle=0)  # MXNet ignores the typo
    assert next(iter(it)).data[0].shape == (2, 3, 4, 4)


@pytest.mark.parametrize("case", ["crop_mirror", "mirror_only", "crop_resize"])
def test_image_record_iter_with_seed_aug_crops_and_mirrors_as_mxnet(case):
    """``seed_aug``: MXNet re-seeds std::mt19937 per record (index + seed_aug + 111), then draws the
    crop and the mirror coin as libstdc++ does: the batches equal MXNet 1.9.1's, every epoch
    (recorded: ``tests/data/fixtures/seed_aug_iter.json``)."""
    pytest.importorskip("PIL")
    import json

    from recorded import fixture
    with open(fixture("seed_aug_iter.json")) as f:
        rec = json.load(f)[case]
    it = mx.io.ImageRecordIter(path_imgrec=fixture("mx_images.rec"), data_shape=(3, 4, 4), batch_size=2,
                               **rec["kwargs"])
    for want in rec["epochs"]:
        got = [{"data": b.data[0].asnumpy(), "label": b.label[0].asnumpy().tolist(), "pad": b.pad} for b in it]
        it.reset()
        assert [(g["label"], g["pad"]) for g in got] == [(w["label"], w["pad"]) for w in want]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g["data"], w["data"], rtol=1e-6, atol=1e-6)
