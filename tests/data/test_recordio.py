"""mx.recordio reads MXNet 1.9.1's RecordIO files and writes byte-identical ones (MXNet reads ours:
``tools/record_data_mxnet.py --read-ours``); pack/unpack and image records as MXNet's."""
import hybridize.runtime as mx
import numpy as np
import pytest
from hybridize.runtime import recordio
from hybridize.runtime.gluon import data as gdata
from recorded import RECORDED, fixture

REC = RECORDED["recordio"]
PAYLOADS = [bytes.fromhex(p) for p in REC["payloads"]]  # including the magic number, aligned and not


def test_reads_a_file_mxnet_wrote_record_by_record():
    r = recordio.MXRecordIO(fixture("mx_plain.rec"), "r")
    got = []
    while (b := r.read()) is not None:
        got.append(b)
    assert got == PAYLOADS
    r.reset()
    assert r.read() == PAYLOADS[0]


def test_writes_the_bytes_mxnet_writes(tmp_path):
    w = recordio.MXRecordIO(str(tmp_path / "ours.rec"), "w")
    for p in PAYLOADS:
        w.write(p)
    w.close()
    assert (tmp_path / "ours.rec").read_bytes() == open(fixture("mx_plain.rec"), "rb").read()


def _indexed_header(i):
    return recordio.IRHeader(0, [float(i), i * 0.5] if i % 2 else float(i), i + 100, 0)


def test_indexed_file_and_packed_headers_read_and_write_as_mxnet(tmp_path):
    r = recordio.MXIndexedRecordIO(fixture("mx_indexed.idx"), fixture("mx_indexed.rec"), "r")
    assert r.keys == [i * 3 for i in range(len(PAYLOADS))]
    for i in reversed(range(len(PAYLOADS))):
        header, payload = recordio.unpack(r.read_idx(i * 3))
        assert payload == PAYLOADS[i]
        assert (header.id, header.id2) == (i + 100, 0)
        if i % 2:
            assert header.flag == 2 and header.label.tolist() == [float(i), i * 0.5]
        else:
            assert header.flag == 0 and header.label == float(i)
    w = recordio.MXIndexedRecordIO(str(tmp_path / "o.idx"), str(tmp_path / "o.rec"), "w")
    for i, p in enumerate(PAYLOADS):
        w.write_idx(i * 3, recordio.pack(_indexed_header(i), p))
    w.close()
    assert (tmp_path / "o.rec").read_bytes() == open(fixture("mx_indexed.rec"), "rb").read()
    assert (tmp_path / "o.idx").read_text() == open(fixture("mx_indexed.idx")).read()


def test_record_file_dataset_reads_records_by_position_also_in_workers():
    ds = gdata.RecordFileDataset(fixture("mx_indexed.rec"))
    assert len(ds) == len(PAYLOADS)
    assert recordio.unpack(ds[4])[1] == PAYLOADS[4]
    lens = gdata.DataLoader(ds.transform(lambda rec: len(recordio.unpack(rec)[1])), batch_size=3, num_workers=2)
    assert np.concatenate([b.asnumpy() for b in lens]).tolist() == [len(p) for p in PAYLOADS]


def test_image_records_written_by_mxnet_decode_to_mxnets_pixels():
    pytest.importorskip("PIL")
    ds = gdata.vision.ImageRecordDataset(fixture("mx_images.rec"))
    for i, (img, label) in enumerate(ds):
        assert img.dtype == np.uint8 and label == float(i)
        assert img.asnumpy().tolist() == REC["decoded_images"][i]
    r = recordio.MXIndexedRecordIO(fixture("mx_images.idx"), fixture("mx_images.rec"), "r")
    header, bgr = recordio.unpack_img(r.read_idx(1))
    assert bgr[..., ::-1].tolist() == REC["images"][1]  # cv2's channel order


def test_pack_img_round_trips_png_losslessly_and_jpeg_closely():
    pytest.importorskip("PIL")
    img = np.array(REC["images"][0], dtype=np.uint8)
    header = recordio.IRHeader(0, 3.0, 7, 0)
    h, back = recordio.unpack_img(recordio.pack_img(header, img, quality=3, img_fmt=".png"))
    assert (h.label, h.id) == (3.0, 7) and back.tolist() == img.tolist()
    _, jpg = recordio.unpack_img(recordio.pack_img(header, np.full((16, 16, 3), 120, np.uint8), quality=95))
    assert np.abs(jpg.astype(int) - 120).max() <= 2
    assert mx.image.imdecode(recordio.pack_img(header, img, img_fmt=".png")[24:]).asnumpy().tolist() == \
        img[..., ::-1].tolist()
