"""Records MXNet 1.9.1's multi-context training for ``tests/training/test_multi_context.py``.

    /tmp/mxnet-venv/bin/python tools/record_multi_context.py   # writes tests/training/fixtures/multi_context.json

A Dense layer initialized on ``[cpu(0), cpu(1)]`` from fixed weights, each context given its half of a
fixed batch (``split_and_load``), two SGD-with-momentum steps, imperative and hybridized, with the
Trainer's default store ('device': the store sums the copies' gradients and updates) and with
``update_on_kvstore=False`` (``allreduce_grads`` then ``update`` per copy): the copies' gradients
before each step and the weights after it. Also the mean ``save_parameters`` writes for copies that
differ, and MXNet's error for a context the parameter is not on.
"""
import json
import os
import sys

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "training", "fixtures", "multi_context.json")
CTX = [mx.cpu(0), mx.cpu(1)]
W0 = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5) / 10
B0 = np.array([0.1, -0.2, 0.3], dtype=np.float32)
DATA = ((np.arange(24, dtype=np.float32).reshape(6, 4) % 7) - 3) / 4
LABEL = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=np.float32)


def run(hybridize: bool, update_on_kvstore):
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize(ctx=CTX)
    net.weight.set_data(mx.nd.array(W0))
    net.bias.set_data(mx.nd.array(B0))
    if hybridize:
        net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 0.01},
                            update_on_kvstore=update_on_kvstore)
    loss_fn = gluon.loss.L2Loss()
    steps = []
    for _ in range(2):
        xs = gluon.utils.split_and_load(mx.nd.array(DATA), CTX)
        ys = gluon.utils.split_and_load(mx.nd.array(LABEL), CTX)
        with autograd.record():
            losses = [loss_fn(net(x), y) for x, y in zip(xs, ys)]
        for loss in losses:
            loss.backward()
        grads = [g.asnumpy().tolist() for g in net.weight.list_grad()]
        if update_on_kvstore is False:
            trainer.allreduce_grads()
            trainer.update(6)
        else:
            trainer.step(6)
        steps.append({"losses": [loss.asnumpy().tolist() for loss in losses], "weight_grads": grads,
                      "weights": [w.asnumpy().tolist() for w in net.weight.list_data()],
                      "biases": [b.asnumpy().tolist() for b in net.bias.list_data()]})
    return {"update_on_kvstore": trainer._update_on_kvstore, "kvstore": trainer._kvstore.type, "steps": steps}


def main() -> int:
    cases = {}
    for hyb in (False, True):
        for upd in (None, False):
            cases[f"{'hybrid' if hyb else 'imperative'}_update_on_kvstore_{upd}"] = run(hyb, upd)
    p = gluon.Parameter("p", shape=(2,))
    p.initialize(ctx=CTX, init="zeros")
    p.list_data()[1][:] = 1.0
    mean = p._reduce().asnumpy().tolist()
    try:
        p.data(mx.cpu(2))
        missing = None
    except RuntimeError as e:
        missing = str(e)
    record = {"W0": W0.tolist(), "B0": B0.tolist(), "DATA": DATA.tolist(), "LABEL": LABEL.tolist(),
              "cases": cases, "reduce_of_0_and_1": mean, "missing_context_error": missing}
    with open(OUT, "w") as f:
        json.dump(record, f, indent=1)
    print("wrote", OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
