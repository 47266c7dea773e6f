#!/usr/bin/env python
"""Records what MXNet 1.9.1 produces for the data pipeline, metrics and files, for tests/data/.

    /tmp/mxnet-venv/bin/python tools/record_data_mxnet.py tests/data/fixtures

Writes ``mxnet_data.json`` (DataLoader / NDArrayIter / CSVIter batches, metric values, the Module
program of ``tests/data/module_program.py``: its metrics, log lines, parameters, predictions),
``transforms.npz`` (deterministic image transforms on a fixed image) and MXNet-written RecordIO
files (``mx_plain.rec``, ``mx_indexed.rec``/``.idx``, ``mx_images.rec``/``.idx``) and the Module's
checkpoint (``mx_mlp-symbol.json``, ``mx_mlp-0002.params``). Needs MXNet; the
tests only read what it wrote.

    /tmp/mxnet-venv/bin/python tools/record_data_mxnet.py --read-ours DIR

reads the RecordIO files our runtime wrote into DIR with MXNet and prints one JSON line per file
(used to check that MXNet reads our files).
"""
import json
import os
import sys

import mxnet as mx
import numpy as np
from mxnet.gluon import data as gdata


def _arr(x):
    if isinstance(x, mx.nd.NDArray):
        return {"dtype": str(x.dtype.__name__ if hasattr(x.dtype, "__name__") else x.dtype), "value": x.asnumpy().tolist()}
    if isinstance(x, (list, tuple)):
        return [_arr(i) for i in x]
    return x


def _loader_cases():
    data = np.arange(22, dtype=np.float32).reshape(11, 2)
    label = np.arange(11) * 10
    out = {}
    for nw in (0, 2):
        for last in ("keep", "discard", "rollover"):
            ds = gdata.ArrayDataset(data, label)
            dl = gdata.DataLoader(ds, batch_size=4, last_batch=last, num_workers=nw)
            out[f"workers{nw}_{last}"] = [[_arr(b) for b in dl] for _ in range(2)]
        np.random.seed(7)
        ds = gdata.ArrayDataset(mx.nd.array(data), label).transform_first(lambda x: x * 2 + 1)
        dl = gdata.DataLoader(ds, batch_size=3, shuffle=True, num_workers=nw)
        out[f"workers{nw}_shuffle_transform"] = [_arr(b) for b in dl]
    # plain list dataset, tuple samples of python numbers, a custom batchify
    dl = gdata.DataLoader(gdata.SimpleDataset([(i, float(i) / 2) for i in range(5)]), batch_size=2)
    out["simple_tuples"] = [_arr(b) for b in dl]
    dl = gdata.DataLoader(gdata.SimpleDataset(list(range(7))), batch_size=3, batchify_fn=lambda s: mx.nd.array(s) * 3)
    out["batchify_fn"] = [_arr(b) for b in dl]
    bs = gdata.BatchSampler(gdata.SequentialSampler(7, start=2), 3, "keep")
    dl = gdata.DataLoader(gdata.SimpleDataset(list(range(10))), batch_sampler=bs)
    out["batch_sampler"] = [_arr(b) for b in dl]
    ds = gdata.SimpleDataset(list(range(10)))
    out["dataset_ops"] = {"filter": list(ds.filter(lambda x: x % 3 == 0)), "shard": list(ds.shard(3, 1)),
                          "take": list(ds.take(4)), "sample": list(ds.sample(gdata.SequentialSampler(3, 5)))}
    return out


def _iter_cases():
    data = np.arange(30, dtype=np.float32).reshape(10, 3)
    label = np.arange(10, dtype=np.float32)
    out = {}
    for how in ("pad", "discard", "roll_over"):
        it = mx.io.NDArrayIter(data, label, batch_size=4, last_batch_handle=how)
        epochs = []
        for _ in range(3):
            epochs.append([{"data": _arr(b.data), "label": _arr(b.label), "pad": b.pad} for b in it])
            it.reset()
        out[f"ndarrayiter_{how}"] = {"epochs": epochs, "provide_data": [list(d) for d in it.provide_data],
                                     "provide_label": [list(d) for d in it.provide_label]}
    np.random.seed(3)
    it = mx.io.NDArrayIter({"a": data, "b": data * 2}, {"y": label}, batch_size=5, shuffle=True)
    out["ndarrayiter_shuffle_dict"] = [{"data": _arr(b.data), "label": _arr(b.label), "pad": b.pad} for b in it]
    return out


def _csv_cases(tmp):
    data = os.path.join(tmp, "data.csv")
    label = os.path.join(tmp, "label.csv")
    with open(data, "w") as f:
        f.writelines(",".join(str(i * 4 + j + 0.5) for j in range(4)) + "\n" for i in range(7))
    with open(label, "w") as f:
        f.writelines(f"{i}\n" for i in range(7))
    out = {}
    for rb in (True, False):
        it = mx.io.CSVIter(data_csv=data, data_shape=(2, 2), label_csv=label, label_shape=(1,), batch_size=3,
                           round_batch=rb)
        epochs = []
        for _ in range(2):
            epochs.append([{"data": _arr(b.data), "label": _arr(b.label), "pad": b.pad} for b in it])
            it.reset()
        out[f"csv_round{int(rb)}"] = {"epochs": epochs, "provide_data": [list(d)[:2] for d in it.provide_data],
                                      "provide_label": [list(d)[:2] for d in it.provide_label]}
    it = mx.io.CSVIter(data_csv=data, data_shape=(4,), batch_size=4)
    out["csv_nolabel"] = [{"data": _arr(b.data), "label": _arr(b.label), "pad": b.pad} for b in it]
    return out


def _metric_cases():
    rng = np.random.RandomState(0)
    probs = rng.rand(6, 3).astype(np.float32)
    probs /= probs.sum(1, keepdims=True)
    cls = np.array([0, 2, 1, 1, 0, 2], dtype=np.float32)
    bin_probs = rng.rand(8, 2).astype(np.float32)
    bin_probs /= bin_probs.sum(1, keepdims=True)
    bin_label = np.array([0, 1, 1, 0, 1, 1, 0, 0], dtype=np.float32)
    reg_pred = rng.randn(5, 2).astype(np.float32)
    reg_label = rng.randn(5, 2).astype(np.float32)
    cases = [
        ("acc", {}, [cls], [probs]),
        ("acc", {"axis": 1}, [cls, cls[::-1].copy()], [probs, probs[::-1].copy()]),
        ("top_k_accuracy", {"top_k": 2}, [cls], [probs]),
        ("f1", {}, [bin_label], [bin_probs]),
        ("f1", {"average": "micro"}, [bin_label, bin_label[::-1].copy()], [bin_probs, bin_probs[::-1].copy()]),
        ("mcc", {}, [bin_label], [bin_probs]),
        ("mcc", {"average": "micro"}, [bin_label, bin_label[::-1].copy()], [bin_probs, bin_probs[::-1].copy()]),
        ("perplexity", {"ignore_label": None}, [cls], [probs]),
        ("perplexity", {"ignore_label": 1}, [cls], [probs]),
        ("mae", {}, [reg_label], [reg_pred]),
        ("mse", {}, [reg_label], [reg_pred]),
        ("rmse", {}, [reg_label], [reg_pred]),
        ("mae", {}, [reg_label[:, 0].copy()], [reg_pred[:, 0].copy()]),
        ("ce", {}, [cls], [probs]),
        ("nll_loss", {}, [cls], [probs]),
        ("pearsonr", {}, [reg_label], [reg_pred]),
        ("pearsonr", {"average": "micro"}, [reg_label, reg_label * 2], [reg_pred, reg_pred + 1]),
        ("pcc", {}, [cls], [probs]),
        ("pcc", {}, [bin_label], [bin_probs]),
        ("loss", {}, None, [reg_pred]),
        ("torch", {}, None, [reg_pred]),
        ("caffe", {}, None, [reg_pred]),
    ]
    out = []
    for name, kw, labels, preds in cases:
        m = mx.metric.create(name, **kw)
        la = None if labels is None else [mx.nd.array(x) for x in labels]
        pa = [mx.nd.array(x) for x in preds]
        m.update(la, pa)
        first = m.get_global()
        m.reset_local()
        m.update(la, pa)
        n, v = m.get()
        gn, gv = m.get_global()
        out.append({"name": name, "kwargs": kw, "labels": None if labels is None else [x.tolist() for x in labels],
                    "preds": [x.tolist() for x in preds], "get": [n, float(v)], "global": [gn, float(gv)],
                    "first": [first[0], float(first[1])]})
    comp = mx.metric.create(["acc", "ce"])
    comp.update([mx.nd.array(cls)], [mx.nd.array(probs)])
    n, v = comp.get()
    custom = mx.metric.np(lambda label, pred: float(np.abs(label - pred.argmax(1)).sum()), name="absdiff")
    custom.update([mx.nd.array(cls)], [mx.nd.array(probs)])
    custom.update([mx.nd.array(cls)], [mx.nd.array(probs)])
    return {"cases": out, "composite": [n, [float(x) for x in v]], "custom": [custom.get()[0], float(custom.get()[1])],
            "probs": probs.tolist(), "cls": cls.tolist()}


def _image(seed=0, shape=(10, 14, 3)):
    return np.random.RandomState(seed).randint(0, 256, shape).astype(np.uint8)


def _transforms(path):
    from mxnet.gluon.data.vision import transforms as T
    img = mx.nd.array(_image(), dtype=np.uint8)
    res = {"img": img.asnumpy()}
    res["to_tensor"] = T.ToTensor()(img).asnumpy()
    res["normalize"] = T.Normalize((0.4, 0.5, 0.6), (0.2, 0.3, 0.25))(T.ToTensor()(img)).asnumpy()
    res["resize_8"] = T.Resize(8)(img).asnumpy()
    res["resize_9x5"] = T.Resize((9, 5))(img).asnumpy()
    res["resize_keep"] = T.Resize(6, keep_ratio=True)(img).asnumpy()
    res["center_crop_6"] = T.CenterCrop(6)(img).asnumpy()
    res["center_crop_12x12"] = T.CenterCrop((12, 12))(img).asnumpy()
    res["cast"] = T.Cast("float16")(img).asnumpy()
    res["compose"] = T.Compose([T.Resize(12), T.CenterCrop(8), T.ToTensor(),
                                T.Normalize(0.5, 0.25)])(img).asnumpy()
    res["imresize"] = mx.image.imresize(img, 7, 5).asnumpy()
    res["resize_short"] = mx.image.resize_short(img, 6, interp=1).asnumpy()
    res["resize_short_cubic"] = mx.image.resize_short(img, 7).asnumpy()  # interp=2: bicubic
    res["imresize_cubic_up"] = mx.image.imresize(img, 23, 17, interp=2).asnumpy()
    res["imresize_cubic_float"] = mx.image.imresize(img.astype("float32") / 3, 9, 4, interp=2).asnumpy()
    res["center_crop_up"] = T.CenterCrop((16, 12))(img).asnumpy()
    res["resize_bicubic"] = T.Resize((11, 6), interpolation=2)(img).asnumpy()
    res["color_normalize"] = mx.image.color_normalize(img.astype("float32"), mx.nd.array([100, 110, 120]),
                                                      mx.nd.array([50, 60, 70])).asnumpy()
    np.savez(path, **res)


def _recordio(d):
    rec = mx.recordio.MXRecordIO(os.path.join(d, "mx_plain.rec"), "w")
    payloads = _payloads()
    for p in payloads:
        rec.write(p)
    rec.close()
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(d, "mx_indexed.idx"), os.path.join(d, "mx_indexed.rec"), "w")
    for i, p in enumerate(payloads):
        header = mx.recordio.IRHeader(0, [float(i), i * 0.5] if i % 2 else float(i), i + 100, 0)
        rec.write_idx(i * 3, mx.recordio.pack(header, p))
    rec.close()
    # image records: PNG bytes MXNet encodes through its own OpenCV (mx.image has no encoder; use
    # images encoded by MXNet's C++ via ImageRecordIter-compatible im2rec layout: header + png bytes)
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(d, "mx_images.idx"), os.path.join(d, "mx_images.rec"), "w")
    import struct
    import zlib
    for i in range(3):
        img = _image(i + 1, (5, 6, 3))
        rec.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0), _png(img, zlib, struct)))
    rec.close()
    decoded = []
    r = mx.recordio.MXIndexedRecordIO(os.path.join(d, "mx_images.idx"), os.path.join(d, "mx_images.rec"), "r")
    for k in r.keys:
        h, s = mx.recordio.unpack(r.read_idx(k))
        decoded.append(mx.image.imdecode(s).asnumpy().tolist())
    return {"payloads": [p.hex() for p in payloads], "decoded_images": decoded,
            "images": [_image(i + 1, (5, 6, 3)).tolist() for i in range(3)]}


def _png(img, zlib, struct):
    """A minimal RGB PNG writer (MXNet's venv has no image encoder in Python)."""
    h, w, _ = img.shape
    raw = b"".join(b"\0" + img[y].tobytes() for y in range(h))

    def chunk(t, data):
        c = struct.pack(">I", len(data)) + t + data
        return c + struct.pack(">I", zlib.crc32(t + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _payloads():
    magic = (0xced7230a).to_bytes(4, "little")
    return [b"", b"a", b"record_1", b"xyz\x00" * 3, magic, b"abcd" + magic + b"efgh", b"ab" + magic + b"cd",
            magic + magic + b"tail!", bytes(range(256)) * 3]


def _read_ours(d):
    for name in sorted(os.listdir(d)):
        if not name.endswith(".rec"):
            continue
        path = os.path.join(d, name)
        idx = path[:-4] + ".idx"
        if os.path.exists(idx):
            r = mx.recordio.MXIndexedRecordIO(idx, path, "r")
            recs = {str(k): r.read_idx(k).hex() for k in r.keys}
        else:
            r = mx.recordio.MXRecordIO(path, "r")
            recs = []
            while True:
                b = r.read()
                if b is None:
                    break
                recs.append(b.hex())
        print(json.dumps({"file": name, "records": recs}))


def _module(d):
    """The Module-API program of tests/data/module_program.py on MXNet; its checkpoint files kept."""
    import shutil
    import tempfile
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"))
    import module_program
    with tempfile.TemporaryDirectory() as tmp:
        out = module_program.run(mx, tmp)
        for name in ("mlp-symbol.json", "mlp-0002.params"):
            shutil.copy(os.path.join(tmp, name), os.path.join(d, "mx_" + name))
    return out


def _image_record_iter(d):
    """MXNet's C++ ImageRecordIter over mx_images.rec (5x6 PNGs): crops, normalization, resize, padding."""
    out = {}
    for name, kw in [("plain", {}), ("norm", dict(mean_r=100., mean_g=110., mean_b=120., std_r=50., std_g=60.,
                                                    std_b=70.)),
                     ("scale_resize", dict(resize=6, scale=1 / 255.)), ("noround", dict(round_batch=False))]:
        it = mx.io.ImageRecordIter(path_imgrec=os.path.join(d, "mx_images.rec"), data_shape=(3, 4, 4),
                                   batch_size=2, **kw)
        epochs = []
        for _ in range(2):
            epochs.append([{"data": b.data[0].asnumpy().tolist(), "label": b.label[0].asnumpy().tolist(),
                            "pad": b.pad} for b in it])
            it.reset()
        out[name] = {"kwargs": kw, "epochs": epochs,
                     "provide_data": [[x.name, list(x.shape)] for x in it.provide_data],
                     "provide_label": [[x.name, list(x.shape)] for x in it.provide_label]}
    return out


def main():
    if sys.argv[1] == "--read-ours":
        _read_ours(sys.argv[2])
        return
    d = sys.argv[1]
    os.makedirs(d, exist_ok=True)
    import tempfile
    out = {"mxnet": mx.__version__, "dataloader": _loader_cases(), "iters": _iter_cases(),
           "metrics": _metric_cases(), "recordio": _recordio(d), "module": _module(d),
           "image_record_iter": _image_record_iter(d)}
    with tempfile.TemporaryDirectory() as tmp:
        out["csv"] = _csv_cases(tmp)
    _transforms(os.path.join(d, "transforms.npz"))
    with open(os.path.join(d, "mxnet_data.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
