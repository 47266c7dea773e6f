"""Records MXNet 1.9.1 running the training scripts of tests/training/sweep/, for
tests/training/test_training_sweep.py.

    /tmp/mxnet-venv/bin/python tools/record_training_sweep.py

Each script (written for MXNet 1.9.1 in the style of real training code: d2l 1.x and 2.x, gluon-cv,
gluon-nlp, the Module API) defines ``run()``, which trains a few steps from fixed data and fixed initial
parameters and returns ``{"losses": [...], "params": {name: array}}`` (and, for float16 runs,
``half_losses``). Written to ``tests/training/fixtures/training_sweep.npz`` as ``<script>/<key>`` and
``<script>/params/<name>``; NumPy mode is switched off after each script, as the test does.

``dcgan`` runs in a subprocess with ``MXNET_MKLDNN_ENABLED=0`` (MXNet's own CPU kernels): MXNet 1.9.1's
oneDNN build fails on its Deconvolution ("could not create a primitive descriptor for a reorder
primitive"), an MXNet bug; the other scripts run with the oneDNN build's defaults.
"""
import importlib.util
import os
import subprocess
import sys
import tempfile

import numpy as np

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "tests", "training", "sweep")
OUT = os.path.join(HERE, "..", "tests", "training", "fixtures", "training_sweep.npz")
#: scripts recorded in a subprocess with these environment variables (set before mxnet is imported)
ENVIRONMENT = {"dcgan": {"MXNET_MKLDNN_ENABLED": "0"}}


def record(name, arrays):
    """Runs ``sweep/<name>.py`` and adds its values to ``arrays``."""
    spec = importlib.util.spec_from_file_location("sweep_" + name, os.path.join(SCRIPTS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.run()
    mx.npx.reset_np()
    for key, value in result.items():
        if key == "params":
            for pname, array in value.items():
                arrays["%s/params/%s" % (name, pname)] = np.asarray(array, dtype=np.float32)
        else:
            arrays["%s/%s" % (name, key)] = np.asarray([float(v) for v in value], dtype=np.float64)
    print(name, len(result["losses"]), "values,", len(result["params"]), "parameters", file=sys.stderr)


def main():
    if sys.argv[1:2] == ["--one"]:   # a subprocess: one script into the file given
        arrays = {}
        record(sys.argv[2], arrays)
        np.savez(sys.argv[3], **arrays)
        return
    arrays = {}
    for fname in sorted(os.listdir(SCRIPTS)):
        if not fname.endswith(".py") or fname.startswith("_"):
            continue
        name = fname[:-3]
        if name in ENVIRONMENT:
            out = os.path.join(tempfile.mkdtemp(), name + ".npz")
            subprocess.run([sys.executable, os.path.abspath(__file__), "--one", name, out], check=True,
                           env=dict(os.environ, **ENVIRONMENT[name]))
            arrays.update(np.load(out))
        else:
            record(name, arrays)
    np.savez_compressed(OUT, **arrays)


if __name__ == "__main__":
    main()
