"""Do np-mode graphs exported by hybridize.runtime load and run in MXNet 1.9.1? (not in the suite)

    python tools/numpy_sym/check_in_mxnet.py [OUT]        # exports with the runtime into OUT
    /tmp/mxnet-venv/bin/python tools/numpy_sym/check_in_mxnet.py --mxnet OUT

The first run (the project's Python) rebuilds every model of tests/numpy/np_models.py on the
runtime after ``npx.set_np()``, hybridizes and exports it (``OUT/<name>-symbol.json``,
``-0000.params``) and saves its input and output (``OUT/<name>-io.npz``). The second (MXNet's venv)
loads each export with MXNet's ``SymbolBlock.imports`` in np mode, runs it on the saved input and
compares with the runtime's output; it prints one line per model and exits non-zero on a mismatch.
"""
from __future__ import annotations

import os
import sys
import tempfile

import numpy as onp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "numpy"))
from np_models import MODELS, set_params


def export_with_runtime(out: str) -> None:
    from hybridize.runtime import np, npx
    from hybridize.runtime.gluon import nn

    npx.set_np()
    for name, (build, shape) in MODELS.items():
        net = build(nn, np)
        net.initialize()
        x = np.array(onp.random.RandomState(2).uniform(-1, 1, size=shape).astype("float32"))
        net(x)
        set_params(net, onp)
        net.hybridize()
        y = net(x)
        net.export(os.path.join(out, name))
        onp.savez(os.path.join(out, f"{name}-io.npz"), x=x.asnumpy(), y=y.asnumpy())
        print(f"exported {name}: output {y.shape}")


def run_in_mxnet(out: str) -> int:
    import mxnet as mx
    from mxnet import np, npx

    npx.set_np()
    bad = 0
    for name in MODELS:
        io = onp.load(os.path.join(out, f"{name}-io.npz"))
        net = mx.gluon.SymbolBlock.imports(os.path.join(out, f"{name}-symbol.json"), ["data"],
                                           os.path.join(out, f"{name}-0000.params"))
        y = net(np.array(io["x"])).asnumpy()
        diff = float(abs(y - io["y"]).max())
        ok = onp.allclose(y, io["y"], rtol=1e-4, atol=1e-5)
        bad += not ok
        print(f"{name}: MXNet {mx.__version__} loads and runs it; max |diff| = {diff:.2e} {'ok' if ok else 'MISMATCH'}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--mxnet":
        sys.exit(run_in_mxnet(sys.argv[2]))
    target = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="np-exports-")
    os.makedirs(target, exist_ok=True)
    export_with_runtime(target)
    print(f"now: /tmp/mxnet-venv/bin/python {sys.argv[0]} --mxnet {target}")
