"""Gradients of the loss layers whose backward is their point: CTCLoss (the data gradient, as MXNet's
warp-ctc kernel: softmax minus the alignment posterior, zero past a sequence's length) and
IdentityAttachKLSparseReg (the sparseness penalty added to the gradient, with the moving average
updated in the backward pass as MXNet does). MXNet's CTCLoss gradients are recorded cases of
tests/autograd/fixtures/manifest.json (tools/record_gradients.py); the KL case is recorded through a
bound executor (tools/record_kl_sparse_reg.py)."""
from __future__ import annotations

import json
from pathlib import Path

import hybridize.runtime as mx
import numpy as np
from gradcheck import check_vjp

KL = json.loads((Path(__file__).parent / "fixtures" / "kl_sparse_reg.json").read_text())


def _x(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.RandomState(seed).standard_normal(shape).astype(np.float32)


def test_ctc_loss_data_gradient_matches_finite_differences() -> None:
    label = np.array([[1, 2, 0], [3, 0, 0]], np.float32)
    check_vjp("CTCLoss", [_x(4, 2, 4).astype(np.float64), label], wrt=[0], rtol=1e-5, atol=1e-6)


def test_ctc_loss_with_lengths_has_no_gradient_past_the_data_length() -> None:
    data, label = _x(5, 2, 3), np.array([[1, 2], [2, 0]], np.float32)
    lengths = (np.array([3, 5], np.float32), np.array([2, 1], np.float32))
    grads = check_vjp("CTCLoss", [data.astype(np.float64), label, *lengths],
                      {"use_data_lengths": True, "use_label_lengths": True}, wrt=[0], rtol=1e-5, atol=1e-6)
    assert not grads[0][3:, 0].any() and grads[0][3:, 1].any()


def test_ctc_loss_gradient_through_gluon_and_autograd() -> None:
    pred = mx.nd.array(_x(2, 5, 4))  # NTC, as gluon.loss.CTCLoss takes it
    pred.attach_grad()
    with mx.autograd.record():
        loss = mx.gluon.loss.CTCLoss()(pred, mx.nd.array([[1, 2], [3, -1]]))
    loss.backward()
    g = pred.grad.asnumpy()
    np.testing.assert_allclose(g.sum(axis=2), 0, atol=1e-6)  # softmax minus a posterior: each step sums to 0


def test_kl_sparse_reg_gradient_and_moving_average_equal_mxnet() -> None:
    y = mx.sym.IdentityAttachKLSparseReg(data=mx.sym.Variable("data"), name="kl", **KL["attrs"])
    grad = mx.nd.zeros((4, 3))
    ex = y.bind(mx.cpu(), {"data": mx.nd.array(KL["data"])}, args_grad={"data": grad},
                aux_states={"kl_moving_avg": mx.nd.array(KL["moving_avg"])})
    out = ex.forward(is_train=True)[0]
    ex.backward([mx.nd.array(KL["head_grad"])])
    np.testing.assert_array_equal(out.asnumpy(), np.asarray(KL["output"], np.float32))
    np.testing.assert_allclose(grad.asnumpy(), KL["grad"], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ex.aux_dict["kl_moving_avg"].asnumpy(), KL["moving_avg_after_backward"], rtol=1e-6)
