"""Hybridized np-mode blocks on zero-dim and zero-size inputs: the cases, shared by the recorder
(tools/numpy_zero/record.py, run with MXNet 1.9.1) and tests/numpy/test_np_zero_shapes.py.

Each case is ``name -> (body, input shapes)``: ``body(F, *xs)`` is a ``hybrid_forward`` written once
for both libraries; the inputs are ``arange`` values of those shapes (float32). The library is
passed in, so this module imports neither.
"""
from __future__ import annotations

import numpy as onp

CASES = {
    # zero-dim: () is a real shape with NumPy shape semantics
    "scalar_add": (lambda F, x: x * 2 + 1, [()]),
    "scalar_clip": (lambda F, x: F.np.clip(x, 0.5, 1.5), [()]),
    "scalar_sum": (lambda F, x: F.np.sum(x), [()]),
    "scalar_broadcast": (lambda F, x, y: x + y, [(), (2, 3)]),
    "reduce_to_scalar": (lambda F, x: F.np.sum(x), [(2, 3)]),
    "scalar_expand": (lambda F, x: F.np.expand_dims(x, 0), [()]),
    # zero-size: a 0 in a shape is a real (empty) axis
    "empty_identity": (lambda F, x: x, [(2, 0, 3)]),
    "empty_unary": (lambda F, x: F.np.exp(x) + 1, [(0,)]),
    "empty_sum_axis": (lambda F, x: F.np.sum(x, axis=1), [(2, 0, 3)]),
    "empty_sum_all": (lambda F, x: F.np.sum(x), [(0, 4)]),
    "empty_any": (lambda F, x: F.np.any(x, axis=0), [(0, 4)]),
    "empty_all": (lambda F, x: F.np.all(x), [(3, 0)]),
    "empty_swapaxes": (lambda F, x: F.np.swapaxes(x, 0, 2), [(2, 0, 3)]),
    "empty_tile": (lambda F, x: F.np.tile(x, (2, 1)), [(0, 3)]),
    "empty_full_like": (lambda F, x: F.np.full_like(x, 7), [(3, 0)]),
    "empty_concat": (lambda F, x, y: F.np.concatenate([x, y], axis=0), [(0, 3), (2, 3)]),
    "empty_reshape": (lambda F, x: F.np.reshape(x, (0, 2, 3)), [(3, 0, 2)]),
    "empty_dot": (lambda F, x, y: F.np.dot(x, y), [(2, 0), (0, 3)]),
    "empty_eigvalsh": (lambda F, x: F.np.linalg.eigvalsh(x), [(0, 0)]),
    "empty_chain": (lambda F, x: F.np.transpose(F.npx.relu(x * 3 - 1)) + 2, [(4, 0)]),
    "empty_split": (lambda F, x: F.np.split(x, (1, 3), axis=0), [(0, 4)]),
    "empty_cumsum": (lambda F, x: F.np.cumsum(x, axis=1), [(2, 0, 3)]),
    "scalar_cumsum": (lambda F, x: F.np.cumsum(x), [()]),
    # a single matrix's determinant is zero-dim with NumPy shape semantics on
    "matrix_slogdet": (lambda F, x: F.np.linalg.slogdet(x), [(2, 2)]),
    "empty_argmax": (lambda F, x: F.np.argmax(x, axis=0), [(5, 0, 3)]),
    # shapes from rules, not from the kernel on zeros (a zero matrix is singular)
    "matrix_cholesky": (lambda F, x: F.np.linalg.cholesky(F.np.dot(x, F.np.transpose(x))), [(2, 2)]),
    "matrix_solve": (lambda F, a, b: F.np.linalg.solve(a, b), [(2, 2), (2, 3)]),
    "empty_softmax": (lambda F, x: F.npx.softmax(x, axis=1), [(3, 0, 4)]),
    # -2 in broadcast_to's target keeps the input's dimension (MXNet's extension)
    "broadcast_keep": (lambda F, x: F.np.broadcast_to(x, (2, 3, -2)), [(3, 4)]),
}


def dot_block(nn):
    """``x.dot(w)`` with ``w``'s rows unknown (deferred): np.dot's shape rule completes them from ``x``."""
    class Dot(nn.HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get("w", shape=(0, 5), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return x.dot(w)
    return Dot()


def compare_block(nn):
    """Two outputs, the second a comparison: its gradient is zero, so the backward reads no head
    gradient for it."""
    class Compare(nn.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return x * y, x > y
    return Compare()


def inputs(shapes: list) -> list:
    """The case's input values: ``arange`` over each shape, float32, offset per input."""
    out = []
    for i, s in enumerate(shapes):
        n = int(onp.prod(s)) if s else 1
        out.append((onp.arange(n, dtype=onp.float32) / 4 + i + 0.75).reshape(s))
    return out


def block(nn, body):
    """A HybridBlock of the given library whose ``hybrid_forward`` is ``body``."""
    class Case(nn.HybridBlock):
        def hybrid_forward(self, F, *xs):
            return body(F, *xs)
    return Case()


def dense_block(nn):
    """``Dense(3)`` without ``in_units``: its weight's input size is learnt from the first batch,
    which here has no rows; then ``Dense`` on a zero-dim batch axis must still be initialized."""
    net = nn.HybridSequential()
    net.add(nn.Dense(3))
    return net
