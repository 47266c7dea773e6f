"""``SoftmaxCrossEntropyLoss`` called imperatively is one tape node computing the four operators
MXNet records (log_softmax, pick, ``* -1``, mean) with their kernels, and their gradients with
theirs: the same loss and gradients bit for bit as the operators called one by one
(``HYBRIDIZE_FUSED_LOSS=0``), higher-order gradients included."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

import hybridize.runtime as mx
from hybridize.runtime import autograd, gluon
from hybridize.runtime.base import NonDifferentiableError


def _run(monkeypatch, fused: bool, pred: np.ndarray, label: np.ndarray, head=None, **kw):
    monkeypatch.setenv("HYBRIDIZE_FUSED_LOSS", "1" if fused else "0")
    p = mx.nd.array(pred, dtype=pred.dtype)
    p.attach_grad()
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss(**kw)(p * 1.0, mx.nd.array(label))
    nodes = 1 if loss._ag[0].op is None else 0
    loss.backward(None if head is None else mx.nd.array(head, dtype=pred.dtype))
    return loss.asnumpy(), p.grad.asnumpy(), nodes


@pytest.mark.parametrize("shape, kw", [((6, 4), {}), ((3, 5, 2), {"axis": 1}), ((4, 3, 5), {"batch_axis": 1}),
                                       ((5, 3), {"axis": 0})])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_loss_and_gradient_are_the_operators_bit_for_bit(monkeypatch, shape, kw, dtype):
    rng = np.random.default_rng(0)
    pred = (rng.standard_normal(shape) * 3).astype(dtype)
    ax = kw.get("axis", -1) % len(shape)
    label_shape = shape[:ax] + shape[ax + 1:]
    label = rng.integers(-1, shape[ax] + 1, label_shape).astype(np.float32)     # out of range: clipped
    loss_shape = _run(monkeypatch, True, pred, label, **kw)[0].shape
    for h in (None, rng.standard_normal(loss_shape).astype(dtype)):
        fused = _run(monkeypatch, True, pred, label, h, **kw)
        ops = _run(monkeypatch, False, pred, label, h, **kw)
        assert fused[2] == 1 and ops[2] == 0
        for a, b in zip(fused[:2], ops[:2]):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def _run_label(monkeypatch, fused: bool, pred: np.ndarray, label: mx.nd.NDArray, head=None):
    monkeypatch.setenv("HYBRIDIZE_FUSED_LOSS", "1" if fused else "0")
    p = mx.nd.array(pred, dtype=pred.dtype)
    p.attach_grad()
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(p * 1.0, label)
    loss.backward(head)
    return loss.asnumpy(), p.grad.asnumpy()


@pytest.mark.parametrize("case", ["non-finite logits", "int labels", "column labels", "float64 head"])
def test_classifier_rows_are_the_operators_bit_for_bit(monkeypatch, case):
    """(batch, classes) logits take a shorter path: the same numbers as the operators for labels of
    other dtypes and shapes, non-finite logits and labels, head gradients of another dtype."""
    rng = np.random.default_rng(2)
    pred = (rng.standard_normal((8, 3)) * 4).astype(np.float32)
    label = rng.integers(-2, 5, 8).astype(np.float32)
    head = None
    if case == "non-finite logits":
        pred[1, 0], pred[2, :], pred[3, 2], pred[4, 1] = np.nan, -np.inf, np.inf, -0.0
    elif case == "int labels":
        label = label.astype(np.int32)
    elif case == "column labels":
        label = label.reshape(8, 1)
    else:
        head = mx.nd.array(rng.standard_normal(8), dtype=np.float64)
    runs = [_run_label(monkeypatch, fused, pred, mx.nd.array(label, dtype=label.dtype), head) for fused in (1, 0)]
    for a, b in zip(*runs):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
        assert (np.signbit(a) == np.signbit(b)).all()


def test_create_graph_replays_the_operators(monkeypatch):
    """Recorded gradients are the operators' own (log_softmax's gradient has no gradient, as in
    MXNet 1.9.1: both paths refuse the second order alike)."""
    rng = np.random.default_rng(1)
    pred, label = rng.standard_normal((4, 3)).astype(np.float32), np.array([0, 2, 1, 1], np.float32)
    results = []
    for fused in (True, False):
        monkeypatch.setenv("HYBRIDIZE_FUSED_LOSS", "1" if fused else "0")
        p = mx.nd.array(pred)
        p.attach_grad()
        with autograd.record():
            loss = gluon.loss.SoftmaxCrossEntropyLoss()(p * 2.0, mx.nd.array(label))
            (g,) = autograd.grad(loss, [p], create_graph=True)
            total = (g * g).sum()
        assert g._ag[0].op is not None                  # recorded by the operators' rules
        with pytest.raises(NonDifferentiableError) as err:
            total.backward()
        results.append((g.asnumpy(), str(err.value)))
    assert results[0][1] == results[1][1]
    np.testing.assert_array_equal(results[0][0], results[1][0])


def test_other_forms_take_the_operators():
    p = mx.nd.array(np.ones((2, 3), np.float32))
    p.attach_grad()
    with autograd.record():
        dense = gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)(p, mx.nd.ones((2, 3)))
        weighted = gluon.loss.SoftmaxCrossEntropyLoss()(p, mx.nd.array([0, 1]), mx.nd.array([[1.0], [2.0]]))
    assert dense._ag[0].op is not None and weighted._ag[0].op is not None


def test_get_symbol_shows_the_four_operators(monkeypatch):
    shown = []
    for fused in (True, False):
        monkeypatch.setenv("HYBRIDIZE_FUSED_LOSS", "1" if fused else "0")
        p = mx.nd.array(np.ones((2, 3), np.float32))
        p.attach_grad()
        with autograd.record():
            loss = gluon.loss.SoftmaxCrossEntropyLoss()(p, mx.nd.array([0, 1]))
        s = autograd.get_symbol(loss)
        shown.append([(n["op"], re.sub(r"\d+", "", n["name"]), n.get("attrs"), n["inputs"])
                      for n in json.loads(s.tojson())["nodes"]])
    assert shown[0] == shown[1]
    assert [op for op, _, _, _ in shown[0] if op != "null"] == ["log_softmax", "pick", "_mul_scalar", "mean"]
