#!/usr/bin/env python
"""Records MXNet 1.9.1's run of the Gluon training program of ``tests/data/gluon_program.py`` (a
DataLoader with 2 worker processes feeding an MLP: batches in order, losses, metrics, parameters)
for tests/data/test_gluon_training.py. Needs MXNet; the test only reads what this writes.

    /tmp/mxnet-venv/bin/python tools/record_gluon_training_mxnet.py tests/data/fixtures
"""
import json
import os
import sys

import mxnet as mx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"))
import gluon_program  # noqa: E402


def main():
    out = gluon_program.run(mx, num_workers=2)
    out["mxnet"] = mx.__version__
    with open(os.path.join(sys.argv[1], "gluon_training.json"), "w") as f:
        json.dump(out, f)
    print(len(out["batches"]), "batches, losses", [round(v, 4) for v in out["losses"]])


if __name__ == "__main__":
    main()
