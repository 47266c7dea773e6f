"""``mx.image.ImageDetIter`` and ``CreateDetAugmenter`` (MXNet 1.9.1's Python, ported) give MXNet's
batches on the detection records of fixtures/iters_det.rec (recorded by
tools/record_image_det_iter_mxnet.py): labels ``(batch, objects, 5)`` padded with -1, images
resized, normalized, and, seeded, randomly cropped, padded and mirrored as MXNet does."""
import json

import numpy as np
import pytest

import hybridize.runtime as mx
import det_program
from recorded import fixture

with open(fixture("image_det_iter.json")) as _f:
    REC = json.load(_f)


@pytest.fixture(scope="module")
def ours():
    pytest.importorskip("PIL")
    return det_program.run(mx, fixture("iters_det.rec"))


@pytest.mark.parametrize("case", sorted(det_program.CASES))
def test_image_det_iter_gives_mxnets_batches(ours, case):
    got, want = ours[case], REC[case]
    assert got["provide_label"] == want["provide_label"] == [["label", [2, 3, 5]]]
    assert [[b[2] for b in e] for e in got["epochs"]] == [[b[2] for b in e] for e in want["epochs"]]
    for eg, ew in zip(got["epochs"], want["epochs"]):
        for bg, bw in zip(eg, ew):
            assert bg[1] == bw[1]                      # labels: the same boxes after crop, pad, flip
            # pixels: the same, but for one level of bicubic rounding in one resized random crop
            np.testing.assert_allclose(bg[0], bw[0], rtol=0, atol=1.0 if case == "random" else 1e-3)
