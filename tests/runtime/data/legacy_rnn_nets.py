"""The cell stacks both sides build: MXNet 1.9.1 in ``make_legacy_rnn_cases.py`` and the runtime in
``test_legacy_rnn.py``, each passing its own ``mx``."""
from __future__ import annotations

from typing import Any, Callable

T, N, I, H = 3, 2, 4, 3     # steps, batch, input size, hidden size


def modes(mx: Any) -> dict[str, Callable[[str], Any]]:
    """One unfused cell per mode, by prefix."""
    return {"lstm": lambda p: mx.rnn.LSTMCell(H, prefix=p), "gru": lambda p: mx.rnn.GRUCell(H, prefix=p),
            "rnn_tanh": lambda p: mx.rnn.RNNCell(H, activation="tanh", prefix=p),
            "rnn_relu": lambda p: mx.rnn.RNNCell(H, activation="relu", prefix=p)}


def stack_of(mx: Any, mode: str, bidirectional: bool, layers: int) -> Any:
    """``layers`` cells of ``mode`` in a SequentialRNNCell (each a BidirectionalCell pair if asked)."""
    cell = modes(mx)[mode]
    stack = mx.rnn.SequentialRNNCell()
    for i in range(layers):
        if bidirectional:
            stack.add(mx.rnn.BidirectionalCell(cell("l%d_" % i), cell("r%d_" % i), output_prefix="bi_%d_" % i))
        else:
            stack.add(cell("l%d_" % i))
    return stack
