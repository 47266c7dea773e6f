"""OpenCV's INTER_AREA (3) and INTER_LANCZOS4 (4) resizes, and INTER_LINEAR's exact halving (which
OpenCV does as INTER_AREA), as MXNet 1.9.1 gives them (``tools/record_resize_area_lanczos_mxnet.py``):
uint8 through ``mx.image.imresize`` equal to the last bit, float32 through ``mx.nd.image.resize``;
shrinking by whole factors and by fractions, enlarging, one axis each way, one and three channels."""
from __future__ import annotations

import numpy as np
import pytest

import hybridize.runtime as mx
from recorded import fixture

REC = np.load(fixture("resize_area_lanczos.npz"))
CASES = [(k, c, interp) for k in range(len(REC["sizes"])) for c in (1, 3) for interp in (1, 3, 4)]


@pytest.mark.parametrize("k,c,interp", CASES)
def test_resize_gives_opencvs_pixels(k, c, interp) -> None:
    (h, w), (nh, nw) = REC["sizes"][k]
    src = REC[f"src_u8_{k}_{c}"]
    assert src.shape == (h, w, c)
    got = mx.image.imresize(mx.nd.array(src, dtype="uint8"), int(nw), int(nh), interp=interp).asnumpy()
    np.testing.assert_array_equal(got, REC[f"u8_{k}_{c}_{interp}"])
    srcf = REC[f"src_f32_{k}_{c}"]
    gotf = mx.nd.image.resize(mx.nd.array(srcf), size=(int(nw), int(nh)), interp=interp).asnumpy()
    np.testing.assert_allclose(gotf, REC[f"f32_{k}_{c}_{interp}"], rtol=1e-5, atol=1e-5)
