"""Training/prediction mode, as ``mxnet.autograd`` (forward only: no gradients are recorded here).

Ops whose forward depends on the mode (Dropout, BatchNorm) read :func:`is_training`.
"""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

__all__ = ["is_training", "is_recording", "set_training", "set_recording", "train_mode", "predict_mode", "record",
           "pause", "Function"]

_state = threading.local()


def is_training() -> bool:
    return getattr(_state, "training", False)


def is_recording() -> bool:
    return getattr(_state, "recording", False)


def set_training(train_mode: bool) -> bool:
    prev = is_training()
    _state.training = bool(train_mode)
    return prev


def set_recording(is_record: bool) -> bool:
    prev = is_recording()
    _state.recording = bool(is_record)
    return prev


@contextmanager
def _scope(recording: bool | None, training: bool | None) -> Iterator[None]:
    prev_r, prev_t = is_recording(), is_training()
    if recording is not None:
        _state.recording = recording
    if training is not None:
        _state.training = training
    try:
        yield
    finally:
        _state.recording, _state.training = prev_r, prev_t


def record(train_mode: bool = True):
    return _scope(True, train_mode)


def pause(train_mode: bool = False):
    return _scope(False, train_mode)


def train_mode():
    return _scope(None, True)


def predict_mode():
    return _scope(None, False)


class Function:
    """A function with a user-defined gradient, as ``mxnet.autograd.Function``: calling an instance
    runs ``forward`` (with recording paused, as MXNet); ``backward`` is never called here (no
    gradients are recorded). imgclsmob's iSQRT-COV covariance pooling is written this way.
    """

    def __init__(self) -> None:
        self._used = False
        self.saved_tensors: tuple = ()

    def save_for_backward(self, *args) -> None:
        self.saved_tensors = args

    def __call__(self, *inputs):
        assert not self._used, "Each Function instance can only be called once. Please create another instance."
        self._used = True
        prev = set_recording(False)
        try:
            return self.forward(*inputs)
        finally:
            set_recording(prev)

    def forward(self, *inputs):
        """Forward computation."""
        raise NotImplementedError

    def backward(self, *output_grads):
        """Backward computation (never called by this runtime)."""
        raise NotImplementedError
