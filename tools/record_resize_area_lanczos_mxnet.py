"""Records OpenCV's INTER_AREA (3) and INTER_LANCZOS4 (4) resizes (and INTER_LINEAR, which an exact
halving turns into INTER_AREA) as MXNet 1.9.1 runs them
(``mx.image.imresize``: uint8; ``mx.nd.image.resize``: float32), for ``tests/data/test_resize_modes.py``:
downscaling by whole factors and by fractions, upscaling, one axis up and one down, one and three
channels. Needs MXNet; the test only reads.

    /tmp/mxnet-venv/bin/python tools/record_resize_area_lanczos_mxnet.py tests/data/fixtures/resize_area_lanczos.npz
"""
import sys

import mxnet as mx
import numpy as np

SIZES = [((8, 12), (4, 6)), ((9, 12), (3, 4)), ((10, 13), (7, 5)), ((7, 9), (11, 16)), ((9, 7), (5, 12)),
         ((6, 6), (6, 3)), ((31, 17), (8, 9))]


def main(path):
    rng = np.random.RandomState(3)
    out = {}
    for k, ((h, w), (nh, nw)) in enumerate(SIZES):
        for c in (1, 3):
            src = rng.randint(0, 256, (h, w, c)).astype(np.uint8)
            srcf = (rng.rand(h, w, c) * 10 - 3).astype(np.float32)
            out[f"src_u8_{k}_{c}"], out[f"src_f32_{k}_{c}"] = src, srcf
            for interp in (1, 3, 4):
                out[f"u8_{k}_{c}_{interp}"] = mx.image.imresize(mx.nd.array(src, dtype="uint8"), nw, nh,
                                                                interp=interp).asnumpy()
                out[f"f32_{k}_{c}_{interp}"] = mx.nd.image.resize(mx.nd.array(srcf), size=(nw, nh),
                                                                  interp=interp).asnumpy()
    np.savez_compressed(path, sizes=np.array(SIZES), **out)


if __name__ == "__main__":
    main(sys.argv[1])
