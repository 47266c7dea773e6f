"""MXNet's older autograd API, ``mxnet.contrib.autograd`` (deprecated in MXNet, kept for its users):
``train_section``/``test_section`` scopes that switch recording and training together,
``mark_variables``, ``backward``/``compute_gradient`` and the ``grad``/``grad_and_loss`` decorators,
all on the same tape as ``mxnet.autograd``."""
from __future__ import annotations

import functools
from typing import Any, Callable

from .. import autograd as _ag
from ..ndarray import NDArray, zeros_like

__all__ = ["set_is_training", "TrainingStateScope", "train_section", "test_section", "mark_variables", "backward",
           "compute_gradient", "grad_and_loss", "grad"]


def set_is_training(is_train: bool) -> bool:
    """Sets training and recording together; returns the previous state."""
    prev = _ag.set_training(is_train)
    _ag.set_recording(is_train)
    return prev


class TrainingStateScope:
    """Scope in which training (and recording) is ``enter_state``."""

    def __init__(self, enter_state: bool):
        self._enter_state = enter_state
        self._prev = None

    def __enter__(self) -> None:
        self._prev = set_is_training(self._enter_state)

    def __exit__(self, ptype: Any, value: Any, trace: Any) -> None:
        if self._prev != self._enter_state:
            set_is_training(self._prev)


def train_section() -> TrainingStateScope:
    """Scope recording operations for gradients, in training mode."""
    return TrainingStateScope(True)


def test_section() -> TrainingStateScope:
    """Scope with recording and training off."""
    return TrainingStateScope(False)


test_section.__test__ = False  # a scope, not a test (pytest collects ``test_*`` names it imports)


def mark_variables(variables: list, gradients: list, grad_reqs: Any = "write") -> None:
    """Marks NDArrays as variables whose gradients go into ``gradients``."""
    _ag.mark_variables(list(variables), list(gradients), grad_reqs)


def backward(outputs: Any, out_grads: Any = None, retain_graph: bool = False) -> None:
    """Computes the gradients of ``outputs`` (a list or tuple) w.r.t. the marked variables."""
    assert isinstance(outputs, (list, tuple)), "outputs must be a list or tuple of NDArrays"
    if out_grads is not None:
        assert len(out_grads) == len(outputs), "outputs and out_grads must have the same length"
    _ag.backward(list(outputs), None if out_grads is None else list(out_grads), retain_graph)


def compute_gradient(outputs: Any) -> None:
    """Deprecated. Please use backward."""
    backward(outputs)


def grad_and_loss(func: Callable, argnum: Any = None) -> Callable:
    """Wraps ``func`` to return (gradients of its arguments or of those in ``argnum``, its result)."""
    @functools.wraps(func)
    def wrapped(*args: Any) -> tuple:
        variables = args
        if argnum is not None:
            argnum_ = argnum if isinstance(argnum, list) else [argnum]
            variables = [args[i] for i in argnum_]
        for x in variables:
            assert isinstance(x, NDArray), "type of autograd input should NDArray."
        grads = [zeros_like(x) for x in variables]
        mark_variables(variables, grads)
        with train_section():
            outputs = func(*args)
        compute_gradient([outputs] if isinstance(outputs, NDArray) else outputs)
        return grads, outputs
    return wrapped


def grad(func: Callable, argnum: Any = None) -> Callable:
    """Wraps ``func`` to return the gradients of its arguments (or of those in ``argnum``)."""
    grad_with_loss_func = grad_and_loss(func, argnum)

    @functools.wraps(grad_with_loss_func)
    def wrapped(*args: Any) -> list:
        return grad_with_loss_func(*args)[0]
    return wrapped
