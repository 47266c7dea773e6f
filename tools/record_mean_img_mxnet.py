"""Records MXNet 1.9.1's ``ImageRecordIter(mean_img=...)`` over ``tests/data/fixtures/mx_images.rec``
(three 5x6 PNGs): the mean image it computes and saves when the file is absent, and the batches it
gives with it (then again from the saved file), for ``tests/data/test_io.py``.

    /tmp/mxnet-venv/bin/python tools/record_mean_img_mxnet.py tests/data/fixtures
"""
import json
import os
import sys
import tempfile

import mxnet as mx


def main(fixtures: str) -> None:
    out = {}
    for name, kw in [("plain", {}), ("std_scale", dict(std_r=2.0, std_g=4.0, std_b=8.0, scale=0.5))]:
        with tempfile.TemporaryDirectory() as tmp:
            mean_path = os.path.join(tmp, "mean.bin")
            runs = []
            for _ in range(2):        # first creates the file, then loads it
                it = mx.io.ImageRecordIter(path_imgrec=os.path.join(fixtures, "mx_images.rec"), data_shape=(3, 4, 4),
                                           batch_size=2, mean_img=mean_path, **kw)
                runs.append([{"data": b.data[0].asnumpy().tolist(), "label": b.label[0].asnumpy().tolist(),
                              "pad": b.pad} for b in it])
            saved = mx.nd.load(mean_path)
            out[name] = {"kwargs": kw, "runs": runs, "keys": sorted(saved),
                         "mean_img": saved["mean_img"].asnumpy().tolist()}
    with open(os.path.join(fixtures, "mean_img_iter.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])
