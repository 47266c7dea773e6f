"""Records MXNet 1.9.1's IdentityAttachKLSparseReg backward (its gradient and the moving average it
updates in the backward pass) for ``tests/autograd/test_grad_loss_layers.py``.

    /tmp/mxnet-venv/bin/python tools/record_kl_sparse_reg.py

The operator has no imperative front end in MXNet (its ``moving_avg`` is an auxiliary state of a legacy
operator), so the case runs through a bound executor: forward(is_train=True), backward(head gradient).
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "autograd", "fixtures", "kl_sparse_reg.json")


def main() -> None:
    rng = np.random.RandomState(0)
    x = rng.uniform(0.1, 0.9, (4, 3)).astype(np.float32)
    ma0 = np.array([0.2, 0.5, 0.7], np.float32)
    head = rng.standard_normal((4, 3)).astype(np.float32)
    attrs = {"sparseness_target": 0.2, "penalty": 0.01, "momentum": 0.8}
    y = mx.sym.IdentityAttachKLSparseReg(data=mx.sym.Variable("data"), name="kl", **attrs)
    ex = y.bind(mx.cpu(), {"data": mx.nd.array(x)}, args_grad={"data": mx.nd.zeros(x.shape)},
                aux_states={"kl_moving_avg": mx.nd.array(ma0)})
    out = ex.forward(is_train=True)[0].asnumpy()
    ex.backward([mx.nd.array(head)])
    record = {"attrs": attrs, "data": x.tolist(), "moving_avg": ma0.tolist(), "head_grad": head.tolist(),
              "output": out.tolist(), "grad": ex.grad_dict["data"].asnumpy().tolist(),
              "moving_avg_after_backward": ex.aux_dict["kl_moving_avg"].asnumpy().tolist()}
    with open(OUT, "w") as f:
        json.dump(record, f, indent=1)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
