#!/usr/bin/env python
"""Records MXNet 1.9.1's ``mx.image.ImageDetIter`` (tests/data/det_program.py) on the detection records
of tests/data/fixtures/iters_det.rec (written by tools/record_io_iters_mxnet.py) for
tests/data/test_image_det_iter.py. Needs MXNet; the test only reads what this writes.

    /tmp/mxnet-venv/bin/python tools/record_image_det_iter_mxnet.py tests/data/fixtures
"""
import json
import os
import sys

import mxnet as mx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"))
import det_program  # noqa: E402


def main(d):
    out = det_program.run(mx, os.path.join(d, "iters_det.rec"))
    out["mxnet"] = mx.__version__
    with open(os.path.join(d, "image_det_iter.json"), "w") as f:
        json.dump(out, f)
    print({k: [len(e) for e in v["epochs"]] for k, v in out.items() if k != "mxnet"})


if __name__ == "__main__":
    main(sys.argv[1])
