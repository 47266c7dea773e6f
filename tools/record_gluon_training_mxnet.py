#!/usr/bin/env python
"""Records MXNet 1.9.1's runs of the training programs of ``tests/data/gluon_program.py`` (Gluon: a
DataLoader with 2 worker processes feeding an MLP; Module: the step loop over a shuffled
NDArrayIter; batches in order, losses, metrics, parameters) for tests/data/test_gluon_training.py. Needs MXNet; the test only reads what this writes.

    /tmp/mxnet-venv/bin/python tools/record_gluon_training_mxnet.py tests/data/fixtures
"""
import json
import os
import sys

import mxnet as mx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"))
import gluon_program  # noqa: E402


def main():
    out = {"mxnet": mx.__version__, "gluon": gluon_program.run(mx, num_workers=2),
           "module": gluon_program.run_module(mx)}
    with open(os.path.join(sys.argv[1], "gluon_training.json"), "w") as f:
        json.dump(out, f)
    for k in ("gluon", "module"):
        print(k, len(out[k]["batches"]), "batches, losses", [round(v, 4) for v in out[k]["losses"]])


if __name__ == "__main__":
    main()
