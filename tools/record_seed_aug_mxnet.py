"""Records MXNet 1.9.1's ``ImageRecordIter`` with ``seed_aug`` (random crop and mirror, re-seeded per
record) over ``tests/data/fixtures/mx_images.rec`` (three 5x6 PNGs), two epochs, for
``tests/data/test_io.py``. Needs MXNet; the test only reads.

    /tmp/mxnet-venv/bin/python tools/record_seed_aug_mxnet.py tests/data/fixtures
"""
import json
import os
import sys

import mxnet as mx

CASES = [("crop_mirror", dict(rand_crop=True, rand_mirror=True, seed_aug=3)),
         ("mirror_only", dict(rand_mirror=True, seed_aug=11)),
         ("crop_resize", dict(rand_crop=True, resize=7, seed_aug=0))]


def main(fixtures):
    out = {}
    for name, kw in CASES:
        it = mx.io.ImageRecordIter(path_imgrec=os.path.join(fixtures, "mx_images.rec"), data_shape=(3, 4, 4),
                                   batch_size=2, **kw)
        epochs = []
        for _ in range(2):
            epochs.append([{"data": b.data[0].asnumpy().tolist(), "label": b.label[0].asnumpy().tolist(),
                            "pad": b.pad} for b in it])
            it.reset()
        out[name] = {"kwargs": kw, "epochs": epochs}
    with open(os.path.join(fixtures, "seed_aug_iter.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])
